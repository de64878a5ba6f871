// Package train runs the training loop of a model over an in-memory data
// set: seeded shuffling, batching without copying the data set, progress
// reports, detection of non-finite losses, evaluation and stop/resume at any
// step.
package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/deeplda/deeplda/data"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// Dataset is an in-memory labelled data set (see data.Dataset).
type Dataset = data.Dataset

// Augment transforms one example in place (see data.Augment).
type Augment = data.Augment

// Config controls a training run.
type Config struct {
	Epochs      int
	Batch       int
	Seed        uint64 // shuffling and augmentation
	ReportEvery int    // steps between progress reports (each reads the loss back); 0 means 10
	Augment     Augment
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.Epochs < 1:
		return fmt.Errorf("epochs must be at least 1, got %d", c.Epochs)
	case c.Batch < 1:
		return fmt.Errorf("batch size must be at least 1, got %d", c.Batch)
	}
	return nil
}

// Progress is what the trainer reports while it runs.
type Progress struct {
	Epoch     int     `json:"epoch"` // 1-based
	Epochs    int     `json:"epochs"`
	Step      int     `json:"step"`       // within the epoch
	Steps     int     `json:"steps"`      // per epoch
	TotalStep int     `json:"total_step"` // steps done in the run
	Loss      float64 `json:"loss"`
	Accuracy  float64 `json:"accuracy"`
	// Examples is the number of examples of the epoch so far, over which
	// Loss and Accuracy are the means: two reports of an epoch give the
	// mean loss of the steps between them.
	Examples          int      `json:"examples"`
	ExamplesPerSecond float64  `json:"examples_per_second"`
	Elapsed           Duration `json:"elapsed_seconds"`
	Remaining         Duration `json:"remaining_seconds"`
}

// Duration is a time.Duration that JSON writes and reads in seconds.
type Duration time.Duration

// MarshalJSON writes d in seconds.
func (d Duration) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(d).Seconds(), 'g', -1, 64), nil
}

// UnmarshalJSON reads seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*d = Duration(s * float64(time.Second))
	return nil
}

// EpochStats summarise one epoch of training (train mode, running over the
// epoch's batches).
type EpochStats struct {
	Epoch    int
	Loss     float64
	Accuracy float64
}

// DivergedError reports a non-finite training loss.
type DivergedError struct {
	Step, Epoch int
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("training diverged: the loss became NaN or infinite at step %d (epoch %d)", e.Step, e.Epoch)
}

// Trainer trains a model on a data set, one epoch at a time; an interrupted
// epoch resumes at the step where it stopped.
type Trainer struct {
	Model *model.Model
	Data  Dataset
	Cfg   Config

	src     *pcg // rng's state (see Snapshot)
	rng     *rand.Rand
	perm    []int
	pos     int // next position in perm
	epoch   int // epochs completed
	xb, yb  []float32
	yi      []int32
	x, y    kernels.Tensor
	elapsed time.Duration // before the RunEpoch in progress
	running time.Time     // start of the RunEpoch in progress
	seen    int
}

// New returns a trainer; it checks the data against the model's input shape.
func New(m *model.Model, data Dataset, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if kernels.Numel(m.Spec.Input) != data.Size() {
		return nil, fmt.Errorf("the model takes inputs of shape %v, the data has %v", m.Spec.Input, data.Shape)
	}
	if data.Classes != m.Spec.Classes {
		return nil, fmt.Errorf("the model has %d classes, the data %d", m.Spec.Classes, data.Classes)
	}
	if cfg.ReportEvery <= 0 {
		cfg.ReportEvery = 10
	}
	src := newPCG(cfg.Seed, 0x73687566)
	t := &Trainer{Model: m, Data: data, Cfg: cfg, src: src, rng: rand.New(src)}
	b := min(cfg.Batch, data.Len())
	t.xb = make([]float32, b*data.Size())
	t.yi = make([]int32, b)
	t.x = m.Backend.Alloc(kernels.Float32, append([]int{b}, data.Shape...)...)
	t.y = m.Backend.Alloc(kernels.Int32, b)
	return t, nil
}

// Epoch returns the number of completed epochs.
func (t *Trainer) Epoch() int { return t.epoch }

// Seen returns the number of examples trained on in the run so far (its
// resumed part included).
func (t *Trainer) Seen() int { return t.seen }

// Done reports whether every configured epoch has run.
func (t *Trainer) Done() bool { return t.epoch >= t.Cfg.Epochs }

// StepsPerEpoch returns the number of batches per epoch (the last one may be
// smaller).
func (t *Trainer) StepsPerEpoch() int { return (t.Data.Len() + t.Cfg.Batch - 1) / t.Cfg.Batch }

// batch uploads the examples perm[lo:hi] and returns tensors of that size.
func (t *Trainer) batch(lo, hi int) (x, y kernels.Tensor) {
	n, size := hi-lo, t.Data.Size()
	perm, xs, xb, ys, yi := t.perm[lo:hi], t.Data.X, t.xb, t.Data.Y, t.yi
	switch {
	case xs == nil: // bytes, decoded here
		for i, idx := range perm {
			t.Data.Example(xb[i*size:(i+1)*size], idx)
		}
	case size == 2:
		// The toy's 2-D points and their labels in one loop: in
		// WebAssembly the cost of these loops is mostly their iterations.
		for i, idx := range perm {
			xb[2*i], xb[2*i+1], yi[i] = xs[2*idx], xs[2*idx+1], ys[idx]
		}
	case size <= 8:
		// Column by column: a loop (or a call to copy) per example would
		// cost more than the copy.
		for j := 0; j < size; j++ {
			for i, idx := range perm {
				xb[i*size+j] = xs[idx*size+j]
			}
		}
	default:
		for i, idx := range perm {
			copy(xb[i*size:(i+1)*size], xs[idx*size:(idx+1)*size])
		}
	}
	if size != 2 {
		for i, idx := range perm {
			yi[i] = ys[idx]
		}
	}
	if aug := t.Cfg.Augment; aug != nil {
		for i := range perm {
			aug(t.rng, xb[i*size:(i+1)*size])
		}
	}
	be := t.Model.Backend
	x, y = t.x, t.y
	if n != t.x.Shape()[0] {
		x = be.View(t.x, 0, append([]int{n}, t.Data.Shape...)...)
		y = be.View(t.y, 0, n)
	}
	be.Write(x, t.xb[:n*size])
	be.WriteInt(y, t.yi[:n])
	return x, y
}

