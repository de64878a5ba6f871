// Package model holds Deep LDA models: an encoder (identity, the toy MLP or
// the paper's ConvNet), a head (LDA with spherical, diagonal or full
// covariance, or a linear softmax layer), the loss (NLL, CE or DNLL) and
// Adam, all running on a kernels.Backend.
//
// Parameter and buffer names follow PyTorch's state_dict of the reference
// model (enc.conv3.weight, enc.bn1.running_var, head.mu, ...), so checkpoints
// are exchanged with PyTorch as safetensors.
package model

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/deeplda/deeplda/kernels"
)

// Spec describes a model.
type Spec struct {
	Encoder EncoderKind     // none, mlp or convnet
	Input   []int           // shape of one example: [D] or [C,H,W]
	Classes int             // C
	Dim     int             // embedding dimension d
	Head    HeadKind        // lda or softmax
	Cov     kernels.CovKind // for the LDA head
	Loss    kernels.LossKind
	Lambda  float64 // DNLL weight
	LR      float64 // Adam learning rate
	Seed    uint64  // parameter initialisation
	// FreezeHead keeps the head's parameters at their initial values: Adam
	// steps the encoder's alone, as the optimiser of the authors'
	// Fashion-MNIST notebook does (it is built over the encoder's
	// parameters only). Omitted from JSON when false, so that the spec
	// in a checkpoint reads as before.
	FreezeHead bool `json:",omitempty"`
}

// Limits on the size of a model, which Validate enforces so that a corrupt
// or hostile checkpoint is refused before memory is allocated for it. The
// LDA head works on about 7 d×d matrices and its means are C×d, and the
// MLP's first layer is 32×D for inputs of D values: at the limits a model
// needs a few hundred MB.
const (
	MaxDim     = 1024    // embedding dimension d
	MaxClasses = 10_000  // classes C
	MaxInput   = 1 << 18 // values in one example (the product of Input)
)

// Validate reports the first problem with s.
func (s Spec) Validate() error {
	if err := s.checkInput(); err != nil {
		return err
	}
	if err := s.checkKinds(); err != nil {
		return err
	}
	switch {
	case s.Classes < 2:
		return fmt.Errorf("need at least 2 classes, got %d", s.Classes)
	case s.Classes > MaxClasses:
		return fmt.Errorf("%d classes is over the limit of %d", s.Classes, MaxClasses)
	case s.Dim < 1:
		return fmt.Errorf("embedding dimension must be positive, got %d", s.Dim)
	case s.Dim > MaxDim:
		return fmt.Errorf("embedding dimension %d is over the limit of %d", s.Dim, MaxDim)
	case s.Head == HeadSoftmax && s.Loss != kernels.CE:
		return fmt.Errorf("the softmax head trains with ce, not %s", s.Loss)
	case s.FreezeHead && s.Encoder == EncoderNone:
		return errors.New("a frozen head needs an encoder to train (encoder none leaves nothing)")
	}
	if err := CheckLambda(s.Lambda); err != nil {
		return err
	}
	return CheckLR(s.LR)
}

// checkInput checks that every dimension of Input is positive and that an
// example holds at most MaxInput values.
func (s Spec) checkInput() error {
	n := 1
	for _, v := range s.Input {
		if v < 1 {
			return fmt.Errorf("input shape %v has a dimension < 1", s.Input)
		}
		if v > MaxInput/n {
			return fmt.Errorf("input shape %v is over the limit of %d values an example", s.Input, MaxInput)
		}
		n *= v
	}
	return nil
}

// Model is an encoder, a head, a loss and Adam's state on one backend.
type Model struct {
	Spec    Spec
	Backend kernels.Backend
	Encoder *Encoder
	Head    Head
	Params  []*Param
	Buffers []*Buffer
	counts  map[string]*int
	arena   arena
	// stepped is the part of the arena that Adam updates: all of it, or
	// with Spec.FreezeHead the encoder's parameters, which come first.
	stepped arena
	stats   kernels.Tensor
	dscores *act
	step    int
	stores  []*store
	owned   []kernels.Tensor
}

