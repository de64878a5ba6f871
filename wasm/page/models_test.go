package page

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// siteModels are two hosted models of one data set, one a head.
var siteModels = []experiment.ModelInfo{
	{Name: "fmnist-lda", Data: "fashion-mnist", Head: "lda", Loss: "dnll", Epochs: 1},
	{Name: "fmnist-softmax", Data: "fashion-mnist", Head: "softmax", Loss: "ce", Epochs: 2},
}

func TestModelOptionsHTML(t *testing.T) {
	if got, want := ModelOptionsHTML(nil), `<option value="">this site hosts no trained models</option>`; got != want {
		t.Errorf("no models: %s, want %s", got, want)
	}
	got := ModelOptionsHTML(siteModels)
	if strings.Count(got, "<option") != 2 || !strings.HasPrefix(got, `<option value="fmnist-lda">fmnist-lda: fashion-mnist, lda head, dnll, 1 epoch;`) {
		t.Errorf("options: %s", got)
	}
}

func TestModelsOpenHosted(t *testing.T) {
	m := &Models{Index: siteModels}
	o, data, msg := m.OpenHosted("fmnist-lda", true)
	if want := []string{"fmnist-lda", "fmnist-softmax"}; o == nil || !reflect.DeepEqual(o.Hosted, want) || data != "fashion-mnist" || msg != "" {
		t.Errorf("compare: %+v %q %q", o, data, msg)
	}
	if o, _, _ := m.OpenHosted("fmnist-softmax", false); !reflect.DeepEqual(o.Hosted, []string{"fmnist-softmax"}) {
		t.Errorf("one: %v", o.Hosted)
	}
	if o, _, msg := m.OpenHosted("nope", false); o != nil || !strings.Contains(msg, "model=nope") {
		t.Errorf("unknown: %v %q", o, msg)
	}
}

func TestOpenSettings(t *testing.T) {
	raw := config.Defaults(config.Images).Raw()
	s, errs := OpenSettings(raw, "mnist", &protocol.Open{Hosted: []string{"a", "b"}})
	if len(errs) > 0 || !s.Compare || s.Image.Data != "mnist" {
		t.Errorf("two: %+v %v", s, errs)
	}
	s, errs = OpenSettings(config.Defaults(config.Images).Raw(), "", &protocol.Open{File: "x.safetensors"})
	if len(errs) > 0 || s.Compare || s.Image.Data != config.DefaultImage().Data {
		t.Errorf("a file: %+v %v", s, errs)
	}
}

func TestModelsOpening(t *testing.T) {
	m := &Models{Index: siteModels}
	if _, _, ok := m.Fail(); ok {
		t.Error("a failure without an opening")
	}
	prev, s, other := &Session{ID: 1}, &Session{ID: 2, Settings: config.Defaults(config.Images)}, &Session{ID: 3}
	m.Begin(s, prev, "done")
	if m.Opening() != s {
		t.Error("Opening is not the session begun")
	}
	if back, st, ok := m.Fail(); !ok || back != prev || st != "done" || m.Opening() != nil {
		t.Errorf("Fail = %v %q %v", back, st, ok)
	}
	m.Begin(s, prev, "idle")
	if m.Opened(other, &protocol.Opened{}) {
		t.Error("another session's models were taken")
	}
	if !m.Opened(s, &protocol.Opened{Hosted: "fmnist-lda", Continuable: true}) || m.Shown != s || m.Hosted != "fmnist-lda" || m.Data != s.Settings.Image.Data {
		t.Errorf("opened: %+v", m)
	}
	if _, _, ok := m.Continue(other, config.Defaults(config.Images).Raw()); ok {
		t.Error("continues a session that is not the opened model's")
	}
	raw := config.Defaults(config.Images).Raw()
	raw["data"], raw["compare"] = "mnist", "1"
	c, errs, ok := m.Continue(s, raw)
	if !ok || len(errs) > 0 || c.Compare || c.Image.Data != s.Settings.Image.Data {
		t.Errorf("Continue = %+v %v %v", c, errs, ok)
	}
	m.Forget()
	if m.Shown != nil || m.Hosted != "" {
		t.Errorf("forgotten: %+v", m)
	}
	if _, _, ok := m.Continue(s, raw); ok {
		t.Error("continues a forgotten model")
	}
}

func TestModelsPanel(t *testing.T) {
	d := fakeDoc{}
	m := &Models{}
	m.SetIndex(d, nil)
	if !d.has("#f-model", "disabled") || !d.has("#open-model", "disabled") || !d.has("#open-both", "disabled") || !strings.HasPrefix(d.Text("#model-status"), "Drop a checkpoint") {
		t.Errorf("no models: %v", d)
	}
	m.SetIndex(d, siteModels)
	d.SetValue("#f-model", "fmnist-lda")
	m.Describe(d)
	if d.has("#f-model", "disabled") || d.has("#open-model", "disabled") || d.has("#open-both", "disabled") || !strings.Contains(d.Text("#model-status"), "fmnist-softmax") {
		t.Errorf("two models: %v %q", d, d.Text("#model-status"))
	}
	if d.el("#f-model").html != ModelOptionsHTML(siteModels) {
		t.Error("the select does not list the models")
	}
}
