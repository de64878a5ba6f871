package config

import (
	"slices"

	"github.com/deeplda/deeplda/experiment"
)

// Control is the kind of form control of a field.
type Control int

// Control kinds.
const (
	Select Control = iota
	Number
	Text
	Checkbox
)

// Field is one setting of experiment.Settings as the page shows it: its
// name is the query key and the control's name.
type Field struct {
	experiment.Setting
	Control Control
	// Step is the number input's step attribute ("any" for reals).
	Step string
}

// Fields lists the page's settings (those of experiment.Settings that a
// demo shows) in the order of the form.
var Fields = pageFields()

// pageFields makes the page's fields from the settings table.
func pageFields() []Field {
	var out []Field
	for _, s := range experiment.Settings {
		if s.Demos == nil {
			continue
		}
		f := Field{Setting: s}
		switch s.Kind {
		case experiment.KindChoice:
			f.Control = Select
		case experiment.KindBool:
			f.Control = Checkbox
		case experiment.KindInt, experiment.KindUint:
			f.Control, f.Step = Number, "1"
		case experiment.KindFloat:
			f.Control, f.Step = Number, "any"
		default:
			f.Control = Text
		}
		out = append(out, f)
	}
	return out
}

// Shown reports whether f's control appears in demo d.
func (f Field) Shown(d Demo) bool {
	return Info(d).Trainable && slices.Contains(f.Demos, string(d))
}
