package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/deeplda/deeplda/kernels"
)

// Param is a named trainable tensor and its gradient. Both are views into the
// model's parameter arena, so that one fused Adam update covers every
// parameter.
type Param struct {
	Name        string
	Shape       []int
	Value, Grad kernels.Tensor
	offset      int
	init        func(rng *rand.Rand, n int) []float32
}

// Buffer is a named non-trainable state tensor saved in checkpoints
// (BatchNorm running estimates).
type Buffer struct {
	Name  string
	Shape []int
	T     kernels.Tensor
	fill  float32
}

// registry collects parameters and buffers while a model is built.
type registry struct {
	be      kernels.Backend
	params  []*Param
	buffers []*Buffer
	counts  map[string]*int // BatchNorm num_batches_tracked, kept on the host
	acts    []*act
	owned   []kernels.Tensor // other tensors the model allocated
}

// act returns a new activation buffer owned by the model.
func (r *registry) act() *act {
	a := &act{}
	r.acts = append(r.acts, a)
	return a
}

// alloc returns a zeroed tensor owned by the model.
func (r *registry) alloc(shape ...int) kernels.Tensor {
	t := r.be.Alloc(kernels.Float32, shape...)
	r.owned = append(r.owned, t)
	return t
}

func (r *registry) param(name string, init func(rng *rand.Rand, n int) []float32, shape ...int) *Param {
	p := &Param{Name: name, Shape: shape, init: init}
	r.params = append(r.params, p)
	return p
}

func (r *registry) buffer(name string, fill float32, shape ...int) *Buffer {
	b := &Buffer{Name: name, Shape: shape, T: r.alloc(shape...), fill: fill}
	if fill != 0 {
		r.be.Fill(b.T, fill)
	}
	r.buffers = append(r.buffers, b)
	return b
}

// uniform returns PyTorch's default initialiser for Linear and Conv2d weights
// and biases: U(-1/sqrt(fanIn), 1/sqrt(fanIn)).
func uniform(fanIn int) func(*rand.Rand, int) []float32 {
	bound := 1 / math.Sqrt(float64(fanIn))
	return func(rng *rand.Rand, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32((2*rng.Float64() - 1) * bound)
		}
		return s
	}
}

// normal returns an initialiser drawing from N(0, std^2).
func normal(std float64) func(*rand.Rand, int) []float32 {
	return func(rng *rand.Rand, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64() * std)
		}
		return s
	}
}

// constant returns an initialiser filling v.
func constant(v float32) func(*rand.Rand, int) []float32 {
	return func(_ *rand.Rand, n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
}

// arena holds every parameter, gradient and Adam moment in four tensors.
type arena struct {
	value, grad, m, v kernels.Tensor
}

// prefix returns views of a's first n elements (n a multiple of
// kernels.ViewAlign).
func (a arena) prefix(be kernels.Backend, n int) arena {
	return arena{value: be.View(a.value, 0, n), grad: be.View(a.grad, 0, n), m: be.View(a.m, 0, n), v: be.View(a.v, 0, n)}
}

// bind lays the parameters out in one arena (offsets aligned for GPU
// binding), allocates it and writes the initial values drawn from rng.
func (r *registry) bind(rng *rand.Rand) arena {
	total := 0
	for _, p := range r.params {
		p.offset = total
		total += kernels.AlignUp(kernels.Numel(p.Shape))
	}
	total = max(total, kernels.ViewAlign)
	a := arena{value: r.alloc(total), grad: r.alloc(total), m: r.alloc(total), v: r.alloc(total)}
	for _, p := range r.params {
		n := kernels.Numel(p.Shape)
		p.Value = r.be.View(a.value, p.offset, p.Shape...)
		p.Grad = r.be.View(a.grad, p.offset, p.Shape...)
		r.be.Write(p.Value, p.init(rng, n))
	}
	return a
}

// act is an activation buffer sized for the largest batch seen; smaller
// batches get a view of its leading rows.
type act struct {
	full  kernels.Tensor
	view  kernels.Tensor
	shape []int
}

// get returns a tensor of the given shape (batch first).
func (a *act) get(be kernels.Backend, shape ...int) kernels.Tensor {
	if a.full != nil && slices.Equal(a.shape, shape) {
		if a.view != nil {
			return a.view
		}
		return a.full
	}
	fs := a.full
	if fs == nil || !slices.Equal(fs.Shape()[1:], shape[1:]) || fs.Shape()[0] < shape[0] {
		if fs != nil {
			be.Free(fs)
		}
		// Clones, so that shape does not escape: the callers' variadic
		// slices stay on the stack on the every-step path above.
		a.full = be.Alloc(kernels.Float32, slices.Clone(shape)...)
	}
	a.shape = append(a.shape[:0], shape...)
	a.view = nil
	if a.full.Shape()[0] != shape[0] {
		a.view = be.View(a.full, 0, slices.Clone(shape)...)
		return a.view
	}
	return a.full
}

func shapeErr(name string, got, want []int) error {
	return fmt.Errorf("tensor %q has shape %v, want %v", name, got, want)
}
