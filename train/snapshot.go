package train

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deeplda/deeplda/safetensors"
)

// Snapshot is a host copy of a training run between two steps: the model's
// TrainingState (parameters, BatchNorm statistics, Adam's moments and step
// count, the epoch's loss statistics) and the trainer's place in the data
// (the epoch, the position in its order, the order itself and the state of
// the shuffling and augmentation generator). Trainer.Restore continues the
// run from it on any backend, with the same batches in the same order.
type Snapshot struct {
	Model   *safetensors.File // model.Model.TrainingState
	Epoch   int               // completed epochs
	Pos     int               // examples of the epoch in progress trained on
	Step    int               // steps of the epoch in progress done
	Perm    []int             // the epoch's order (nil between epochs)
	RNG     []byte            // the generator's state (rand.PCG binary)
	Seen    int               // examples trained on in the run
	Elapsed time.Duration     // training time
}

// TotalStep returns the steps done in the run at the snapshot, for a run of
// steps steps per epoch.
func (s *Snapshot) TotalStep(steps int) int { return s.Epoch*steps + s.Step }

// Snapshot copies the run's state to the host. It may be called between
// RunEpoch calls or from RunEpoch's onProgress (after a step); it reads the
// model back from its backend, so on a GPU it costs a few round trips.
func (t *Trainer) Snapshot() (*Snapshot, error) {
	st, err := t.Model.TrainingState()
	if err != nil {
		return nil, err
	}
	rng, err := t.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Model: st, Epoch: t.epoch, Pos: t.pos, Step: (t.pos + t.Cfg.Batch - 1) / t.Cfg.Batch,
		RNG: rng, Seen: t.seen, Elapsed: t.Elapsed()}
	if t.pos > 0 {
		s.Perm = slices.Clone(t.perm)
	}
	return s, nil
}

// Restore sets the trainer and its model to s, which a trainer of the same
// model spec, data and configuration took (on this backend or another):
// the next RunEpoch continues that run at the step after s. It must not be
// called while RunEpoch runs. On error nothing changed.
func (t *Trainer) Restore(s *Snapshot) error {
	n := t.Data.Len()
	switch {
	case s.Epoch < 0 || s.Epoch > t.Cfg.Epochs:
		return fmt.Errorf("the snapshot is at epoch %d of a run of %d", s.Epoch, t.Cfg.Epochs)
	case s.Pos < 0 || s.Pos > n:
		return fmt.Errorf("the snapshot is at example %d of an epoch of %d", s.Pos, n)
	case s.Pos > 0 && len(s.Perm) != n:
		return fmt.Errorf("the snapshot's order has %d examples, the data set %d", len(s.Perm), n)
	case s.Pos > 0 && !isPerm(s.Perm):
		return fmt.Errorf("the snapshot's order is not a permutation of the %d examples", n)
	}
	var src pcg
	if err := src.UnmarshalBinary(s.RNG); err != nil {
		return fmt.Errorf("the snapshot's generator: %w", err)
	}
	if err := t.Model.LoadState(s.Model, ""); err != nil {
		return err
	}
	*t.src = src
	t.epoch, t.pos, t.seen, t.elapsed = s.Epoch, s.Pos, s.Seen, s.Elapsed
	t.perm = slices.Clone(s.Perm)
	return nil
}

// Metadata keys and the tensor name under which Snapshot.File stores the
// trainer's place; the model's tensors keep their names.
const (
	metaEpoch   = "train.epoch"
	metaPos     = "train.pos"
	metaStep    = "train.step"
	metaSeen    = "train.seen"
	metaElapsed = "train.elapsed_ns"
	metaRNG     = "train.rng" // hex of the generator's binary state
	permTensor  = "train.perm"
)

// File returns s as one safetensors file: the model's TrainingState with
// the trainer's place in its metadata (train.*) and the epoch's order, when
// it has one, as the I32 tensor train.perm. SnapshotFromFile reads it back.
func (s *Snapshot) File() *safetensors.File {
	f := safetensors.New()
	maps.Copy(f.Tensors, s.Model.Tensors)
	maps.Copy(f.Metadata, s.Model.Metadata)
	for k, v := range map[string]int64{metaEpoch: int64(s.Epoch), metaPos: int64(s.Pos), metaStep: int64(s.Step),
		metaSeen: int64(s.Seen), metaElapsed: int64(s.Elapsed)} {
		f.Metadata[k] = strconv.FormatInt(v, 10)
	}
	f.Metadata[metaRNG] = hex.EncodeToString(s.RNG)
	if s.Perm != nil {
		p := make([]int32, len(s.Perm))
		for i, v := range s.Perm {
			p[i] = int32(v)
		}
		f.Set(permTensor, safetensors.NewI32(p, len(p)))
	}
	return f
}

// SnapshotFromFile reads a snapshot written by Snapshot.File. Whether it
// fits a trainer is Restore's to check.
func SnapshotFromFile(f *safetensors.File) (*Snapshot, error) {
	s := &Snapshot{Model: safetensors.New()}
	var epoch, pos, step, seen, elapsed int64
	for k, p := range map[string]*int64{metaEpoch: &epoch, metaPos: &pos, metaStep: &step, metaSeen: &seen, metaElapsed: &elapsed} {
		v, ok := f.Metadata[k]
		if !ok {
			return nil, fmt.Errorf("not a training snapshot: no %q in the metadata", k)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("the snapshot's %q is %q, want a count >= 0", k, v)
		}
		*p = n
	}
	rng, err := hex.DecodeString(f.Metadata[metaRNG])
	if err != nil {
		return nil, fmt.Errorf("the snapshot's %q: %w", metaRNG, err)
	}
	s.Epoch, s.Pos, s.Step, s.Seen, s.Elapsed, s.RNG = int(epoch), int(pos), int(step), int(seen), time.Duration(elapsed), rng
	for name, t := range f.Tensors {
		if name != permTensor {
			s.Model.Tensors[name] = t
		}
	}
	for k, v := range f.Metadata {
		if !strings.HasPrefix(k, "train.") {
			s.Model.Metadata[k] = v
		}
	}
	if t, ok := f.Tensors[permTensor]; ok {
		if err := t.Check(permTensor, safetensors.I32, t.Numel()); err != nil {
			return nil, err
		}
		s.Perm = make([]int, len(t.I32))
		for i, v := range t.I32 {
			s.Perm[i] = int(v)
		}
	}
	return s, nil
}

// isPerm reports whether p holds each of 0..len(p)-1 once.
func isPerm(p []int) bool {
	seen := make([]bool, len(p))
	for _, v := range p {
		if v < 0 || v >= len(p) || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
