package model

import (
	"fmt"
	"math"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// Head maps embeddings z[N,D] to per-class scores [N,C]: the LDA
// discriminants delta, or the logits of a linear softmax layer.
type Head interface {
	Forward(z kernels.Tensor) kernels.Tensor
	// Backward writes the head's parameter gradients and returns dz.
	Backward(dscores kernels.Tensor) kernels.Tensor
}

// LDAHead is the Gaussian head: priors pi = softmax(prior_logits), means mu
// and one shared covariance parameterised as Cov says.
type LDAHead struct {
	be                  kernels.Backend
	Cov                 kernels.CovKind
	Prior, Mu, CovParam *Param
	z                   kernels.Tensor
	delta, dz           *act
	c, d                int
}

// newLDAHead initialises the head as the paper does: pi_c = 1/C,
// mu_c ~ N(0, 6^2/(2d)), sigma^2 = 1 (log_var = 0); the full head starts
// from raw_tril = 0 as the authors' code does.
func newLDAHead(r *registry, c, d int, cov kernels.CovKind) *LDAHead {
	h := &LDAHead{be: r.be, Cov: cov, c: c, d: d, delta: r.act(), dz: r.act()}
	h.Prior = r.param("head.prior_logits", constant(0), c)
	h.Mu = r.param("head.mu", normal(6/math.Sqrt(float64(2*d))), c, d)
	name := "head.log_var"
	if cov == kernels.Full {
		name = "head.raw_tril"
	}
	h.CovParam = r.param(name, constant(0), cov.CovShape(d)...)
	return h
}

// Forward computes delta.
func (h *LDAHead) Forward(z kernels.Tensor) kernels.Tensor {
	h.z = z
	delta := h.delta.get(h.be, z.Shape()[0], h.c)
	h.be.LDA(delta, z, h.Prior.Value, h.Mu.Value, h.CovParam.Value, h.Cov)
	return delta
}

// Backward computes the head's gradients and dz.
func (h *LDAHead) Backward(ddelta kernels.Tensor) kernels.Tensor {
	dz := h.dz.get(h.be, h.z.Shape()...)
	h.be.LDABackward(dz, h.Prior.Grad, h.Mu.Grad, h.CovParam.Grad, ddelta, h.z, h.Prior.Value, h.Mu.Value, h.CovParam.Value, h.Cov)
	return dz
}

// SoftmaxHead is the paper's baseline: a linear layer R^d -> R^C whose
// outputs are the logits of a softmax.
type SoftmaxHead struct {
	*Linear
}

// Forward computes the logits.
func (h SoftmaxHead) Forward(z kernels.Tensor) kernels.Tensor { return h.Linear.Forward(z, true) }

// Backward computes the layer's gradients and dz.
func (h SoftmaxHead) Backward(d kernels.Tensor) kernels.Tensor { return h.Linear.Backward(d, true) }

func newHead(r *registry, kind HeadKind, c, d int, cov kernels.CovKind) (Head, error) {
	switch kind {
	case HeadLDA:
		return newLDAHead(r, c, d, cov), nil
	case HeadSoftmax:
		return SoftmaxHead{newLinear(r, "head.linear", d, c)}, nil
	}
	return nil, fmt.Errorf("unknown head %v (want lda or softmax)", kind)
}

// Gaussian is the class-conditional model of an LDA head, read back to the
// host in float64: priors, means and the shared covariance.
type Gaussian struct {
	Pi     []float64
	Mu     [][]float64
	Sigma  [][]float64
	LogDet float64 // log det Sigma
}

// Gaussian reads the LDA head's parameters back and returns its Gaussian
// model. It fails for a softmax head.
func (m *Model) Gaussian() (Gaussian, error) {
	h, ok := m.Head.(*LDAHead)
	if !ok {
		return Gaussian{}, fmt.Errorf("the %s head has no Gaussian model", m.Spec.Head)
	}
	read := func(p *Param) ([]float64, error) {
		v, err := m.Backend.Read(p.Value)
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out, err
	}
	prior, err := read(h.Prior)
	if err != nil {
		return Gaussian{}, err
	}
	mu, err := read(h.Mu)
	if err != nil {
		return Gaussian{}, err
	}
	cov, err := read(h.CovParam)
	if err != nil {
		return Gaussian{}, err
	}
	c, d := h.c, h.d
	g := Gaussian{Mu: make([][]float64, c), Sigma: make([][]float64, d)}
	for _, lp := range ref.LogSoftmax(prior) {
		g.Pi = append(g.Pi, math.Exp(lp))
	}
	for k := range g.Mu {
		g.Mu[k] = mu[k*d : (k+1)*d]
	}
	w := ref.NewWhitening(cov, d, h.Cov)
	g.LogDet = w.LogDet
	for i := range g.Sigma {
		g.Sigma[i] = make([]float64, d)
	}
	switch h.Cov {
	case kernels.Spherical:
		for i := 0; i < d; i++ {
			g.Sigma[i][i] = math.Exp(cov[0])
		}
	case kernels.Diagonal:
		for i := 0; i < d; i++ {
			g.Sigma[i][i] = math.Exp(cov[i])
		}
	case kernels.Full:
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var s float64
				for k := 0; k <= min(i, j); k++ {
					s += w.L[i*d+k] * w.L[j*d+k]
				}
				g.Sigma[i][j] = s
			}
		}
	}
	return g, nil
}
