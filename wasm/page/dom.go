package page

// Doc is what the page's controls need of its document: the elements a
// CSS selector selects, all of them where it sets, the first where it
// reads (nothing, or "", where it selects none). Package main implements
// it on the browser's DOM, the tests on a fake.
type Doc interface {
	SetText(sel, text string)
	Text(sel string) string
	SetHTML(sel, html string)
	SetAttr(sel, name, value string)
	RemoveAttr(sel, name string)
	Attr(sel, name string) string
	SetClass(sel, class string, on bool)
	HasClass(sel, class string) bool
	// Value and Checked are a control's properties.
	Value(sel string) string
	SetValue(sel, v string)
	Checked(sel string) bool
	SetChecked(sel string, on bool)
	// Append adds html at the end of the element; Remove removes the
	// elements.
	Append(sel, html string)
	Remove(sel string)
}

// Show shows the elements sel selects (visible), or hides them (the
// hidden attribute).
func Show(d Doc, sel string, visible bool) { setAttr(d, sel, "hidden", !visible) }

// Enable enables the controls sel selects (on), or disables them.
func Enable(d Doc, sel string, on bool) { setAttr(d, sel, "disabled", !on) }

// setAttr sets the boolean attribute name of sel's elements when on, else
// removes it.
func setAttr(d Doc, sel, name string, on bool) {
	if on {
		d.SetAttr(sel, name, "")
	} else {
		d.RemoveAttr(sel, name)
	}
}
