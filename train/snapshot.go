package train

import (
	"fmt"
	"slices"
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