// RunEpoch trains until the end of the current epoch, calling onProgress
// (which may be nil) every Cfg.ReportEvery steps and at the end. It returns
// ctx.Err() when ctx is cancelled (the next call resumes at the same step), a
// *DivergedError when the loss is not finite, or a device error.
func (t *Trainer) RunEpoch(ctx context.Context, onProgress func(Progress)) (EpochStats, error) {
	if t.Done() {
		return EpochStats{}, errors.New("training is already complete")
	}
	m := t.Model
	if err := ctx.Err(); err != nil {
		// Before the epoch's permutation is drawn: a run cancelled
		// between epochs goes on from the same generator state.
		return EpochStats{}, err
	}
	if t.pos == 0 {
		if len(t.perm) != t.Data.Len() {
			t.perm = make([]int, t.Data.Len())
		}
		permInto(t.perm, t.src)
		m.ResetStats()
	}
	steps := t.StepsPerEpoch()
	start := time.Now()
	t.running = start
	defer func() {
		t.elapsed += time.Since(start)
		t.running = time.Time{}
	}()
	report := func() (model.Stats, error) {
		st, err := m.ReadStats()
		if err != nil {
			return st, fmt.Errorf("at step %d (epoch %d): %w", t.epoch*steps+(t.pos+t.Cfg.Batch-1)/t.Cfg.Batch, t.epoch+1, err)
		}
		if st.BadStep >= 0 {
			return st, &DivergedError{Step: st.BadStep, Epoch: t.epoch + 1}
		}
		if onProgress != nil {
			el := t.elapsed + time.Since(start)
			done := t.epoch*steps + (t.pos+t.Cfg.Batch-1)/t.Cfg.Batch
			p := Progress{
				Epoch: t.epoch + 1, Epochs: t.Cfg.Epochs,
				Step: (t.pos + t.Cfg.Batch - 1) / t.Cfg.Batch, Steps: steps, TotalStep: done,
				Loss: st.Loss, Accuracy: st.Accuracy, Examples: st.Count, Elapsed: Duration(el),
			}
			if s := el.Seconds(); s > 0 {
				p.ExamplesPerSecond = float64(t.seen) / s
				p.Remaining = Duration(float64(el) * float64(t.Cfg.Epochs*steps-done) / float64(max(done, 1)))
			}
			onProgress(p)
		}
		return st, nil
	}
	for t.pos < t.Data.Len() {
		if err := ctx.Err(); err != nil {
			return EpochStats{}, err
		}
		hi := min(t.pos+t.Cfg.Batch, t.Data.Len())
		x, y := t.batch(t.pos, hi)
		m.TrainStep(x, y)
		t.seen += hi - t.pos
		t.pos = hi
		if step := (t.pos + t.Cfg.Batch - 1) / t.Cfg.Batch; step%t.Cfg.ReportEvery == 0 && t.pos < t.Data.Len() {
			if _, err := report(); err != nil {
				return EpochStats{}, err
			}
		}
	}
	st, err := report()
	if err != nil {
		return EpochStats{}, err
	}
	t.pos = 0
	t.epoch++
	return EpochStats{Epoch: t.epoch, Loss: st.Loss, Accuracy: st.Accuracy}, nil
}

// Elapsed returns the training time so far (excluding evaluation), the
// epoch in progress included.
func (t *Trainer) Elapsed() time.Duration {
	if t.running.IsZero() {
		return t.elapsed
	}
	return t.elapsed + time.Since(t.running)
}

// Outputs are a model's evaluation-mode outputs on a data set.
type Outputs struct {
	Z      []float32 // N×D embeddings
	Scores []float32 // N×C delta or logits
	D, C   int
}

// Evaluate runs the model in evaluation mode over data in batches and reads
// back the embeddings and scores. onBatch, which may be nil, is called
// after every batch with the number of examples done.
func Evaluate(m *model.Model, data Dataset, batch int, onBatch func(done int)) (Outputs, error) {
	be := m.Backend
	n, size := data.Len(), data.Size()
	batch = max(1, min(batch, n))
	out := Outputs{D: m.Spec.Dim, C: m.Spec.Classes}
	out.Z = make([]float32, 0, n*out.D)
	out.Scores = make([]float32, 0, n*out.C)
	full := be.Alloc(kernels.Float32, append([]int{batch}, data.Shape...)...)
	defer be.Free(full)
	var buf []float32 // a batch's decoded bytes
	if data.X == nil {
		buf = make([]float32, batch*size)
	}
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		x := full
		if hi-lo != batch {
			x = be.View(full, 0, append([]int{hi - lo}, data.Shape...)...)
		}
		be.Write(x, data.Rows(buf, lo, hi))
		z, s := m.Forward(x, false)
		zv, err := be.Read(z)
		if err != nil {
			return out, err
		}
		sv, err := be.Read(s)
		if err != nil {
			return out, err
		}
		out.Z = append(out.Z, zv...)
		out.Scores = append(out.Scores, sv...)
		if onBatch != nil {
			onBatch(hi)
		}
	}
	return out, nil
}
