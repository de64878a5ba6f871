//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/page"
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

// setState publishes the automation state (page.SetState).
func setState(state string) { page.SetState(ui, state) }

// state returns the current automation state.
func state() string { return page.State(ui) }

// document is the page's document as a page.Doc.
type document struct{}

// ui is the page's document, for package page's controls.
var ui document

// each runs fn on every element sel selects.
func each(sel string, fn func(dom.Element)) {
	for _, e := range doc.QuerySelectorAll(sel) {
		fn(e)
	}
}

// first returns the first element sel selects as a JavaScript value (null
// when none).
func first(sel string) js.Value { return doc.Underlying().Call("querySelector", sel) }

func (document) SetText(sel, text string) { each(sel, func(e dom.Element) { e.SetTextContent(text) }) }

func (document) SetHTML(sel, html string) { each(sel, func(e dom.Element) { e.SetInnerHTML(html) }) }

func (document) SetAttr(sel, name, v string) {
	each(sel, func(e dom.Element) { e.SetAttribute(name, v) })
}

func (document) RemoveAttr(sel, name string) {
	each(sel, func(e dom.Element) { e.RemoveAttribute(name) })
}

func (document) SetClass(sel, class string, on bool) {
	each(sel, func(e dom.Element) { setClass(e, class, on) })
}

func (document) SetValue(sel, v string) {
	each(sel, func(e dom.Element) { e.Underlying().Set("value", v) })
}

func (document) SetChecked(sel string, on bool) {
	each(sel, func(e dom.Element) { e.Underlying().Set("checked", on) })
}

func (document) Append(sel, html string) {
	each(sel, func(e dom.Element) { e.Underlying().Call("insertAdjacentHTML", "beforeend", html) })
}

func (document) Remove(sel string) { each(sel, func(e dom.Element) { e.Underlying().Call("remove") }) }

func (document) Text(sel string) string { return property(sel, "textContent").String() }

func (document) Attr(sel, name string) string {
	if e := first(sel); e.Truthy() && e.Call("hasAttribute", name).Bool() {
		return e.Call("getAttribute", name).String()
	}
	return ""
}

func (document) HasClass(sel, class string) bool {
	e := first(sel)
	return e.Truthy() && e.Get("classList").Call("contains", class).Bool()
}

func (document) Value(sel string) string { return property(sel, "value").String() }

func (document) Checked(sel string) bool { return property(sel, "checked").Truthy() }

// property returns the property name of the first element sel selects
// ("" when none).
func property(sel, name string) js.Value {
	if e := first(sel); e.Truthy() {
		return e.Get(name)
	}
	return js.ValueOf("")
}
