package page

import (
	"testing"

	"github.com/deeplda/deeplda/protocol"
)

func TestDataUpdate(t *testing.T) {
	d := &Data{}
	if msg, pick := d.Update(&protocol.DataState{Error: "bad file"}, "fashion-mnist"); msg != "bad file" || pick != "" {
		t.Errorf("an error: %q %q", msg, pick)
	}
	if msg, _ := d.Update(&protocol.DataState{Error: "bad file"}, "fashion-mnist"); msg != "" {
		t.Errorf("the same error again: %q", msg)
	}
	if _, pick := d.Update(&protocol.DataState{Picked: "mnist", From: "a.gz"}, "fashion-mnist"); pick != "mnist" {
		t.Errorf("the files' data set: %q", pick)
	}
	if _, pick := d.Update(&protocol.DataState{Picked: "mnist", From: "a.gz"}, "fashion-mnist"); pick != "" {
		t.Errorf("the same files again: %q", pick)
	}
	if _, pick := d.Update(&protocol.DataState{Picked: "mnist", From: "b.gz"}, "mnist"); pick != "" {
		t.Errorf("files of the form's data set: %q", pick)
	}
	doc := fakeDoc{}
	d.Describe(doc, "mnist")
	if doc.Text("#data-status") == "" || doc.has("#data-box", "data-hosted") {
		t.Errorf("before the probe: %q, hosted %v", doc.Text("#data-status"), doc.has("#data-box", "data-hosted"))
	}
	d.Update(&protocol.DataState{Probed: true}, "mnist")
	d.Describe(doc, "mnist")
	if doc.Attr("#data-box", "data-hosted") != "false" {
		t.Errorf("after the probe of no data: hosted %q", doc.Attr("#data-box", "data-hosted"))
	}
}

func TestIsCheckpoint(t *testing.T) {
	for name, want := range map[string]bool{"a.safetensors": true, "A.SafeTensors": true, "train-images-idx3-ubyte.gz": false, "safetensors.bin": false} {
		if IsCheckpoint(name) != want {
			t.Errorf("IsCheckpoint(%s) = %v", name, !want)
		}
	}
}
