package experiment

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/report"
)

// TestResumeFileContinuesTheRun trains a toy run and an image run for 2
// epochs, saves their resume files, resumes each in a fresh run of 4
// epochs on another backend and trains to the end: the weights, the
// optimizer's state and the history (but for its timings) must equal those
// of an uninterrupted 4-epoch run bit for bit.
func TestResumeFileContinuesTheRun(t *testing.T) {
	synth := DefaultSynth()
	synth.Train, synth.Test = 1000, 200
	img := DefaultImages()
	img.Batch, img.LimitTrain, img.LimitTest, img.Val, img.EvalBatch = 16, 48, 16, 0, 16
	data := fakeImages(48, 16, 3)
	for _, tc := range []struct {
		name string
		new  func(epochs int) (*Run, error)
	}{
		{"synth", func(epochs int) (*Run, error) {
			c := synth
			c.Epochs = epochs
			return NewSynth(cpu.New(), c)
		}},
		{"images", func(epochs int) (*Run, error) {
			c := img
			c.Epochs = epochs
			r, err := NewImagesFrom(cpu.New(), c, data)
			if err != nil {
				return nil, err
			}
			return r.Run, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func(epochs int) *Run {
				r, err := tc.new(epochs)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			toEnd := func(r *Run) {
				for !r.Done() {
					if err := r.Epoch(context.Background(), nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			straight := mk(4)
			toEnd(straight)
			first := mk(2)
			toEnd(first)
			path := filepath.Join(t.TempDir(), ResumeFile)
			if _, err := first.SaveEpoch(filepath.Join(t.TempDir(), "checkpoint.safetensors"), path); err != nil {
				t.Fatal(err)
			}
			resumed := mk(4)
			if err := resumed.Resume(path); err != nil {
				t.Fatal(err)
			}
			if resumed.Trainer.Epoch() != 2 || len(resumed.Report.History) != 2 {
				t.Fatalf("resumed at epoch %d with %d epochs of history, want 2", resumed.Trainer.Epoch(), len(resumed.Report.History))
			}
			toEnd(resumed)
			a, err := straight.Model.TrainingState()
			if err != nil {
				t.Fatal(err)
			}
			b, err := resumed.Model.TrainingState()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range a.Names() {
				if !slices.Equal(a.Tensors[n].F32, b.Tensors[n].F32) || !slices.Equal(a.Tensors[n].I32, b.Tensors[n].I32) {
					t.Errorf("%s differs from the uninterrupted run's", n)
				}
			}
			want, got := straight.Report.History, resumed.Report.History
			if len(got) != len(want) {
				t.Fatalf("%d epochs of history, want %d", len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				w.Seconds, g.Seconds = 0, 0
				if !sameEpoch(w, g) {
					t.Errorf("epoch %d: %+v, want %+v", i+1, g, w)
				}
			}
		})
	}
}

// TestResumeChecksTheRun refuses to resume another run's state and leaves
// the run as it was.
func TestResumeChecksTheRun(t *testing.T) {
	c := DefaultSynth()
	c.Epochs, c.Train, c.Test = 3, 500, 100
	r, err := NewSynth(cpu.New(), c)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := r.Epoch(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), ResumeFile)
	if _, err := r.SaveEpoch(filepath.Join(t.TempDir(), "checkpoint.safetensors"), path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*SynthConfig)
		want   string
	}{
		{func(c *SynthConfig) { c.Lambda = 0.1 }, "lambda 0.01, not 0.1"},
		{func(c *SynthConfig) { c.Epochs = 1 }, "has trained 2 epochs; resuming it with fewer (1)"},
		{func(c *SynthConfig) { c.Train = 400 }, "train 500, not 400"},
	} {
		other := c
		tc.change(&other)
		fresh, err := NewSynth(cpu.New(), other)
		if err != nil {
			t.Fatal(err)
		}
		if err := fresh.Resume(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to mention %q", err, tc.want)
		}
		if fresh.Trainer.Epoch() != 0 || len(fresh.Report.History) != 0 {
			t.Errorf("a failed resume moved the run to epoch %d", fresh.Trainer.Epoch())
		}
	}
	if err := r.Resume(filepath.Join(t.TempDir(), "absent.safetensors")); err == nil {
		t.Error("resumed from a file that does not exist")
	}
	// As many epochs as were trained: the run is done and only finishes.
	stop := c
	stop.Epochs = 2
	early, err := NewSynth(cpu.New(), stop)
	if err != nil {
		t.Fatal(err)
	}
	if err := early.Resume(path); err != nil || !early.Done() || len(early.Report.History) != 2 {
		t.Errorf("resuming with the epochs trained: %v, done %v, %d epochs of history; want done at 2", err, early.Done(), len(early.Report.History))
	}
}

// sameEpoch compares two history rows, pointers by value.
func sameEpoch(a, b report.Epoch) bool {
	eq := func(x, y *report.Float) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Epoch == b.Epoch && a.Loss == b.Loss && a.TrainAccuracy == b.TrainAccuracy && a.TestAccuracy == b.TestAccuracy &&
		a.TestECE == b.TestECE && eq(a.LogDetCov, b.LogDetCov) && eq(a.Sigma, b.Sigma)
}

// TestSameConfigOlderRun checks that a run saved before a setting existed
// resumes with that setting at its zero value, and only then: its saved
// configuration lacks the key.
func TestSameConfigOlderRun(t *testing.T) {
	c := DefaultImages()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	delete(saved, "limit_train") // 0 in c: as if limit-train were newer than the run
	delete(saved, "val")         // 5000 in c
	old, _ := json.Marshal(saved)
	err = sameConfig(string(old), c)
	if err == nil || !strings.Contains(err.Error(), "the run was trained with val none, not 5000") {
		t.Errorf("val missing from the saved run: %v", err)
	}
	c.Val = 0
	if err := sameConfig(string(old), c); err != nil {
		t.Errorf("limit_train and val missing from the saved run, 0 now: %v", err)
	}
}
