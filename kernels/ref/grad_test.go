package ref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// randn returns n standard normal float64 values.
func randn(rng *rand.Rand, n int, scale float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64() * scale
	}
	return s
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// checkGrad compares an analytic gradient of the scalar f with respect to x
// against central differences, in float64.
func checkGrad(t *testing.T, name string, x []float64, analytic []float64, f func() float64) {
	t.Helper()
	const h = 1e-6
	for i := range x {
		orig := x[i]
		x[i] = orig + h
		fp := f()
		x[i] = orig - h
		fm := f()
		x[i] = orig
		num := (fp - fm) / (2 * h)
		if d := math.Abs(num - analytic[i]); d > 1e-6+1e-5*math.Abs(num) {
			t.Errorf("%s[%d]: analytic %.9g, finite difference %.9g", name, i, analytic[i], num)
		}
	}
}

func TestMatMulGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, n, k := 3, 4, 5
	for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		a, b, bias := randn(rng, m*k, 1), randn(rng, k*n, 1), randn(rng, n, 1)
		r := randn(rng, m*n, 1)
		c := make([]float64, m*n)
		f := func() float64 { MatMul(c, a, b, bias, m, n, k, tr[0], tr[1]); return dot(c, r) }
		// dA = r op(B)^T (or its transpose), dB likewise, dbias = column sums of r.
		da, db, dbias := make([]float64, m*k), make([]float64, k*n), make([]float64, n)
		if tr[0] {
			MatMul(da, b, r, nil, k, m, n, tr[1], true) // (op(B) r^T) = dA^T stored k×m
		} else {
			MatMul(da, r, b, nil, m, k, n, false, !tr[1])
		}
		if tr[1] {
			MatMul(db, r, a, nil, n, k, m, true, tr[0]) // r^T op(A) stored n×k
		} else {
			MatMul(db, a, r, nil, k, n, m, !tr[0], false)
		}
		BiasGrad(dbias, r, m, n, 1)
		checkGrad(t, "a", a, da, f)
		checkGrad(t, "b", b, db, f)
		checkGrad(t, "bias", bias, dbias, f)
	}
}

func TestConvGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range []Conv{
		{N: 2, Ci: 3, H: 5, W: 4, Co: 2, K: 3, Stride: 1, Pad: 1},
		{N: 1, Ci: 2, H: 6, W: 7, Co: 3, K: 3, Stride: 2, Pad: 0},
	} {
		p := kernels.ConvParams{Stride: g.Stride, Pad: g.Pad}
		g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
		x, w, bias := randn(rng, g.N*g.Ci*g.H*g.W, 1), randn(rng, g.Co*g.Ci*g.K*g.K, 1), randn(rng, g.Co, 1)
		r := randn(rng, g.N*g.Co*g.Ho*g.Wo, 1)
		y := make([]float64, len(r))
		f := func() float64 { Conv2D(y, x, w, bias, g); return dot(y, r) }
		dx, dw, db := make([]float64, len(x)), make([]float64, len(w)), make([]float64, g.Co)
		Conv2DBackwardData(dx, r, w, g)
		Conv2DBackwardFilter(dw, r, x, g)
		BiasGrad(db, r, g.N, g.Co, g.Ho*g.Wo)
		checkGrad(t, "x", x, dx, f)
		checkGrad(t, "w", w, dw, f)
		checkGrad(t, "bias", bias, db, f)
	}
}

func TestBatchNormGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, c, hw := 3, 2, 5
	x, gamma, beta := randn(rng, n*c*hw, 2), randn(rng, c, 1), randn(rng, c, 1)
	r := randn(rng, n*c*hw, 1)
	y, mean, invStd := make([]float64, len(x)), make([]float64, c), make([]float64, c)
	f := func() float64 {
		rm, rv := make([]float64, c), make([]float64, c)
		BatchNormTrain(y, mean, invStd, x, gamma, beta, rm, rv, n, c, hw, 0.1, 1e-5)
		return dot(y, r)
	}
	f()
	dx, dg, db := make([]float64, len(x)), make([]float64, c), make([]float64, c)
	BatchNormBackward(dx, dg, db, r, x, gamma, mean, invStd, n, c, hw)
	checkGrad(t, "x", x, dx, f)
	checkGrad(t, "gamma", gamma, dg, f)
	checkGrad(t, "beta", beta, db, f)
}

func TestPoolAndReLUGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	nc, h, w := 3, 5, 4 // odd height exercises floor mode
	x := randn(rng, nc*h*w, 1)
	r := randn(rng, nc*(h/2)*(w/2), 1)
	y := make([]float64, len(r))
	f := func() float64 { MaxPool2(y, x, nc, h, w); return dot(y, r) }
	dx := make([]float64, len(x))
	MaxPool2Backward(dx, r, x, nc, h, w)
	checkGrad(t, "maxpool", x, dx, f)

	r2 := randn(rng, nc, 1)
	y2 := make([]float64, nc)
	g := func() float64 { GlobalAvgPool(y2, x, nc, h*w); return dot(y2, r2) }
	dx2 := make([]float64, len(x))
	GlobalAvgPoolBackward(dx2, r2, nc, h*w)
	checkGrad(t, "avgpool", x, dx2, g)

	r3 := randn(rng, len(x), 1)
	y3 := make([]float64, len(x))
	relu := func() float64 { ReLU(y3, x); return dot(y3, r3) }
	relu()
	dx3 := make([]float64, len(x))
	ReLUBackward(dx3, r3, y3)
	checkGrad(t, "relu", x, dx3, relu)
}

func TestLDAAndLossGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n, c, d := 5, 4, 3
	for _, kind := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
		for _, loss := range []kernels.LossKind{kernels.NLL, kernels.CE, kernels.DNLL} {
			z, prior, mu := randn(rng, n*d, 1.5), randn(rng, c, 0.5), randn(rng, c*d, 1)
			cov := randn(rng, kernels.Numel(kind.CovShape(d)), 0.3)
			y := make([]int32, n)
			for i := range y {
				y[i] = int32(rng.IntN(c))
			}
			delta, ddelta := make([]float64, n*c), make([]float64, n*c)
			f := func() float64 {
				LDA(delta, z, prior, mu, cov, n, c, d, kind)
				s, _ := Loss(nil, delta, y, n, c, loss, 0.5)
				return s / float64(n)
			}
			f()
			Loss(ddelta, delta, y, n, c, loss, 0.5)
			dz, dprior, dmu, dcov := make([]float64, len(z)), make([]float64, c), make([]float64, len(mu)), make([]float64, len(cov))
			LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov, n, c, d, kind)
			name := kind.String() + "/" + loss.String() + "/"
			checkGrad(t, name+"z", z, dz, f)
			checkGrad(t, name+"prior", prior, dprior, f)
			checkGrad(t, name+"mu", mu, dmu, f)
			// The forward pass ignores raw_tril above the diagonal, so the
			// finite differences there are zero and so must the gradient be.
			checkGrad(t, name+"cov", cov, dcov, f)
		}
	}
}

func TestAdamMatchesFormula(t *testing.T) {
	// One step from zero moments moves each parameter by lr*sign(g) (up to eps).
	p := []float64{1, -2, 3}
	g := []float64{0.5, -0.25, 1e-3}
	m, v := make([]float64, 3), make([]float64, 3)
	Adam(p, g, m, v, kernels.AdamParams{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1})
	want := []float64{0.9, -1.9, 2.9}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-6 {
			t.Errorf("param %d = %g, want %g", i, p[i], want[i])
		}
	}
}
