//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

// doc is the page's document (set by main in the page; the engine's
// worker has none).
var doc dom.Document

// document is the page's document as a page.Doc.
type document struct{}

// ui is the page's document, for package page.
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
	each(sel, func(e dom.Element) {
		if on {
			e.Class().Add(class)
		} else {
			e.Class().Remove(class)
		}
	})
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
