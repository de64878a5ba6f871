package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// ldaSizes are the (N, C, D) of the LDA head tests, from the smallest
// possible head to one with D = C-1 = 99.
var ldaSizes = [][3]int{{1, 2, 1}, {7, 4, 3}, {65, 10, 9}, {33, 100, 99}}

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

// testLDA checks the discriminants for every covariance kind. Their float32
// error comes from the whitening (sums of D terms, and for the full head the
// triangular inverse) and is around 1e-6 of max|delta|.
func testLDA(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, kind := range covKinds {
		for _, s := range ldaSizes {
			t.Run(ldaName(kind, s), func(t *testing.T) {
				e := newEnv(t, b, tol)
				n, c, d := s[0], s[1], s[2]
				zd, pd, md, cd := ldaInputs(e, n, c, d, kind)
				cs := kind.CovShape(d)
				z, prior, mu, cov := e.in("z", zd, n, d), e.in("prior", pd, c), e.in("mu", md, c, d), e.in("cov", cd, cs...)
				delta := e.out(n, c)
				e.desc = fmt.Sprintf("LDA(z [%d %d], mu [%d %d], cov %v, %v)", n, d, c, d, cs, kind)
				b.LDA(delta, z, prior, mu, cov, kind)
				want := make([]float64, n*c)
				ref.LDA(want, F64(zd), F64(pd), F64(md), F64(cd), n, c, d, kind)
				e.check("delta", delta, want)
				e.unchanged()
			})
		}
	}
}

// testLDABackward checks the gradients of the head for a random ddelta. The
// covariance gradient sums N*C*D products in stages (326700 at the largest
// size) and is the least accurate output, around 1e-6 of its magnitude.
func testLDABackward(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, kind := range covKinds {
		for _, s := range ldaSizes {
			t.Run(ldaName(kind, s), func(t *testing.T) {
				e := newEnv(t, b, tol)
				n, c, d := s[0], s[1], s[2]
				zd, pd, md, cd := ldaInputs(e, n, c, d, kind)
				gd := e.normal(n*c, 0, 0.1)
				cs := kind.CovShape(d)
				dd := e.in("ddelta", gd, n, c)
				z, prior, mu, cov := e.in("z", zd, n, d), e.in("prior", pd, c), e.in("mu", md, c, d), e.in("cov", cd, cs...)
				dz, dprior, dmu, dcov := e.out(n, d), e.out(c), e.out(c, d), e.out(cs...)
				e.desc = fmt.Sprintf("LDABackward(z [%d %d], mu [%d %d], cov %v, %v)", n, d, c, d, cs, kind)
				b.LDABackward(dz, dprior, dmu, dcov, dd, z, prior, mu, cov, kind)
				wz, wp, wm, wc := make([]float64, n*d), make([]float64, c), make([]float64, c*d), make([]float64, len(cd))
				ref.LDABackward(wz, wp, wm, wc, F64(gd), F64(zd), F64(pd), F64(md), F64(cd), n, c, d, kind)
				e.check("dz", dz, wz)
				e.check("dprior", dprior, wp)
				e.check("dmu", dmu, wm)
				e.check("dcov", dcov, wc)
				e.unchanged()
			})
		}
	}
}
