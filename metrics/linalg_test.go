package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns a random symmetric positive definite d×d matrix,
// B B^T + d I, as rows.
func randomSPD(r *rand.Rand, d int) [][]float64 {
	b := make([]float64, d*d)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	a := make([][]float64, d)
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			for k := 0; k < d; k++ {
				a[i][j] += b[i*d+k] * b[j*d+k]
			}
		}
		a[i][i] += float64(d)
	}
	return a
}

// clone returns a deep copy of the rows a.
func clone(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i, row := range a {
		out[i] = append([]float64(nil), row...)
	}
	return out
}

// TestEigenSym checks the eigendecomposition against gonum's on random
// symmetric matrices of the sizes the page meets (d = C-1 up to 99), and
// A v = lambda v with orthonormal v.
func TestEigenSym(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 3, 9, 40, 99} {
		a := randomSPD(r, d)
		for i := range a { // make it indefinite too
			a[i][i] -= 2 * float64(d)
		}
		vals, vecs, ok := eigenSym(clone(a))
		if !ok {
			t.Fatalf("d=%d: did not converge", d)
		}
		sym := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				sym.SetSym(i, j, a[i][j])
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sym, false) {
			t.Fatalf("d=%d: gonum did not converge", d)
		}
		want := eig.Values(nil) // ascending
		scale := math.Max(math.Abs(want[0]), math.Abs(want[d-1]))
		for i, v := range vals {
			if w := want[d-1-i]; math.Abs(v-w) > 1e-12*scale {
				t.Errorf("d=%d: eigenvalue %d = %v, gonum %v", d, i, v, w)
			}
			if i > 0 && v > vals[i-1] {
				t.Errorf("d=%d: eigenvalues not decreasing at %d", d, i)
			}
		}
		for i, v := range vecs {
			for k := 0; k < d; k++ {
				av := 0.0
				for j := 0; j < d; j++ {
					av += a[k][j] * v[j]
				}
				if math.Abs(av-vals[i]*v[k]) > 1e-10*scale {
					t.Fatalf("d=%d: (A v - lambda v)[%d] = %v for eigenvector %d", d, k, av-vals[i]*v[k], i)
				}
			}
			for j, u := range vecs[:i+1] {
				dot := 0.0
				for k := range u {
					dot += u[k] * v[k]
				}
				if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(dot-want) > 1e-12 {
					t.Fatalf("d=%d: eigenvectors %d and %d: dot %v", d, j, i, dot)
				}
			}
		}
	}
}

// TestCholesky checks L L^T = A, the solves and the log determinant
// against gonum's, and the condition number on a matrix whose is known.
func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 2, 5, 99} {
		a := randomSPD(r, d)
		l, ok := cholesky(a)
		if !ok {
			t.Fatalf("d=%d: not positive definite", d)
		}
		for i := 0; i < d; i++ {
			for j := 0; j <= i; j++ {
				s := 0.0
				for k := 0; k <= j; k++ {
					s += l[i][k] * l[j][k]
				}
				if math.Abs(s-a[i][j]) > 1e-12*a[i][i] {
					t.Fatalf("d=%d: (L L^T)[%d][%d] = %v, A = %v", d, i, j, s, a[i][j])
				}
			}
		}
		sym := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				sym.SetSym(i, j, a[i][j])
			}
		}
		var ch mat.Cholesky
		ch.Factorize(sym)
		f, err := factor("test", a)
		if err != nil {
			t.Fatal(err)
		}
		if want := ch.LogDet(); math.Abs(f.logdet-want) > 1e-10*math.Abs(want) {
			t.Errorf("d=%d: log det %v, gonum %v", d, f.logdet, want)
		}
		b := make([]float64, d)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		x := append([]float64(nil), b...)
		forward(l, x)
		backward(l, x)
		for i := 0; i < d; i++ { // A x = b
			s := 0.0
			for j := 0; j < d; j++ {
				s += a[i][j] * x[j]
			}
			if math.Abs(s-b[i]) > 1e-10 {
				t.Fatalf("d=%d: (A x - b)[%d] = %v", d, i, s-b[i])
			}
		}
		if c := cond1(a, l); c < ch.Cond()*(1-1e-9) {
			t.Errorf("d=%d: 1-norm condition number %v is below gonum's estimate %v", d, c, ch.Cond())
		}
	}
	if _, ok := cholesky([][]float64{{1, 2}, {2, 1}}); ok {
		t.Error("indefinite matrix: factorised")
	}
	diag := [][]float64{{4, 0, 0}, {0, 0.5, 0}, {0, 0, 2}}
	l, _ := cholesky(diag)
	if c := cond1(diag, l); math.Abs(c-8) > 1e-12 {
		t.Errorf("cond1(diag(4, 0.5, 2)) = %v, want 8", c)
	}
}
