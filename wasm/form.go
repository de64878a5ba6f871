//go:build js && wasm

package main

import (
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// form is the settings panel (page.FormHTML): one control per
// config.Field, each with its error message underneath.
type form struct {
	controls map[string]dom.HTMLElement // input or select, by field name
	general  dom.HTMLElement            // problems of no single field
}

// newForm builds the controls into #fields and #fields-advanced; onInput
// runs after every edit.
func newForm(onInput func()) *form {
	f := &form{controls: map[string]dom.HTMLElement{}, general: byID("form-error")}
	basic, advanced := page.FormHTML()
	for _, box := range []dom.HTMLElement{setHTML("fields", basic), setHTML("fields-advanced", advanced)} {
		box.AddEventListener("input", false, func(dom.Event) { onInput() })
		box.AddEventListener("change", false, func(dom.Event) { onInput() })
	}
	for _, fd := range config.Fields {
		f.controls[fd.Name] = byID("f-" + fd.Name)
	}
	return f
}

// value returns the js value of a control.
func (f *form) value(name string) js.Value { return f.controls[name].Underlying() }

// setRaw puts the text of every field into its control.
func (f *form) setRaw(raw config.Raw) {
	for _, fd := range config.Fields {
		v, c := raw[fd.Name], f.controls[fd.Name]
		switch {
		case fd.Control == config.Checkbox:
			f.value(fd.Name).Set("checked", v == "1")
			continue
		case fd.Control == config.Select:
			for _, o := range c.QuerySelectorAll("option[data-unknown]") {
				c.RemoveChild(o)
			}
			if !slices.Contains(fd.Choices, v) {
				// Keep an unknown value visible (with its message) rather
				// than silently showing the first option.
				opt := el("option", "", v)
				opt.SetAttribute("value", v)
				opt.SetAttribute("data-unknown", "1")
				c.AppendChild(opt)
			}
		}
		f.value(fd.Name).Set("value", v)
	}
}

// raw returns the text of every field.
func (f *form) raw() config.Raw {
	r := config.Raw{}
	for _, fd := range config.Fields {
		if fd.Control == config.Checkbox {
			r[fd.Name] = "0"
			if f.value(fd.Name).Get("checked").Bool() {
				r[fd.Name] = "1"
			}
			continue
		}
		r[fd.Name] = f.value(fd.Name).Get("value").String()
	}
	return r
}

// showErrors puts each message where page.FieldErrors places it.
func (f *form) showErrors(d config.Demo, errs config.Errors) {
	fields, general := page.FieldErrors(d, errs)
	for name, msg := range fields {
		byID("e-" + name).SetTextContent(msg)
		setAttr(f.controls[name], "aria-invalid", "true", msg != "")
		setClass(f.controls[name].ParentElement(), "invalid", msg != "")
	}
	f.general.SetTextContent(general)
	show(f.general, general != "")
}

// setDemo shows the controls of demo d and hides the others.
func (f *form) setDemo(d config.Demo) {
	for _, fd := range config.Fields {
		show(f.controls[fd.Name].ParentElement(), fd.Shown(d))
	}
}

// lock disables every control while training (page.Editable).
func (f *form) lock(training bool) {
	compare := f.value("compare").Get("checked").Bool()
	for name, c := range f.controls {
		enable(c, page.Editable(name, training, compare))
	}
}
