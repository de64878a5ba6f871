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
	stores  []*store
	grads   [2]*store        // the stores of the layers' input gradients (see grad)
	turn    int              // which of grads grad hands out next
	owned   []kernels.Tensor // other tensors the model allocated
}

// act returns a new activation buffer owned by the model.
func (r *registry) act() *act { return &act{st: r.store()} }

// grad returns the buffer of a layer's input gradient: one of two stores
// that the layers take in turn, in the order they are built, so that a
// layer writes its input gradient into the other store than the one that
// holds its output gradient (the next layer's input gradient, or the same
// tensor through an in-place ReLU) and the encoder's backward pass keeps
// two gradients, not one a layer.
func (r *registry) grad() *act {
	if r.grads[0] == nil {
		r.grads = [2]*store{r.store(), r.store()}
	}
	a := &act{st: r.grads[r.turn]}
	r.turn ^= 1
	return a
}

// store returns a new store owned by the model.
func (r *registry) store() *store {
	s := &store{}
	r.stores = append(r.stores, s)
	return s
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

// store is the memory of one or more activation buffers: one flat tensor,
// grown to the most that one of them asks for, and to want.
type store struct {
	t    kernels.Tensor
	gen  int // bumped when t is replaced, so that views of the old one are dropped
	want int // elements that the buffers will ask for (Encoder.Forward sets the gradients')
}

// grow makes s hold at least max(n, s.want) elements; its contents are lost
// when it grows.
func (s *store) grow(be kernels.Backend, n int) {
	n = max(n, s.want)
	if s.t != nil && kernels.Len(s.t) >= n {
		return
	}
	if s.t != nil {
		be.Free(s.t)
	}
	s.t = be.Alloc(kernels.Float32, n)
	s.gen++
}

// release frees s's tensor.
func (s *store) release(be kernels.Backend) {
	if s.t != nil {
		be.Free(s.t)
		s.t = nil
	}
}

// act is an activation buffer: a view of the leading elements of its
// store, which keeps the memory of the largest tensor asked of it (the
// largest batch seen).
type act struct {
	st    *store
	view  kernels.Tensor
	shape []int
	gen   int // st.gen when view was made
}

// get returns a tensor of the given shape (batch first).
func (a *act) get(be kernels.Backend, shape ...int) kernels.Tensor {
	if a.view != nil && a.gen == a.st.gen && slices.Equal(a.shape, shape) {
		return a.view
	}
	a.st.grow(be, kernels.Numel(shape))
	a.shape = append(a.shape[:0], shape...)
	// A clone, so that shape does not escape: the callers' variadic
	// slices stay on the stack on the every-step path above.
	a.view = be.View(a.st.t, 0, slices.Clone(shape)...)
	a.gen = a.st.gen
	return a.view
}

func shapeErr(name string, got, want []int) error {
	return fmt.Errorf("tensor %q has shape %v, want %v", name, got, want)
}
