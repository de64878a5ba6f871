//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
)

// element is a DOM element: its JavaScript object with the few DOM calls
// the page makes. The page uses syscall/js directly rather than a DOM
// binding package: honnef.co/go/js/dom wraps every element and event type
// of the web platform, over 2,800 functions, and made app.wasm 0.2 MB
// larger gzipped.
type element struct{ js.Value }

// SetAttribute sets the attribute name to value.
func (e element) SetAttribute(name, value string) { e.Call("setAttribute", name, value) }

// GetAttribute returns the attribute name ("" when absent).
func (e element) GetAttribute(name string) string {
	v := e.Call("getAttribute", name)
	if v.IsNull() {
		return ""
	}
	return v.String()
}

// RemoveAttribute removes the attribute name.
func (e element) RemoveAttribute(name string) { e.Call("removeAttribute", name) }

// SetID sets the element's id.
func (e element) SetID(id string) { e.Set("id", id) }

// QuerySelectorAll returns the element's descendants that match the CSS
// selector sel.
func (e element) QuerySelectorAll(sel string) []element {
	list := e.Call("querySelectorAll", sel)
	out := make([]element, list.Length())
	for i := range out {
		out[i] = element{list.Index(i)}
	}
	return out
}

// SetTextContent replaces the element's content with text.
func (e element) SetTextContent(text string) { e.Set("textContent", text) }

// SetInnerHTML replaces the element's content with the markup html.
func (e element) SetInnerHTML(html string) { e.Set("innerHTML", html) }

// AppendChild appends child to the element's children.
func (e element) AppendChild(child element) { e.Call("appendChild", child.Value) }

// RemoveChild removes child from the element's children.
func (e element) RemoveChild(child element) { e.Call("removeChild", child.Value) }

// SetStyle sets the CSS property name of the element's inline style.
func (e element) SetStyle(name, value string) { e.Get("style").Call("setProperty", name, value) }

// AddClass adds the class name to the element's classes.
func (e element) AddClass(name string) { e.Get("classList").Call("add", name) }

// RemoveClass removes the class name from the element's classes.
func (e element) RemoveClass(name string) { e.Get("classList").Call("remove", name) }

// HasClass reports whether the element has the class name.
func (e element) HasClass(name string) bool { return e.Get("classList").Call("contains", name).Bool() }

// AddEventListener calls fn with the event object on every event typ of
// the element, for the page's lifetime.
func (e element) AddEventListener(typ string, fn func(ev js.Value)) {
	e.Call("addEventListener", typ, js.FuncOf(func(_ js.Value, args []js.Value) any {
		fn(args[0])
		return nil
	}))
}

// doc is the page's document.
var doc = js.Global().Get("document")

// body returns the page's body element.
func body() element { return element{doc.Get("body")} }

// byID returns the element with the given id; it panics if the page lacks
// it (index.html and this package must agree).
func byID(id string) element {
	e := doc.Call("getElementById", id)
	if e.IsNull() {
		panic(fmt.Sprintf("deeplda: the page has no element #%s", id))
	}
	return element{e}
}

// el creates an element with a class (may be empty) and text (may be
// empty).
func el(tag, class, text string) element {
	e := element{doc.Call("createElement", tag)}
	if class != "" {
		e.SetAttribute("class", class)
	}
	if text != "" {
		e.SetTextContent(text)
	}
	return e
}

// show shows or hides an element (the hidden attribute).
func show(e element, visible bool) {
	if visible {
		e.RemoveAttribute("hidden")
	} else {
		e.SetAttribute("hidden", "")
	}
}

// enable enables or disables a form control.
func enable(e element, on bool) {
	if on {
		e.RemoveAttribute("disabled")
	} else {
		e.SetAttribute("disabled", "")
	}
}

// removeChildren removes every child of e.
func removeChildren(e element) {
	for c := e.Get("firstChild"); !c.IsNull(); c = e.Get("firstChild") {
		e.Call("removeChild", c)
	}
}

// setState publishes the automation state on document.body.dataset.state:
// idle, training, done or error.
func setState(state string) { body().SetAttribute("data-state", state) }

// state returns the current automation state.
func state() string { return body().GetAttribute("data-state") }

// consoleError writes to the browser console's error stream.
func consoleError(args ...any) {
	js.Global().Get("console").Call("error", args...)
}

// consoleWarn writes to the browser console's warning stream.
func consoleWarn(args ...any) {
	js.Global().Get("console").Call("warn", args...)
}
