package page

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// fakeDoc is a Doc of elements by selector, each selector its own
// element.
type fakeDoc map[string]*fakeEl

// fakeEl is an element of a fakeDoc.
type fakeEl struct {
	text, value string
	html        string
	checked     bool
	attrs       map[string]string
	classes     map[string]bool
	appended    []string
}

func (d fakeDoc) el(sel string) *fakeEl {
	if d[sel] == nil {
		d[sel] = &fakeEl{attrs: map[string]string{}, classes: map[string]bool{}}
	}
	return d[sel]
}

func (d fakeDoc) SetText(sel, text string)            { d.el(sel).text = text }
func (d fakeDoc) Text(sel string) string              { return d.el(sel).text }
func (d fakeDoc) SetHTML(sel, html string)            { d.el(sel).html = html }
func (d fakeDoc) SetAttr(sel, name, v string)         { d.el(sel).attrs[name] = v }
func (d fakeDoc) RemoveAttr(sel, name string)         { delete(d.el(sel).attrs, name) }
func (d fakeDoc) Attr(sel, name string) string        { return d.el(sel).attrs[name] }
func (d fakeDoc) SetClass(sel, class string, on bool) { d.el(sel).classes[class] = on }
func (d fakeDoc) HasClass(sel, class string) bool     { return d.el(sel).classes[class] }
func (d fakeDoc) Value(sel string) string             { return d.el(sel).value }
func (d fakeDoc) SetValue(sel, v string)              { d.el(sel).value = v }
func (d fakeDoc) Checked(sel string) bool             { return d.el(sel).checked }
func (d fakeDoc) SetChecked(sel string, on bool)      { d.el(sel).checked = on }
func (d fakeDoc) Append(sel, html string)             { d.el(sel).appended = append(d.el(sel).appended, html) }
func (d fakeDoc) Remove(sel string)                   { delete(d, sel) }

// has reports whether sel's element has attribute name.
func (d fakeDoc) has(sel, name string) bool {
	_, ok := d.el(sel).attrs[name]
	return ok
}

func TestTrainingIdle(t *testing.T) {
	d := fakeDoc{}
	d.el("#f-compare").checked = true
	SetTraining(d)
	if State(d) != "training" || !d.has("#train", "disabled") || d.has("#stop", "disabled") || !d.has("#resume", "hidden") || d.has("#progress", "hidden") ||
		!d.has("#f-epochs", "disabled") || !d.HasClass("#tabs a", "disabled") || d.Text("#progress-text") != "Starting…" || d.Attr("#bar", "style") != "width: 0.0%;" {
		t.Errorf("training: %v", d)
	}
	SetIdle(d, true, true)
	if d.has("#train", "disabled") || !d.has("#stop", "disabled") || d.has("#resume", "hidden") || d.has("#resume", "disabled") ||
		d.has("#f-epochs", "disabled") || !d.has("#f-loss", "disabled") || d.HasClass("#tabs a", "disabled") {
		t.Errorf("idle, resumable, compare on: %v", d)
	}
	SetIdle(d, false, false)
	if !d.has("#train", "disabled") || !d.has("#resume", "hidden") {
		t.Error("idle on a demo that does not train: Train or Resume")
	}
	SetProgress(d, 1.5)
	if d.Attr("#bar", "style") != "width: 100.0%;" || d.Attr("#progress", "aria-valuenow") != "100" {
		t.Errorf("progress past the end: %s", d.Attr("#bar", "style"))
	}
}

func TestNotices(t *testing.T) {
	d := fakeDoc{}
	be := &protocol.Backend{Info: kernels.Info{Name: "cpu"}, Why: "no WebGPU"}
	ShowBackend(d, be)
	if d.Attr("#backend", "data-backend") != "cpu" || d.Text("#notice") != "no WebGPU" || d.has("#notice", "hidden") {
		t.Errorf("backend with a reason: %v", d)
	}
	ShowError(d, "broken")
	ShowBackend(d, &protocol.Backend{Info: kernels.Info{Name: "webgpu"}})
	if d.Text("#notice") != "broken" || d.has("#notice", "hidden") {
		t.Error("the backend hid an error")
	}
	HideError(d)
	if !d.has("#notice", "hidden") || d.HasClass("#notice", "error") {
		t.Error("the error stays")
	}
}

