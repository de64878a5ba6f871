package model

import (
	"fmt"

	"github.com/deeplda/deeplda/kernels"
)

// Layer is one stage of an encoder. Forward keeps what Backward needs;
// Backward writes the gradients of the layer's parameters and returns the
// gradient of its input (nil when needDx is false), which shares its
// memory with other layers' input gradients (registry.grad): it stays
// valid until two more layers below this one have written theirs.
type Layer interface {
	Forward(x kernels.Tensor, train bool) kernels.Tensor
	Backward(dy kernels.Tensor, needDx bool) kernels.Tensor
}

// Linear is y = x W^T + b with W [out, in] (PyTorch's nn.Linear).
type Linear struct {
	be      kernels.Backend
	W, B    *Param
	x       kernels.Tensor
	y, dx   *act
	in, out int
}

func newLinear(r *registry, name string, in, out int) *Linear {
	return &Linear{
		be: r.be, in: in, out: out, y: r.act(), dx: r.grad(),
		W: r.param(name+".weight", uniform(in), out, in),
		B: r.param(name+".bias", uniform(in), out),
	}
}

// Forward computes y = x W^T + b.
func (l *Linear) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	l.x = x
	y := l.y.get(l.be, x.Shape()[0], l.out)
	l.be.MatMul(y, x, l.W.Value, l.B.Value, false, true)
	return y
}

// Backward computes dW = dy^T x, db = sum dy and dx = dy W.
func (l *Linear) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	l.paramGrads(dy)
	if !needDx {
		return nil
	}
	dx := l.dx.get(l.be, dy.Shape()[0], l.in)
	l.be.MatMul(dx, dy, l.W.Value, nil, false, false)
	return dx
}

// paramGrads computes dW = dy^T x and db = sum dy.
func (l *Linear) paramGrads(dy kernels.Tensor) {
	l.be.MatMul(l.W.Grad, dy, l.x, nil, true, false)
	l.be.BiasGrad(l.B.Grad, dy)
}

// forwardReLU computes y = max(x W^T + b, 0), Forward and a ReLU in one
// product.
func (l *Linear) forwardReLU(x kernels.Tensor, f kernels.ReLUFuser) kernels.Tensor {
	l.x = x
	y := l.y.get(l.be, x.Shape()[0], l.out)
	f.MatMulReLU(y, x, l.W.Value, l.B.Value, false, true)
	return y
}

// backwardMasked is Backward followed by the backward pass of the ReLU
// before the layer (whose output is y): dx = dy W where y > 0, else 0, in
// one product.
func (l *Linear) backwardMasked(dy, y kernels.Tensor, f kernels.ReLUFuser) kernels.Tensor {
	l.paramGrads(dy)
	dx := l.dx.get(l.be, dy.Shape()[0], l.in)
	f.MatMulMasked(dx, dy, l.W.Value, y, false, false)
	return dx
}

// Conv2d is a 3x3, stride 1, padding 1 convolution with bias (PyTorch's
// nn.Conv2d(in, out, 3, padding=1)).
type Conv2d struct {
	be      kernels.Backend
	W, B    *Param
	p       kernels.ConvParams
	x       kernels.Tensor
	y, dx   *act
	in, out int
}

func newConv2d(r *registry, name string, in, out int) *Conv2d {
	const k = 3
	return &Conv2d{
		be: r.be, in: in, out: out, p: kernels.ConvParams{Stride: 1, Pad: 1}, y: r.act(), dx: r.grad(),
		W: r.param(name+".weight", uniform(in*k*k), out, in, k, k),
		B: r.param(name+".bias", uniform(in*k*k), out),
	}
}

// Forward convolves x.
func (c *Conv2d) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	c.x = x
	s := x.Shape()
	y := c.y.get(c.be, s[0], c.out, c.p.OutSize(s[2], 3), c.p.OutSize(s[3], 3))
	c.be.Conv2D(y, x, c.W.Value, c.B.Value, c.p)
	return y
}

// Backward computes the filter, bias and (when asked) input gradients.
func (c *Conv2d) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	c.be.Conv2DBackwardFilter(c.W.Grad, dy, c.x, c.p)
	c.be.BiasGrad(c.B.Grad, dy)
	if !needDx {
		return nil
	}
	dx := c.dx.get(c.be, c.x.Shape()...)
	c.be.Conv2DBackwardData(dx, dy, c.W.Value, c.p)
	return dx
}

