//go:build js && wasm

package main

import (
	"fmt"

	"honnef.co/go/js/dom/v2"
)

// doc is the page's document (set by main in the page; the engine's
// worker has none).
var doc dom.Document

// byID returns the element with the given id; it panics if the page lacks
// it (index.html and this package must agree).
func byID(id string) dom.HTMLElement {
	e := doc.GetElementByID(id)
	if e == nil {
		panic(fmt.Sprintf("deeplda: the page has no element #%s", id))
	}
	return e.(dom.HTMLElement)
}

// el creates an element with a class (may be empty) and text (may be
// empty).
func el(tag, class, text string) dom.HTMLElement {
	e := doc.CreateElement(tag).(dom.HTMLElement)
	if class != "" {
		e.SetAttribute("class", class)
	}
	if text != "" {
		e.SetTextContent(text)
	}
	return e
}

// show shows or hides an element (the hidden attribute).
func show(e dom.Element, visible bool) { setAttr(e, "hidden", "", !visible) }

// enable enables or disables a form control.
func enable(e dom.Element, on bool) { setAttr(e, "disabled", "", !on) }

// setHTML sets the HTML of the element with the given id and returns it.
func setHTML(id, html string) dom.HTMLElement {
	e := byID(id)
	e.SetInnerHTML(html)
	return e
}

// setAttr sets attribute name of e to v when on, else removes it.
func setAttr(e dom.Element, name, v string, on bool) {
	if on {
		e.SetAttribute(name, v)
	} else {
		e.RemoveAttribute(name)
	}
}

// setClass adds class to e when on, else removes it.
func setClass(e dom.Element, class string, on bool) {
	if on {
		e.Class().Add(class)
	} else {
		e.Class().Remove(class)
	}
}

// removeChildren removes every child of e.
func removeChildren(e dom.Element) {
	for e.FirstChild() != nil {
		e.RemoveChild(e.FirstChild())
	}
}

// setState publishes the automation state on document.body.dataset.state:
// idle, training, done or error.
func setState(state string) {
	doc.(dom.HTMLDocument).Body().SetAttribute("data-state", state)
}

// state returns the current automation state.
func state() string {
	return doc.(dom.HTMLDocument).Body().GetAttribute("data-state")
}
