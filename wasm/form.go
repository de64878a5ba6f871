//go:build js && wasm

package main

import (
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/config"
)

// form is the settings panel: one control per config.Field (made from
// experiment.Settings), each with its
// error message underneath.
type form struct {
	controls map[string]dom.HTMLElement // input or select, by field name
	rows     map[string]dom.HTMLElement // the control's label and message
	errs     map[string]dom.HTMLElement // the message under the control
	general  dom.HTMLElement            // problems of no single field
}

// newForm builds the controls into #fields and #fields-advanced; onInput
// runs after every edit.
func newForm(onInput func()) *form {
	f := &form{controls: map[string]dom.HTMLElement{}, rows: map[string]dom.HTMLElement{}, errs: map[string]dom.HTMLElement{}, general: byID("form-error")}
	basic, advanced := byID("fields"), byID("fields-advanced")
	removeChildren(basic) // the loading note
	removeChildren(advanced)
	for _, fd := range config.Fields {
		row := el("div", "field", "")
		row.SetAttribute("data-field", fd.Name)
		id := "f-" + fd.Name
		var ctl dom.HTMLElement
		switch fd.Control {
		case config.Select:
			ctl = el("select", "", "")
			for _, o := range fd.Choices {
				opt := el("option", "", o)
				opt.SetAttribute("value", o)
				ctl.AppendChild(opt)
			}
		case config.Checkbox:
			ctl = el("input", "", "")
			ctl.SetAttribute("type", "checkbox")
			row.Class().Add("check")
		default:
			ctl = el("input", "", "")
			// Text, not number: a number input would silently turn "abc"
			// into "", and the message must quote what was typed.
			ctl.SetAttribute("type", "text")
			ctl.SetAttribute("spellcheck", "false")
			ctl.SetAttribute("autocomplete", "off")
			if fd.Control == config.Number {
				mode := "decimal"
				if fd.Step == "1" {
					mode = "numeric"
				}
				ctl.SetAttribute("inputmode", mode)
			}
		}
		ctl.SetID(id)
		ctl.SetAttribute("name", fd.Name)
		ctl.SetAttribute("title", fd.Help)
		ctl.SetAttribute("aria-describedby", "e-"+fd.Name)
		label := el("label", "", fd.Label)
		label.SetAttribute("for", id)
		msg := el("p", "field-error", "")
		msg.SetID("e-" + fd.Name)
		msg.SetAttribute("role", "alert")
		if fd.Control == config.Checkbox {
			row.AppendChild(ctl)
			row.AppendChild(label)
		} else {
			row.AppendChild(label)
			row.AppendChild(ctl)
		}
		row.AppendChild(msg)
		if fd.Advanced {
			advanced.AppendChild(row)
		} else {
			basic.AppendChild(row)
		}
		f.controls[fd.Name], f.rows[fd.Name], f.errs[fd.Name] = ctl, row, msg
		ctl.AddEventListener("input", false, func(dom.Event) { onInput() })
		ctl.AddEventListener("change", false, func(dom.Event) { onInput() })
	}
	return f
}

// value returns the js value of a control.
func (f *form) value(name string) js.Value { return f.controls[name].Underlying() }

// setRaw puts the text of every field into its control.
func (f *form) setRaw(raw config.Raw) {
	for _, fd := range config.Fields {
		v := raw[fd.Name]
		if fd.Control == config.Checkbox {
			f.value(fd.Name).Set("checked", v == "1")
			continue
		}
		if fd.Control == config.Select {
			for _, o := range f.controls[fd.Name].QuerySelectorAll("option[data-unknown]") {
				f.controls[fd.Name].RemoveChild(o)
			}
		}
		if fd.Control == config.Select && !slices.Contains(fd.Choices, v) {
			// Keep an unknown value visible (with its message) rather than
			// silently showing the first option.
			opt := el("option", "", v)
			opt.SetAttribute("value", v)
			opt.SetAttribute("data-unknown", "1")
			f.controls[fd.Name].AppendChild(opt)
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

// showErrors puts each message under its control (and clears the others);
// messages of no shown field go to the general line.
func (f *form) showErrors(d config.Demo, errs config.Errors) {
	general := ""
	for _, fd := range config.Fields {
		msg := errs[fd.Name]
		if msg != "" && !fd.Shown(d) {
			general += fd.Name + ": " + msg + " "
			msg = ""
		}
		f.errs[fd.Name].SetTextContent(msg)
		if msg != "" {
			f.controls[fd.Name].SetAttribute("aria-invalid", "true")
			f.rows[fd.Name].Class().Add("invalid")
		} else {
			f.controls[fd.Name].RemoveAttribute("aria-invalid")
			f.rows[fd.Name].Class().Remove("invalid")
		}
	}
	if msg := errs[""]; msg != "" {
		general += msg
	}
	if msg := errs["demo"]; msg != "" {
		general += msg
	}
	f.general.SetTextContent(general)
	show(f.general, general != "")
}

// setDemo shows the controls of demo d and hides the others.
func (f *form) setDemo(d config.Demo) {
	for _, fd := range config.Fields {
		show(f.rows[fd.Name], fd.Shown(d))
	}
}

// lock disables every control while training; with compare on, the loss
// and head selects are disabled too (every loss, or both heads, run).
func (f *form) lock(training bool) {
	compare := f.value("compare").Get("checked").Bool()
	for name, c := range f.controls {
		enable(c, !training && !((name == "loss" || name == "head") && compare))
	}
}
