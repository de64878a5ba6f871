package page

import (
	"strings"

	"github.com/deeplda/deeplda/wasm/config"
)

// FormHTML returns the settings form's rows as HTML, those of the basic
// fields and those of the advanced ones: each config.Field a row
// (div.field with data-field, its name) holding its control (#f-<name>,
// named name), its label and the message under it (#e-<name>, role
// alert); a checkbox comes before its label. Number fields are text
// inputs, not number ones: a number input would silently turn "abc" into
// "", and the message must quote what was typed.
func FormHTML() (basic, advanced string) {
	var b, adv strings.Builder
	for _, fd := range config.Fields {
		w := &b
		if fd.Advanced {
			w = &adv
		}
		writeField(w, fd)
	}
	return b.String(), adv.String()
}

// writeField writes the row of field fd.
func writeField(b *strings.Builder, fd config.Field) {
	class := "field"
	if fd.Control == config.Checkbox {
		class += " check"
	}
	attrs := ` id="f-` + fd.Name + `" name="` + fd.Name + `" title="` + escaper.Replace(fd.Help) + `" aria-describedby="e-` + fd.Name + `"`
	var ctl string
	switch fd.Control {
	case config.Select:
		ctl = "<select" + attrs + ">"
		for _, o := range fd.Choices {
			o = escaper.Replace(o)
			ctl += `<option value="` + o + `">` + o + "</option>"
		}
		ctl += "</select>"
	case config.Checkbox:
		ctl = `<input type="checkbox"` + attrs + ">"
	default:
		ctl = `<input type="text" spellcheck="false" autocomplete="off"`
		if fd.Control == config.Number {
			mode := "decimal"
			if fd.Step == "1" {
				mode = "numeric"
			}
			ctl += ` inputmode="` + mode + `"`
		}
		ctl += attrs + ">"
	}
	label := `<label for="f-` + fd.Name + `">` + escaper.Replace(fd.Label) + "</label>"
	b.WriteString(`<div class="` + class + `" data-field="` + fd.Name + `">`)
	if fd.Control == config.Checkbox {
		b.WriteString(ctl + label)
	} else {
		b.WriteString(label + ctl)
	}
	b.WriteString(`<p class="field-error" id="e-` + fd.Name + `" role="alert"></p></div>`)
}

// FieldErrors places the messages errs of demo d: each field's under its
// control (by name; "" for a field without one), and in general those of
// no field and of fields d does not show, each after its name.
func FieldErrors(d config.Demo, errs config.Errors) (fields map[string]string, general string) {
	fields = map[string]string{}
	for _, fd := range config.Fields {
		msg := errs[fd.Name]
		if msg != "" && !fd.Shown(d) {
			general += fd.Name + ": " + msg + " "
			msg = ""
		}
		fields[fd.Name] = msg
	}
	return fields, general + errs[""] + errs["demo"]
}

// Editable reports whether the form's control name takes input: none
// while training, and with compare on neither the loss nor the head
// (every loss, or both heads, run).
func Editable(name string, training, compare bool) bool {
	return !training && !((name == "loss" || name == "head") && compare)
}
