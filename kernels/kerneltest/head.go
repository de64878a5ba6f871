package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// ldaSizes are the (N, C, D) of the LDA head tests, from the smallest
// possible head to one with D = C-1 = 99, then N > 256 and D > 256 (a
// column of L^-1 spans several rows of a 256-wide workgroup).
var ldaSizes = [][3]int{{1, 2, 1}, {7, 4, 3}, {65, 10, 9}, {33, 100, 99}, {300, 7, 5}, {5, 3, 300}}

// ldaViewSize is the size of the LDA head subtests whose operands are views.
var ldaViewSize = [3]int{65, 10, 9}

var covKinds = []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full}

// ldaInputs returns z[N,D], prior logits[C], mu[C,D] and the covariance
// parameter. log_var is N(0, 0.3^2); raw_tril has a diagonal around 0.55
// (softplus 1, so that L is near the identity), strict lower entries
// N(0, 0.3^2/D) (which keeps L well conditioned at D = 99 and the
// discriminants around -D) and N(0,1) garbage above the diagonal, which the
// head must ignore.
func ldaInputs(e *env, n, c, d int, kind kernels.CovKind) (z, prior, mu, cov []float32) {
	z, prior, mu = e.normal(n*d, 0, 1), e.normal(c, 0, 0.5), e.normal(c*d, 0, 1)
	switch kind {
	case kernels.Spherical:
		cov = e.normal(1, 0, 0.3)
	case kernels.Diagonal:
		cov = e.normal(d, 0, 0.3)
	case kernels.Full:
		cov = make([]float32, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				switch {
				case j < i:
					cov[i*d+j] = float32(0.3 / math.Sqrt(float64(d)) * e.rng.NormFloat64())
				case j == i:
					cov[i*d+j] = float32(0.55 + 0.2*e.rng.NormFloat64())
				default:
					cov[i*d+j] = float32(e.rng.NormFloat64())
				}
			}
		}
	}
	return z, prior, mu, cov
}

func ldaName(kind kernels.CovKind, s [3]int) string {
	return fmt.Sprintf("%v/N%d,C%d,D%d", kind, s[0], s[1], s[2])
}

// testLDA checks the discriminants for every covariance kind, and with
// every operand a view. Their float32 error comes from the whitening (sums
// of D terms, and for the full head the triangular inverse) and is around
// 1e-6 of max|delta|.
func testLDA(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, kind := range covKinds {
		for _, s := range ldaSizes {
			t.Run(ldaName(kind, s), func(t *testing.T) { checkLDA(newEnv(t, b, tol), s, kind) })
		}
		t.Run("views/"+ldaName(kind, ldaViewSize), func(t *testing.T) { checkLDA(newViewEnv(t, b, tol), ldaViewSize, kind) })
	}
}

// checkLDA runs one case of LDA in e (its operands views when e has views) and compares the outputs with package ref's.
func checkLDA(e *env, s [3]int, kind kernels.CovKind) {
	n, c, d := s[0], s[1], s[2]
	zd, pd, md, cd := ldaInputs(e, n, c, d, kind)
	cs := kind.CovShape(d)
	ins := e.ins(arg{"z", zd, []int{n, d}}, arg{"prior", pd, []int{c}}, arg{"mu", md, []int{c, d}}, arg{"cov", cd, cs})
	delta := e.out(n, c)
	e.desc = fmt.Sprintf("LDA(z [%d %d], mu [%d %d], cov %v, %v, views %v)", n, d, c, d, cs, kind, e.views)
	e.b.LDA(delta, ins[0], ins[1], ins[2], ins[3], kind)
	want := make([]float64, n*c)
	ref.LDA(want, F64(zd), F64(pd), F64(md), F64(cd), n, c, d, kind)
	e.check("delta", delta, want)
	e.unchanged()
}

// testLDABackward checks the gradients of the head for a random ddelta, and
// with every operand a view (dprior, dmu and dcov views of one tensor, as
// in the model's gradient arena). The covariance gradient sums N*C*D
// products in stages (326700 at the largest size) and is the least
// accurate output, around 1e-6 of its magnitude.
func testLDABackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, kind := range covKinds {
		for _, s := range ldaSizes {
			t.Run(ldaName(kind, s), func(t *testing.T) { checkLDABackward(newEnv(t, b, tol), s, kind) })
		}
		t.Run("views/"+ldaName(kind, ldaViewSize), func(t *testing.T) { checkLDABackward(newViewEnv(t, b, tol), ldaViewSize, kind) })
	}
}

// checkLDABackward runs one case of LDABackward in e (its operands views when e has views) and compares the outputs with package ref's.
func checkLDABackward(e *env, s [3]int, kind kernels.CovKind) {
	n, c, d := s[0], s[1], s[2]
	zd, pd, md, cd := ldaInputs(e, n, c, d, kind)
	gd := e.normal(n*c, 0, 0.1)
	cs := kind.CovShape(d)
	ins := e.ins(arg{"ddelta", gd, []int{n, c}}, arg{"z", zd, []int{n, d}}, arg{"prior", pd, []int{c}}, arg{"mu", md, []int{c, d}}, arg{"cov", cd, cs})
	dz, grads := e.out(n, d), e.outs([]int{c}, []int{c, d}, cs)
	e.desc = fmt.Sprintf("LDABackward(z [%d %d], mu [%d %d], cov %v, %v, views %v)", n, d, c, d, cs, kind, e.views)
	e.b.LDABackward(dz, grads[0], grads[1], grads[2], ins[0], ins[1], ins[2], ins[3], ins[4], kind)
	wz, wp, wm, wc := make([]float64, n*d), make([]float64, c), make([]float64, c*d), make([]float64, len(cd))
	ref.LDABackward(wz, wp, wm, wc, F64(gd), F64(zd), F64(pd), F64(md), F64(cd), n, c, d, kind)
	e.check("dz", dz, wz)
	e.check("dprior", grads[0], wp)
	e.check("dmu", grads[1], wm)
	e.check("dcov", grads[2], wc)
	e.unchanged()
}