// BatchNorm2d is PyTorch's nn.BatchNorm2d (momentum 0.1, eps 1e-5).
type BatchNorm2d struct {
	be              kernels.Backend
	Gamma, Beta     *Param
	RunMean, RunVar *Buffer
	Tracked         *int // num_batches_tracked
	mean, invStd    kernels.Tensor
	x               kernels.Tensor
	y, dx           *act
	Momentum, Eps   float32
}

func newBatchNorm2d(r *registry, name string, c int) *BatchNorm2d {
	tracked := new(int)
	r.counts[name+".num_batches_tracked"] = tracked
	return &BatchNorm2d{
		be:       r.be,
		Gamma:    r.param(name+".weight", constant(1), c),
		Beta:     r.param(name+".bias", constant(0), c),
		RunMean:  r.buffer(name+".running_mean", 0, c),
		RunVar:   r.buffer(name+".running_var", 1, c),
		Tracked:  tracked,
		mean:     r.alloc(c),
		invStd:   r.alloc(c),
		y:        r.act(),
		dx:       r.grad(),
		Momentum: 0.1, Eps: 1e-5,
	}
}

// Forward normalises with batch statistics in training (updating the running
// estimates) and with the running estimates otherwise.
func (b *BatchNorm2d) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	b.x = x
	y := b.y.get(b.be, x.Shape()...)
	if train {
		b.be.BatchNormTrain(y, b.mean, b.invStd, x, b.Gamma.Value, b.Beta.Value, b.RunMean.T, b.RunVar.T, b.Momentum, b.Eps)
		*b.Tracked++
	} else {
		b.be.BatchNormEval(y, x, b.Gamma.Value, b.Beta.Value, b.RunMean.T, b.RunVar.T, b.Eps)
	}
	return y
}

// Backward computes the gradients of the training-mode forward.
func (b *BatchNorm2d) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	dx := b.dx.get(b.be, b.x.Shape()...)
	b.be.BatchNormBackward(dx, b.Gamma.Grad, b.Beta.Grad, dy, b.x, b.Gamma.Value, b.mean, b.invStd)
	return dx
}

// ReLU is max(x, 0), computed in place: the layer before it must not need its
// own output in its backward pass (true of Linear, Conv2d and BatchNorm2d).
type ReLU struct {
	be kernels.Backend
	y  kernels.Tensor
}

// Forward rectifies x in place.
func (r *ReLU) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	r.be.ReLU(x, x)
	r.y = x
	return x
}

// Backward masks dy in place.
func (r *ReLU) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	r.be.ReLUBackward(dy, dy, r.y)
	return dy
}

// MaxPool2 is a 2x2, stride 2 max pool.
type MaxPool2 struct {
	be    kernels.Backend
	x     kernels.Tensor
	y, dx *act
}

// Forward pools x.
func (m *MaxPool2) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	m.x = x
	s := x.Shape()
	y := m.y.get(m.be, s[0], s[1], s[2]/2, s[3]/2)
	m.be.MaxPool2(y, x)
	return y
}

// Backward routes dy to the maxima.
func (m *MaxPool2) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	dx := m.dx.get(m.be, m.x.Shape()...)
	m.be.MaxPool2Backward(dx, dy, m.x)
	return dx
}

// GlobalAvgPool averages each channel over the image.
type GlobalAvgPool struct {
	be    kernels.Backend
	shape []int
	y, dx *act
}

// Forward averages x[N,C,H,W] into [N,C].
func (g *GlobalAvgPool) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	g.shape = x.Shape()
	y := g.y.get(g.be, g.shape[0], g.shape[1])
	g.be.GlobalAvgPool(y, x)
	return y
}

// Backward spreads dy over the image.
func (g *GlobalAvgPool) Backward(dy kernels.Tensor, needDx bool) kernels.Tensor {
	dx := g.dx.get(g.be, g.shape...)
	g.be.GlobalAvgPoolBackward(dx, dy)
	return dx
}