// New builds a model and initialises its parameters from s.Seed.
func New(be kernels.Backend, s Spec) (*Model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r := &registry{be: be, counts: map[string]*int{}}
	enc, err := newEncoder(r, s.Encoder, s.Input, s.Dim)
	if err != nil {
		return nil, err
	}
	encParams := len(r.params) // the head's follow in the arena
	head, err := newHead(r, s.Head, s.Classes, s.Dim, s.Cov)
	if err != nil {
		return nil, err
	}
	m := &Model{Spec: s, Backend: be, Encoder: enc, Head: head, Params: r.params, Buffers: r.buffers, counts: r.counts}
	m.arena = r.bind(rand.New(rand.NewPCG(s.Seed, 0x6c6461)))
	m.stepped = m.arena
	if s.FreezeHead {
		m.stepped = m.arena.prefix(be, r.params[encParams].offset)
	}
	m.stats = r.alloc(kernels.StatsLen)
	m.dscores = r.act()
	m.stores, m.owned = r.stores, r.owned
	m.ResetStats()
	return m, nil
}

// Release frees every tensor the model allocated on its backend (GPU memory
// for WebGPU). The model must not be used afterwards.
func (m *Model) Release() {
	for _, s := range m.stores {
		s.release(m.Backend)
	}
	for _, t := range m.owned {
		m.Backend.Free(t)
	}
	m.owned, m.stores = nil, nil
}

// Step returns the number of Adam steps taken.
func (m *Model) Step() int { return m.step }

// Forward runs the model on x (a batch, [N, input...]) and returns the
// embeddings z and the scores (delta or logits). In training mode BatchNorm
// uses (and updates) batch statistics.
func (m *Model) Forward(x kernels.Tensor, train bool) (z, scores kernels.Tensor) {
	z = m.Encoder.Forward(x, train)
	return z, m.Head.Forward(z)
}

// TrainStep runs forward and backward on one batch, adds its loss and
// accuracy to the statistics, and applies one Adam step.
func (m *Model) TrainStep(x, y kernels.Tensor) {
	m.Gradients(x, y)
	m.AdamStep()
}

// Gradients runs the training-mode forward and backward passes on one batch,
// adds its loss and accuracy to the statistics and leaves the gradients in
// each Param's Grad.
func (m *Model) Gradients(x, y kernels.Tensor) {
	_, scores := m.Forward(x, true)
	ds := m.dscores.get(m.Backend, scores.Shape()...)
	m.Backend.Loss(ds, m.stats, scores, y, m.Spec.Loss, float32(m.Spec.Lambda), m.step+1)
	m.Encoder.Backward(m.Head.Backward(ds))
}

// AdamStep applies one Adam update to every parameter from its gradient
// (with Spec.FreezeHead, to the encoder's).
func (m *Model) AdamStep() {
	m.step++
	a := m.stepped
	m.Backend.Adam(a.value, a.grad, a.m, a.v, kernels.AdamParams{
		LR: m.Spec.LR, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: m.step,
	})
}

// AddLoss adds the loss statistics of scores for labels y without a
// gradient (for evaluation).
func (m *Model) AddLoss(scores, y kernels.Tensor) {
	m.Backend.Loss(nil, m.stats, scores, y, m.Spec.Loss, float32(m.Spec.Lambda), m.step)
}

// Stats are the loss statistics accumulated since the last ResetStats.
type Stats struct {
	Loss     float64 // mean loss per example
	Accuracy float64
	Count    int
	BadStep  int // first step with a non-finite loss, or -1
}

// ReadStats reads the accumulated statistics back from the backend.
func (m *Model) ReadStats() (Stats, error) {
	s, err := m.Backend.Read(m.stats)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Count: int(s[kernels.StatCount]), BadStep: int(s[kernels.StatBadStep])}
	if st.Count > 0 {
		st.Loss = float64(s[kernels.StatLoss]) / float64(st.Count)
		st.Accuracy = float64(s[kernels.StatCorrect]) / float64(st.Count)
	}
	return st, nil
}

// ResetStats zeroes the statistics.
func (m *Model) ResetStats() {
	m.Backend.Write(m.stats, []float32{0, 0, 0, -1})
}

// Param returns the parameter with the given name, or nil.
func (m *Model) Param(name string) *Param {
	for _, p := range m.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}
