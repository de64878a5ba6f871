package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// driverConfig is a toy run of 4 epochs of 10 steps.
func driverConfig() SynthConfig {
	c := DefaultSynth()
	c.Train, c.Test, c.Batch, c.Epochs = 1000, 200, 100, 4
	return c
}

// cancelAt returns a progress callback that cancels at the given step of
// the given epoch.
func cancelAt(cancel context.CancelFunc, epoch, step int) func(train.Progress) {
	return func(p train.Progress) {
		if p.Epoch == epoch && p.Step == step {
			cancel()
		}
	}
}

// newDriverRun returns a fresh toy run that reports every step.
func newDriverRun(t *testing.T) *Run {
	t.Helper()
	r, err := NewSynth(cpu.New(), driverConfig())
	if err != nil {
		t.Fatal(err)
	}
	r.Trainer.Cfg.ReportEvery = 1
	return r
}

// TestDriverStopReportsTheCheckpoint cancels a saved run in the middle of
// its third epoch: the run must go back to epoch 2, what the checkpoint
// holds, and its report (written, status stopped) must describe that
// model: its test evaluation is the checkpoint's, its history and its
// training time and examples those of two epochs.
func TestDriverStopReportsTheCheckpoint(t *testing.T) {
	dir := t.TempDir()
	r := newDriverRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopping := 0
	d := Driver{Dir: dir, Save: true, Figures: true, Progress: cancelAt(cancel, 3, 5), Stopping: func() { stopping++ }}
	if err := d.Drive(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drive: %v, want context.Canceled", err)
	}
	if stopping != 1 || r.Trainer.Epoch() != 2 || r.Trainer.Seen() != 2*r.TrainSet.Len() {
		t.Errorf("Stopping called %d times; trainer at epoch %d having seen %d examples; want 1, 2 and %d", stopping, r.Trainer.Epoch(), r.Trainer.Seen(), 2*r.TrainSet.Len())
	}
	var rep report.Report
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "stopped" || len(rep.History) != 2 || rep.Seconds != rep.History[1].Seconds {
		t.Errorf("report: status %q, %d epochs of history, %v s (epoch 2 ended at %v s)", rep.Status, len(rep.History), rep.Seconds, rep.History[1].Seconds)
	}
	if _, err := os.Stat(filepath.Join(dir, "embedding.svg")); err != nil {
		t.Errorf("no figures: %v", err)
	}
	// The checkpoint, evaluated on its own, gives the report's numbers.
	ck := newDriverRun(t)
	if err := ck.Model.LoadCheckpoint(filepath.Join(dir, CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	if err := ck.Finish(); err != nil {
		t.Fatal(err)
	}
	if ck.Report.Test.NLL != rep.Test.NLL || ck.Report.Test.Accuracy != rep.Test.Accuracy || ck.Report.Train.NLL != rep.Train.NLL {
		t.Errorf("report: test NLL %v, accuracy %v, train NLL %v; the checkpoint gives %v, %v, %v",
			rep.Test.NLL, rep.Test.Accuracy, rep.Train.NLL, ck.Report.Test.NLL, ck.Report.Test.Accuracy, ck.Report.Train.NLL)
	}
}

// TestDriverWithoutSaveContinues cancels a run that is not saved (the
// page's): it stays at the step where it stopped, and driving it again
// ends it as a run that was never stopped.
func TestDriverWithoutSaveContinues(t *testing.T) {
	straight := newDriverRun(t)
	if err := (Driver{}).Drive(context.Background(), straight); err != nil {
		t.Fatal(err)
	}
	r := newDriverRun(t)
	ctx, cancel := context.WithCancel(context.Background())
	epochs := 0
	d := Driver{Progress: cancelAt(cancel, 2, 5), AfterEpoch: func() error { epochs++; return nil }}
	if err := d.Drive(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drive: %v, want context.Canceled", err)
	}
	if r.Trainer.Epoch() != 1 || r.Trainer.Seen() != 15*driverConfig().Batch || epochs != 1 {
		t.Fatalf("stopped at epoch %d having seen %d examples after %d AfterEpoch calls; want 1, %d and 1", r.Trainer.Epoch(), r.Trainer.Seen(), epochs, 15*driverConfig().Batch)
	}
	d.Progress = nil
	if err := d.Drive(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if epochs != 4 || r.Report.Status != "done" {
		t.Errorf("%d AfterEpoch calls, status %q; want 4 and done", epochs, r.Report.Status)
	}
	a, err := straight.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	ea, _ := safetensors.Encode(a)
	eb, _ := safetensors.Encode(b)
	if !bytes.Equal(ea, eb) {
		t.Error("the stopped and continued run ends with other weights than the straight one")
	}
}

// TestDriverAfterEpochError: an error of the AfterEpoch hook stops the run
// and comes back from Drive.
func TestDriverAfterEpochError(t *testing.T) {
	r := newDriverRun(t)
	boom := errors.New("boom")
	err := Driver{AfterEpoch: func() error { return boom }}.Drive(context.Background(), r)
	if !errors.Is(err, boom) || r.Trainer.Epoch() != 1 {
		t.Errorf("Drive: %v after %d epochs, want boom after 1", err, r.Trainer.Epoch())
	}
}

// TestDriverStopInFirstEpoch: cancelled before any epoch was saved, a run
// goes back to its initial weights, and its report says it trained none.
func TestDriverStopInFirstEpoch(t *testing.T) {
	r := newDriverRun(t)
	before, err := r.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := Driver{Dir: t.TempDir(), Save: true, Progress: cancelAt(cancel, 1, 5)}
	if err := d.Drive(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drive: %v, want context.Canceled", err)
	}
	after, err := r.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := safetensors.Encode(before)
	b, _ := safetensors.Encode(after)
	if !bytes.Equal(a, b) || r.Trainer.Seen() != 0 || r.Report.Status != "stopped" || len(r.Report.History) != 0 {
		t.Errorf("initial weights back: %v; %d examples seen, status %q, %d epochs of history; want 0, stopped, 0",
			bytes.Equal(a, b), r.Trainer.Seen(), r.Report.Status, len(r.Report.History))
	}
}

// phaseStarts counts the phases a Driver reports by name (the calls with
// nothing done yet), and checks that each phase ends with all its
// examples done.
func phaseStarts(t *testing.T) (map[string]int, func(Phase), func()) {
	starts, last := map[string]int{}, map[string]Phase{}
	return starts, func(p Phase) {
			if p.Done == 0 {
				starts[p.Name]++
			}
			last[p.Name] = p
		}, func() {
			for name, p := range last {
				if p.Done != p.Total {
					t.Errorf("%s ended at %d of %d examples", name, p.Done, p.Total)
				}
			}
		}
}

// TestDriverEvaluatesTheTestSetOncePerModel: a toy run evaluates the test
// set after each epoch, and its end reuses the last epoch's evaluation
// instead of repeating it; the training set is evaluated once, at the end.
func TestDriverEvaluatesTheTestSetOncePerModel(t *testing.T) {
	r := newDriverRun(t)
	starts, phase, ended := phaseStarts(t)
	if err := (Driver{Phase: phase}).Drive(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	ended()
	if starts[PhaseTest] != 4 || starts[PhaseTrain] != 1 || len(starts) != 2 {
		t.Errorf("phases %v, want the test set 4 times (one per epoch) and the training set once", starts)
	}
	if r.Report.Test.Accuracy != r.Report.History[3].TestAccuracy {
		t.Errorf("final test accuracy %v, last epoch's %v", r.Report.Test.Accuracy, r.Report.History[3].TestAccuracy)
	}
}