// Encoder maps inputs to embeddings z through a sequence of layers (none for
// the identity encoder of classical LDA).
type Encoder struct {
	Kind   EncoderKind
	Layers []Layer
	// fuser, when the backend has it, runs each Linear layer followed by
	// a ReLU as one product forward and one backward.
	fuser kernels.ReLUFuser
	// grads are the stores of the layers' input gradients (registry.grad).
	grads [2]*store
}

// Forward runs the layers in order. In training it sizes the gradients'
// stores for the backward pass: its largest input gradient is the largest
// input of a layer after the first.
func (e *Encoder) Forward(x kernels.Tensor, train bool) kernels.Tensor {
	need := 0
	for i := 0; i < len(e.Layers); i++ {
		if i > 0 {
			need = max(need, kernels.Numel(x.Shape()))
		}
		if l, r := e.fused(i, i+1); r != nil {
			x = l.forwardReLU(x, e.fuser)
			r.y = x
			i++
			continue
		}
		x = e.Layers[i].Forward(x, train)
	}
	if train {
		for _, s := range e.grads {
			if s != nil {
				s.want = need
			}
		}
	}
	return x
}

// Backward runs the layers in reverse; the input gradient is not computed.
func (e *Encoder) Backward(dz kernels.Tensor) {
	for i := len(e.Layers) - 1; i >= 0; i-- {
		if l, r := e.fused(i, i-1); r != nil {
			dz = l.backwardMasked(dz, r.y, e.fuser)
			i-- // the ReLU's backward pass is done
			continue
		}
		dz = e.Layers[i].Backward(dz, i > 0)
	}
}

// fused returns layers li and ri when they are a Linear layer and a ReLU
// and the backend fuses the two, r nil otherwise.
func (e *Encoder) fused(li, ri int) (l *Linear, r *ReLU) {
	if e.fuser == nil || min(li, ri) < 0 || max(li, ri) >= len(e.Layers) {
		return nil, nil
	}
	l, okL := e.Layers[li].(*Linear)
	r, okR := e.Layers[ri].(*ReLU)
	if !okL || !okR {
		return nil, nil
	}
	return l, r
}

// newEncoder builds an encoder of the given kind for inputs with inShape
// (per example) and embeddings of dimension d.
func newEncoder(r *registry, kind EncoderKind, inShape []int, d int) (*Encoder, error) {
	e := &Encoder{Kind: kind}
	e.fuser, _ = r.be.(kernels.ReLUFuser)
	switch kind {
	case EncoderNone:
		if len(inShape) != 1 || inShape[0] != d {
			return nil, fmt.Errorf("the identity encoder needs flat inputs of dimension %d, got %v", d, inShape)
		}
	case EncoderMLP:
		if len(inShape) != 1 {
			return nil, fmt.Errorf("the MLP encoder needs flat inputs, got %v", inShape)
		}
		e.Layers = []Layer{
			newLinear(r, "enc.fc1", inShape[0], 32),
			&ReLU{be: r.be},
			newLinear(r, "enc.fc2", 32, d),
		}
	case EncoderConvNet:
		if len(inShape) != 3 || inShape[1] < 4 || inShape[2] < 4 {
			return nil, fmt.Errorf("the ConvNet encoder needs [C,H,W] images of at least 4x4, got %v", inShape)
		}
		chans := [][2]int{{inShape[0], 64}, {64, 64}, {64, 128}, {128, 128}, {128, 256}, {256, 256}}
		for i, c := range chans {
			n := i + 1
			e.Layers = append(e.Layers,
				newConv2d(r, fmt.Sprintf("enc.conv%d", n), c[0], c[1]),
				newBatchNorm2d(r, fmt.Sprintf("enc.bn%d", n), c[1]),
				&ReLU{be: r.be})
			if n == 2 || n == 4 {
				e.Layers = append(e.Layers, &MaxPool2{be: r.be, y: r.act(), dx: r.grad()})
			}
		}
		e.Layers = append(e.Layers, &GlobalAvgPool{be: r.be, y: r.act(), dx: r.grad()}, newLinear(r, "enc.proj", 256, d))
	default:
		return nil, fmt.Errorf("unknown encoder %v (want none, mlp or convnet)", kind)
	}
	e.grads = r.grads
	return e, nil
}
