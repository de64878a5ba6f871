package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/model"
)

// TestKinds: every head and encoder parses back from its String, JSON
// spells them as before they were typed, and a bad name is an error that
// lists the good ones.
func TestKinds(t *testing.T) {
	for _, h := range []model.HeadKind{model.HeadLDA, model.HeadSoftmax} {
		if got, err := model.ParseHead(h.String()); err != nil || got != h {
			t.Errorf("ParseHead(%q) = %v, %v", h, got, err)
		}
	}
	for _, e := range []model.EncoderKind{model.EncoderNone, model.EncoderMLP, model.EncoderConvNet} {
		if got, err := model.ParseEncoder(e.String()); err != nil || got != e {
			t.Errorf("ParseEncoder(%q) = %v, %v", e, got, err)
		}
	}
	b, err := json.Marshal(model.Spec{Encoder: model.EncoderConvNet, Head: model.HeadSoftmax})
	if err != nil || !strings.Contains(string(b), `"Encoder":"convnet"`) || !strings.Contains(string(b), `"Head":"softmax"`) {
		t.Errorf("JSON %s, %v", b, err)
	}
	var s model.Spec
	if err := json.Unmarshal([]byte(`{"Encoder":"mlp","Head":"lda"}`), &s); err != nil || s.Encoder != model.EncoderMLP || s.Head != model.HeadLDA {
		t.Errorf("read back %+v, %v", s, err)
	}
	if _, err := model.ParseHead("gaussian"); err == nil || !strings.Contains(err.Error(), `unknown head "gaussian" (want lda or softmax)`) {
		t.Errorf("bad head: %v", err)
	}
	if _, err := model.ParseEncoder("resnet"); err == nil || !strings.Contains(err.Error(), "want none, mlp or convnet") {
		t.Errorf("bad encoder: %v", err)
	}
	if _, err := json.Marshal(model.Spec{}); err == nil {
		t.Error("a spec with no head or encoder marshals")
	}
}
