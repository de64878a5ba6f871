package train_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/data/synth"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

func toy(n int) train.Dataset {
	x, y := synth.Generate(n, 3)
	return train.Dataset{X: x, Y: y, Shape: []int{2}, Classes: 3}
}

func newTrainer(t *testing.T, data train.Dataset, epochs int) *train.Trainer {
	t.Helper()
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := train.New(m, data, train.Config{Epochs: epochs, Batch: 64, Seed: 9, ReportEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestDatasetValidation(t *testing.T) {
	for _, tc := range []struct {
		d    train.Dataset
		want string
	}{
		{train.Dataset{Shape: []int{2}, Classes: 3}, "empty data set"},
		{train.Dataset{X: make([]float32, 3), Y: make([]int32, 2), Shape: []int{2}, Classes: 3}, "3 values for 2 examples"},
		{train.Dataset{X: make([]float32, 4), Y: []int32{0, 3}, Shape: []int{2}, Classes: 3}, "label 3 of example 1"},
	} {
		if err := tc.d.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestResumeIsExact stops training mid-epoch through the context and
// resumes: the parameters must equal those of an uninterrupted run.
func TestResumeIsExact(t *testing.T) {
	data := toy(1000)
	straight := newTrainer(t, data, 2)
	for !straight.Done() {
		if _, err := straight.RunEpoch(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	resumed := newTrainer(t, data, 2)
	stops := 0
	for !resumed.Done() {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := resumed.RunEpoch(ctx, func(p train.Progress) {
			if p.Step == 6 && stops < 2 {
				stops++
				cancel()
			}
		})
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	if stops != 2 {
		t.Fatalf("stopped %d times, want 2", stops)
	}
	for i, p := range straight.Model.Params {
		a, _ := straight.Model.Backend.Read(p.Value)
		b, _ := resumed.Model.Backend.Read(resumed.Model.Params[i].Value)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s[%d]: %v after stop and resume, %v without", p.Name, j, b[j], a[j])
			}
		}
	}
}

// TestCancelledBetweenEpochsIsExact cancels training at the end of each
// epoch (the last progress report of the epoch) and calls RunEpoch again
// with the cancelled context before resuming: the next epoch's data order
// must not be drawn twice, so the parameters equal an uninterrupted run's.
func TestCancelledBetweenEpochsIsExact(t *testing.T) {
	data := toy(1000)
	straight := newTrainer(t, data, 3)
	for !straight.Done() {
		if _, err := straight.RunEpoch(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	resumed := newTrainer(t, data, 3)
	for !resumed.Done() {
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := resumed.RunEpoch(ctx, func(p train.Progress) {
			if p.Step == p.Steps {
				cancel()
			}
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := resumed.RunEpoch(ctx, nil); !errors.Is(err, context.Canceled) && !resumed.Done() {
			t.Fatalf("a cancelled epoch: %v, want context.Canceled", err)
		}
		cancel()
	}
	for i, p := range straight.Model.Params {
		a, _ := straight.Model.Backend.Read(p.Value)
		b, _ := resumed.Model.Backend.Read(resumed.Model.Params[i].Value)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s[%d]: %v after cancelling between epochs, %v without", p.Name, j, b[j], a[j])
			}
		}
	}
}

func TestNonFiniteLossStops(t *testing.T) {
	data := toy(1000)
	data.X[2*700] = float32(math.Inf(1)) // example 700
	tr := newTrainer(t, data, 1)
	_, err := tr.RunEpoch(context.Background(), nil)
	var div *train.DivergedError
	if !errors.As(err, &div) {
		t.Fatalf("error %v, want a DivergedError", err)
	}
	if div.Epoch != 1 || div.Step < 1 || div.Step > tr.StepsPerEpoch() {
		t.Errorf("diverged at step %d epoch %d", div.Step, div.Epoch)
	}
	if !strings.Contains(err.Error(), "NaN or infinite at step") {
		t.Errorf("message %q", err)
	}
}

func TestEvaluateShapes(t *testing.T) {
	data := toy(300)
	tr := newTrainer(t, data, 1)
	var done []int
	out, err := train.Evaluate(tr.Model, data, 128, func(n int) { done = append(done, n) }) // 128 does not divide 300
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done, []int{128, 256, 300}) {
		t.Errorf("progress after each batch: %v, want [128 256 300]", done)
	}
	if len(out.Z) != 300*2 || len(out.Scores) != 300*3 {
		t.Errorf("got %d embeddings and %d scores", len(out.Z), len(out.Scores))
	}
}