func TestSetDemo(t *testing.T) {
	d := fakeDoc{}
	SetDemo(d, config.Images, false)
	if !d.HasClass(`#tabs a[data-demo="images"]`, "active") || d.Attr(`#tabs a[data-demo="images"]`, "aria-current") != "page" ||
		d.has("#data-box", "hidden") || d.has("#hint", "hidden") || d.has(row("data"), "hidden") {
		t.Errorf("images: %v", d)
	}
	for _, fd := range config.Fields {
		if d.has(row(fd.Name), "hidden") == fd.Shown(config.Images) {
			t.Errorf("images: field %s hidden %v", fd.Name, d.has(row(fd.Name), "hidden"))
		}
	}
	if !strings.HasPrefix(d.Text("title"), config.Info(config.Images).Title) || d.HasClass("#layout", "wide") {
		t.Errorf("title %q", d.Text("title"))
	}
	SetDemo(d, config.Deep, true)
	if !d.has("#data-box", "hidden") || !d.has("#hint", "hidden") || !d.has(row("data"), "hidden") {
		t.Errorf("deep with a session: %v", d)
	}
}

func TestFormControls(t *testing.T) {
	d := fakeDoc{}
	raw := config.Defaults(config.Deep).Raw()
	raw["loss"] = "bogus"
	SetForm(d, raw)
	if got := Form(d); got["epochs"] != raw["epochs"] || got["compare"] != raw["compare"] || got["loss"] != "bogus" {
		t.Errorf("Form after SetForm: %v, want %v", got, raw)
	}
	if a := d.el("#f-loss").appended; len(a) != 1 || a[0] != `<option value="bogus" data-unknown="1">bogus</option>` {
		t.Errorf("the unknown loss: %v", a)
	}
	SetFormErrors(d, config.Deep, config.Errors{"epochs": "too many", "data": "unknown"})
	if d.Text("#e-epochs") != "too many" || d.Attr("#f-epochs", "aria-invalid") != "true" || !d.HasClass(row("epochs"), "invalid") ||
		d.Text("#e-data") != "" || d.Text("#form-error") != "data: unknown " || d.has("#form-error", "hidden") {
		t.Errorf("errors: %v", d)
	}
	SetFormErrors(d, config.Deep, nil)
	if d.has("#f-epochs", "aria-invalid") || d.HasClass(row("epochs"), "invalid") || !d.has("#form-error", "hidden") {
		t.Error("the errors stay")
	}
}

func TestShowStatus(t *testing.T) {
	d := fakeDoc{}
	ShowBefore(d, Status{Marks: map[string]string{"data-lost-step": "3"}, Gone: true, DataError: "no data", Progress: -1})
	if d.Attr("body", "data-lost-step") != "3" || d.Text("#e-files") != "no data" {
		t.Errorf("before: %v", d)
	}
	ClearMoveMarks(d)
	if d.has("body", "data-lost-step") {
		t.Error("a move mark stays")
	}
	d.SetText("#progress-text", "kept")
	ShowAfter(d, Status{Progress: -1})
	if d.has("#bar", "style") || d.Text("#progress-text") != "kept" || d.Text("#notice") != "" {
		t.Errorf("an empty status changed the page: %v", d)
	}
	ShowAfter(d, Status{Progress: 0.5, Text: text("half"), Error: "broke"})
	if d.Attr("#bar", "style") != "width: 50.0%;" || d.Text("#progress-text") != "half" || d.Text("#notice") != "broke" || !d.HasClass("#notice", "error") {
		t.Errorf("after: %v", d)
	}
}
