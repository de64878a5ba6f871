package page

import (
	"fmt"
	"slices"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file is what the page's controls show (index.html's elements and
// the form's, page.FormHTML), written through a Doc.

// SetState publishes the automation state on the body's data-state:
// idle, training, done or error.
func SetState(d Doc, state string) { d.SetAttr("body", "data-state", state) }

// State returns the automation state.
func State(d Doc) string { return d.Attr("body", "data-state") }

// SetProgress sets the bar to fraction f of the session.
func SetProgress(d Doc, f float64) {
	f = min(max(f, 0), 1)
	d.SetAttr("#bar", "style", fmt.Sprintf("width: %.1f%%;", 100*f))
	d.SetAttr("#progress", "aria-valuenow", fmt.Sprintf("%.0f", 100*f))
}

// SetProgressText sets the line under the bar.
func SetProgressText(d Doc, s string) { d.SetText("#progress-text", s) }

// ShowBackend names the backend in the header (#backend) and shows why
// WebGPU is not used, if it is not, in the notice bar (unless it shows an
// error).
func ShowBackend(d Doc, be *protocol.Backend) {
	d.SetText("#backend", Badge(be))
	d.SetAttr("#backend", "title", BadgeTitle(be))
	d.SetAttr("#backend", "data-backend", be.Info.Name)
	if be.Why != "" {
		d.SetText("#notice", be.Why)
		d.SetClass("#notice", "error", false)
		Show(d, "#notice", true)
	} else if !d.HasClass("#notice", "error") {
		Show(d, "#notice", false)
	}
}

// ShowError shows an error in the notice bar.
func ShowError(d Doc, msg string) {
	d.SetText("#notice", msg)
	d.SetClass("#notice", "error", true)
	Show(d, "#notice", true)
}

// HideError hides the notice bar if it shows an error.
func HideError(d Doc) {
	if d.HasClass("#notice", "error") {
		d.SetClass("#notice", "error", false)
		Show(d, "#notice", false)
	}
}

// SetTraining switches the controls to the training state.
func SetTraining(d Doc) {
	SetState(d, "training")
	LockForm(d, true)
	Enable(d, "#f-files", false)
	Enable(d, "#train", false)
	Enable(d, "#stop", true)
	Show(d, "#resume", false)
	Show(d, "#progress", true)
	d.SetClass("#tabs a", "disabled", true)
	SetProgress(d, 0)
	SetProgressText(d, "Starting…")
}

// SetIdle switches the controls back: Train where the demo trains
// (trainable) and the engine is ready; resumable shows Resume.
func SetIdle(d Doc, trainable, resumable bool) {
	LockForm(d, false)
	Enable(d, "#f-files", true)
	Enable(d, "#train", trainable)
	Enable(d, "#stop", false)
	Show(d, "#resume", resumable)
	Enable(d, "#resume", resumable)
	d.SetClass("#tabs a", "disabled", false)
}

// SetDemo shows demo d: its tab, title, introduction and controls; the
// hint before training shows while no session is (shown).
func SetDemo(d Doc, demo config.Demo, shown bool) {
	info := config.Info(demo)
	d.SetClass("#tabs a", "active", false)
	d.RemoveAttr("#tabs a", "aria-current")
	tab := `#tabs a[data-demo="` + string(demo) + `"]`
	d.SetClass(tab, "active", true)
	d.SetAttr(tab, "aria-current", "page")
	d.SetText("#demo-title", info.Title)
	d.SetText("#demo-intro", info.Intro)
	Show(d, "#later", !info.Trainable)
	Show(d, "#hint", info.Trainable && !shown)
	Show(d, "#form", info.Trainable)
	Show(d, "#controls", info.Trainable)
	Show(d, "#data-box", demo == config.Images)
	d.SetClass("#layout", "wide", !info.Trainable)
	for _, fd := range config.Fields {
		Show(d, row(fd.Name), fd.Shown(demo))
	}
	d.SetText("title", info.Title+" · Deep LDA with DNLL")
}

// row selects the form's row of field name.
func row(name string) string {
	return `#fields [data-field="` + name + `"], #fields-advanced [data-field="` + name + `"]`
}

// LockForm disables every control of the form while training (Editable).
func LockForm(d Doc, training bool) {
	compare := d.Checked("#f-compare")
	for _, fd := range config.Fields {
		Enable(d, "#f-"+fd.Name, Editable(fd.Name, training, compare))
	}
}

// SetFormErrors puts the messages errs of demo d where FieldErrors
// places them.
func SetFormErrors(d Doc, demo config.Demo, errs config.Errors) {
	fields, general := FieldErrors(demo, errs)
	for _, fd := range config.Fields {
		msg := fields[fd.Name]
		d.SetText("#e-"+fd.Name, msg)
		if msg != "" {
			d.SetAttr("#f-"+fd.Name, "aria-invalid", "true")
		} else {
			d.RemoveAttr("#f-"+fd.Name, "aria-invalid")
		}
		d.SetClass(row(fd.Name), "invalid", msg != "")
	}
	d.SetText("#form-error", general)
	Show(d, "#form-error", general != "")
}

// SetForm puts the text of every field of raw into its control; a select
// keeps a value it does not offer visible (an option marked
// data-unknown, with its message) rather than silently showing its
// first.
func SetForm(d Doc, raw config.Raw) {
	for _, fd := range config.Fields {
		sel, v := "#f-"+fd.Name, raw[fd.Name]
		switch fd.Control {
		case config.Checkbox:
			d.SetChecked(sel, v == "1")
			continue
		case config.Select:
			d.Remove(sel + " option[data-unknown]")
			if !slices.Contains(fd.Choices, v) {
				v := escaper.Replace(v)
				d.Append(sel, `<option value="`+v+`" data-unknown="1">`+v+"</option>")
			}
		}
		d.SetValue(sel, v)
	}
}

// Form returns the text of every field.
func Form(d Doc) config.Raw {
	r := config.Raw{}
	for _, fd := range config.Fields {
		sel := "#f-" + fd.Name
		if fd.Control != config.Checkbox {
			r[fd.Name] = d.Value(sel)
		} else if d.Checked(sel) {
			r[fd.Name] = "1"
		} else {
			r[fd.Name] = "0"
		}
	}
	return r
}

// ShowBefore writes what status st changes before the results are drawn:
// the backend and the body's marks.
func ShowBefore(d Doc, st Status) {
	if st.Backend != nil {
		ShowBackend(d, st.Backend)
	}
	for k, v := range st.Marks {
		d.SetAttr("body", k, v)
	}
	if st.Gone {
		d.SetText("#e-files", st.DataError)
	}
}

// ShowAfter writes what status st changes after the results are drawn:
// the error, the bar and its line.
func ShowAfter(d Doc, st Status) {
	if st.Error != "" {
		ShowError(d, st.Error)
	}
	if st.Progress >= 0 {
		SetProgress(d, st.Progress)
	}
	if st.Text != nil {
		SetProgressText(d, *st.Text)
	}
}

// ClearMoveMarks removes the MoveMarks of an earlier session.
func ClearMoveMarks(d Doc) {
	for _, m := range MoveMarks {
		d.RemoveAttr("body", m)
	}
}
