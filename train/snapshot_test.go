package train_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// snapshotCase is a run to interrupt: its model, data and configuration.
type snapshotCase struct {
	name string
	spec model.Spec
	data train.Dataset
	cfg  train.Config
}

func snapshotCases() []snapshotCase {
	noise := func(rng *rand.Rand, x []float32) {
		for i := range x {
			x[i] += float32(0.05 * rng.NormFloat64())
		}
	}
	images := train.Dataset{Shape: []int{1, 8, 8}, Classes: 3}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		images.Y = append(images.Y, int32(i%3))
		for range 64 {
			images.X = append(images.X, float32(rng.NormFloat64())+float32(i%3))
		}
	}
	return []snapshotCase{
		{"mlp", model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
			Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-2, Seed: 4},
			toy(700), train.Config{Epochs: 3, Batch: 64, Seed: 9, ReportEvery: 1, Augment: noise}},
		{"convnet", model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 8, 8}, Classes: 3, Dim: 2,
			Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 5},
			images, train.Config{Epochs: 3, Batch: 20, Seed: 7, ReportEvery: 1, Augment: noise}},
	}
}

// trainer builds c's trainer on a fresh CPU backend.
func (c snapshotCase) trainer(t *testing.T) *train.Trainer {
	t.Helper()
	m, err := model.New(cpu.New(), c.spec)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := train.New(m, c.data, c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// snapshotAt is where a run is snapshot: after step Step of the run, from
// onProgress, or when Between, after the RunEpoch that ends at that step.
type snapshotAt struct {
	Step    int
	Between bool
}

// finish trains tr to the end and returns the epochs' statistics and the
// snapshot taken at at (none for a zero at).
func finish(t *testing.T, tr *train.Trainer, at snapshotAt) ([]train.EpochStats, *train.Snapshot) {
	t.Helper()
	var stats []train.EpochStats
	var snap *train.Snapshot
	take := func() {
		var err error
		if snap, err = tr.Snapshot(); err != nil {
			t.Fatal(err)
		}
	}
	for !tr.Done() {
		st, err := tr.RunEpoch(context.Background(), func(p train.Progress) {
			if !at.Between && p.TotalStep == at.Step && snap == nil {
				take()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
		if at.Between && tr.Epoch()*tr.StepsPerEpoch() == at.Step {
			take()
		}
	}
	return stats, snap
}

// sameState fails unless a and b hold the same tensors bit for bit.
func sameState(t *testing.T, what string, a, b *safetensors.File) {
	t.Helper()
	if !slices.Equal(a.Names(), b.Names()) {
		t.Fatalf("%s: tensors %v, want %v", what, b.Names(), a.Names())
	}
	for _, n := range a.Names() {
		ta, tb := a.Tensors[n], b.Tensors[n]
		if !slices.Equal(ta.F32, tb.F32) || !slices.Equal(ta.I32, tb.I32) {
			t.Errorf("%s: %s differs", what, n)
		}
	}
}

// TestSnapshotRestoreIsExact snapshots a run in the middle of an epoch
// (from onProgress) and between epochs, restores each snapshot (half of
// them after a round trip through a safetensors file) into a
// trainer on a fresh CPU backend and trains to the end: the parameters,
// BatchNorm statistics and counters, Adam's moments and step, and the
// epochs' losses must equal those of the uninterrupted run bit for bit
// (the data order and augmentation included), and snapshotting must not
// change the run that took it.
func TestSnapshotRestoreIsExact(t *testing.T) {
	for _, c := range snapshotCases() {
		steps := c.trainer(t).StepsPerEpoch()
		plain := c.trainer(t)
		want, _ := finish(t, plain, snapshotAt{})
		a, err := plain.Model.TrainingState()
		if err != nil {
			t.Fatal(err)
		}
		for i, at := range []snapshotAt{{steps + steps/2, false}, {steps, false}, {steps, true}, {2*steps - 1, false}} {
			straight := c.trainer(t)
			got, snap := finish(t, straight, at)
			if snap == nil {
				t.Fatalf("%s: no snapshot at %+v", c.name, at)
			}
			if i%2 == 1 {
				snap = viaFile(t, snap)
			}
			if snap.TotalStep(steps) != at.Step || snap.Model.Tensors[model.OptimStep].I32[0] != int32(at.Step) {
				t.Errorf("%s: snapshot at step %d (Adam step %d), want %d", c.name, snap.TotalStep(steps), snap.Model.Tensors[model.OptimStep].I32[0], at.Step)
			}
			resumed := c.trainer(t)
			if err := resumed.Restore(snap); err != nil {
				t.Fatal(err)
			}
			if resumed.Model.Backend == straight.Model.Backend {
				t.Fatal("the resumed run shares the backend")
			}
			after, _ := finish(t, resumed, snapshotAt{})
			if !slices.Equal(got, want) {
				t.Errorf("%s: snapshotting changed the run: epochs %v, want %v", c.name, got, want)
			}
			if first := snap.Epoch; !slices.Equal(after, want[first:]) {
				t.Errorf("%s at %+v: resumed epochs %v, want %v", c.name, at, after, want[first:])
			}
			for _, tr := range []*train.Trainer{straight, resumed} {
				b, err := tr.Model.TrainingState()
				if err != nil {
					t.Fatal(err)
				}
				sameState(t, fmt.Sprintf("%s at %+v", c.name, at), a, b)
			}
		}
	}
}

// TestRestoreChecksTheSnapshot rejects snapshots of another run and leaves
// the trainer as it was.
func TestRestoreChecksTheSnapshot(t *testing.T) {
	c := snapshotCases()[0]
	tr := c.trainer(t)
	if _, err := tr.RunEpoch(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	good, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := *good
	other.Pos, other.Perm = 10, []int{1, 2, 3}
	noRNG := *good
	noRNG.RNG = nil
	late := *good
	late.Epoch = 9
	mid := *good
	mid.Pos, mid.Perm = 10, make([]int, c.data.Len()) // all zeros
	for _, s := range []*train.Snapshot{&other, &noRNG, &late, &mid} {
		fresh := c.trainer(t)
		if err := fresh.Restore(s); err == nil {
			t.Errorf("restored a bad snapshot %+v", s)
		}
		if fresh.Epoch() != 0 || fresh.Model.Step() != 0 {
			t.Errorf("a failed restore moved the trainer to epoch %d, step %d", fresh.Epoch(), fresh.Model.Step())
		}
	}
}

// viaFile returns s after a round trip through Snapshot.File, an encoded
// safetensors file and SnapshotFromFile.
func viaFile(t *testing.T, s *train.Snapshot) *train.Snapshot {
	t.Helper()
	b, err := safetensors.Encode(s.File())
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := train.SnapshotFromFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if back.Epoch != s.Epoch || back.Pos != s.Pos || back.Step != s.Step || back.Seen != s.Seen || back.Elapsed != s.Elapsed ||
		!slices.Equal(back.RNG, s.RNG) || !slices.Equal(back.Perm, s.Perm) {
		t.Fatalf("the snapshot came back as %+v, want %+v", back, s)
	}
	sameState(t, "the snapshot's model after the file", s.Model, back.Model)
	return back
}

// TestSnapshotFromFileChecks rejects files that are not snapshots or whose
// counters are not counts.
func TestSnapshotFromFileChecks(t *testing.T) {
	c := snapshotCases()[0]
	good, err := c.trainer(t).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"train.epoch", "", "not a training snapshot"},
		{"train.seen", "-3", "want a count"},
		{"train.pos", "x", "want a count"},
		{"train.rng", "zz", "train.rng"},
	} {
		f := good.File()
		if tc.value == "" {
			delete(f.Metadata, tc.key)
		} else {
			f.Metadata[tc.key] = tc.value
		}
		if _, err := train.SnapshotFromFile(f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: error %v, want it to mention %q", tc.key, tc.value, err, tc.want)
		}
	}
}
