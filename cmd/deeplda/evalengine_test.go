package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/engine/enginetest"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/protocol"
)

// TestEvalMatchesEngine evaluates the golden Fashion-MNIST checkpoint with
// deeplda eval -ood mnist and opens it in the engine, as the page does, on
// a site that hosts both data sets: dropped as a file, then as a hosted
// model. Both go through experiment.EvaluateImages, so the test split, the
// head and the out-of-distribution scores of the three reports are the
// same, bit for bit. The hosted model's report keeps the training time and
// history its report.json recorded; the dropped file has none.
func TestEvalMatchesEngine(t *testing.T) {
	datasets := sharedtest.Dir(t, "datasets")
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out, _ := evalGolden(t, ckpt, "-ood", "mnist", "-ood-datadir", filepath.Join(datasets, "mnist"), "-limit-test", "64", "-batch", "64")
	want := readReport(t, out)
	for _, key := range []string{"test", "head", "ood"} {
		if want[key] == nil {
			t.Fatalf("deeplda eval's report has no %s", key)
		}
	}

	// The site: both data sets, and the checkpoint as the hosted model
	// "golden" with a report.json of one epoch's history.
	site := t.TempDir()
	index := map[string][]string{}
	for _, name := range []string{"fashion-mnist", "mnist"} {
		spec, err := images.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		index[name] = spec.Files()
		dir := filepath.Join(site, "site", "data", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range spec.Files() {
			if err := os.Symlink(filepath.Join(datasets, name, f), filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeJSON(t, filepath.Join(site, "site", "data", "index.json"), index)
	b, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(site, "site", "models", "golden")
	if err := os.MkdirAll(model, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(model, experiment.CheckpointFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(model, experiment.ModelReportFile), map[string]any{
		"history": []map[string]any{{"epoch": 1, "test_accuracy": 0.5, "seconds": 12.5}}, "seconds": 12.5})
	writeJSON(t, filepath.Join(site, "site", "models", experiment.ModelsIndex), []experiment.ModelInfo{{Name: "golden", Data: "fashion-mnist", Head: "lda"}})

	h := enginetest.New(site)
	e := engine.New(h)
	e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: experiment.BackendCPU}}, nil)
	h.Wait(t, 0, protocol.EvReady)
	c := experiment.DefaultImages()
	c.LimitTest, c.Batch = 64, 64
	open := func(session int, o protocol.Open, files []engine.File) map[string]any {
		t.Helper()
		from := h.Len()
		e.Handle(protocol.Command{Kind: protocol.CmdOpen, Session: session, Open: &o,
			Start: &protocol.Start{Jobs: []protocol.Job{{Label: "golden", Image: &c}}, Backend: experiment.BackendCPU}}, files)
		evs, last := h.Wait(t, from, protocol.EvOpened, protocol.EvOpenFailed)
		if last.Kind != protocol.EvOpened {
			t.Fatalf("open %+v: %s", o, last.Error)
		}
		var rep map[string]any
		for _, ev := range evs {
			if ev.Kind == protocol.EvRun && ev.RunState.Report != nil {
				rep = nil
				if err := json.Unmarshal(ev.RunState.Report, &rep); err != nil {
					t.Fatal(err)
				}
			}
		}
		if rep == nil {
			t.Fatalf("open %+v: no report", o)
		}
		for _, key := range []string{"kind", "test", "head", "ood"} {
			if !reflect.DeepEqual(rep[key], want[key]) {
				g, _ := json.Marshal(rep[key])
				w, _ := json.Marshal(want[key])
				t.Errorf("open %+v: the engine's %s differs from deeplda eval's:\n got %.600s\nwant %.600s", o, key, g, w)
			}
		}
		return rep
	}
	rows := func(rep map[string]any) int { h, _ := rep["history"].([]any); return len(h) }
	dropped := open(1, protocol.Open{File: "golden.safetensors"}, []engine.File{{Name: "golden.safetensors", Read: func() ([]byte, error) { return b, nil }}})
	if s, n := dropped["seconds"], rows(dropped); s != 0.0 || n != 0 {
		t.Errorf("the dropped checkpoint's report: seconds %v, %d history rows; want 0 and none (nothing recorded its training)", s, n)
	}
	hosted := open(2, protocol.Open{Hosted: []string{"golden"}}, nil)
	if s, n := hosted["seconds"], rows(hosted); s != 12.5 || n != 1 {
		t.Errorf("the hosted model's report: seconds %v, %d history rows; want its report.json's 12.5 and 1", s, n)
	}
}

// writeJSON writes v as JSON to path.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
