package metrics

import (
	"math"
	"sort"
)

// The small dense linear algebra the metrics need (covariances of at most
// a few hundred dimensions): a Cholesky factorisation with its solves and
// condition number, and the eigendecomposition of a symmetric matrix. It
// is plain Go rather than gonum so that the page's WebAssembly does not
// carry LAPACK.

// cholesky returns the lower-triangular factor L of the symmetric matrix a
// (rows; only its lower triangle is read), a = L L^T, as rows of lengths
// 1..d, and false if a is not positive definite.
func cholesky(a [][]float64) ([][]float64, bool) {
	d := len(a)
	l := make([][]float64, d)
	for i := range l {
		l[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if !(s > 0) {
					return nil, false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l, true
}

// forward overwrites v with L^-1 v (L from cholesky).
func forward(l [][]float64, v []float64) {
	for i, row := range l {
		t := v[i]
		for j := 0; j < i; j++ {
			t -= row[j] * v[j]
		}
		v[i] = t / row[i]
	}
}

// backward overwrites v with L^-T v.
func backward(l [][]float64, v []float64) {
	for i := len(l) - 1; i >= 0; i-- {
		t := v[i]
		for j := i + 1; j < len(l); j++ {
			t -= l[j][i] * v[j]
		}
		v[i] = t / l[i][i]
	}
}

// cond1 returns the condition number in the 1-norm, |a|_1 |a^-1|_1, of the
// symmetric positive definite matrix a whose Cholesky factor is l.
func cond1(a, l [][]float64) float64 {
	d := len(a)
	norm, inv := 0.0, 0.0
	col := make([]float64, d)
	for j := 0; j < d; j++ {
		s := 0.0
		for i := 0; i < d; i++ {
			s += math.Abs(a[i][j])
			col[i] = 0
		}
		norm = math.Max(norm, s)
		col[j] = 1
		forward(l, col)
		backward(l, col)
		s = 0
		for _, v := range col {
			s += math.Abs(v)
		}
		inv = math.Max(inv, s)
	}
	return norm * inv
}

// maxSweeps bounds the sweeps of eigenSym; the cyclic Jacobi method
// converges quadratically, in well under 20 sweeps for the sizes here.
const maxSweeps = 60

// eigenSym returns the eigenvalues of the symmetric matrix a (rows; it is
// overwritten) in decreasing order and the matching unit eigenvectors, by
// the cyclic Jacobi method, and false if it did not converge.
func eigenSym(a [][]float64) (vals []float64, vecs [][]float64, ok bool) {
	d := len(a)
	v := make([][]float64, d) // eigenvectors as columns
	for i := range v {
		v[i] = make([]float64, d)
		v[i][i] = 1
	}
	for sweep := 0; ; sweep++ {
		off, all := 0.0, 0.0
		for p := 0; p < d; p++ {
			for q := 0; q < d; q++ {
				if p != q {
					off += a[p][q] * a[p][q]
				}
				all += a[p][q] * a[p][q]
			}
		}
		if off <= 1e-26*all {
			break
		}
		if sweep == maxSweeps {
			return nil, nil, false
		}
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				if a[p][q] != 0 {
					rotate(a, v, p, q)
				}
			}
		}
	}
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a[order[i]][order[i]] > a[order[j]][order[j]] })
	vals = make([]float64, d)
	vecs = make([][]float64, d)
	for i, c := range order {
		vals[i] = a[c][c]
		vecs[i] = make([]float64, d)
		for j := range vecs[i] {
			vecs[i][j] = v[j][c]
		}
	}
	return vals, vecs, true
}

// rotate applies the Jacobi rotation that zeroes a[p][q] (p < q): a becomes
// J^T a J and v becomes v J.
func rotate(a, v [][]float64, p, q int) {
	theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
	t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
	if math.IsInf(theta*theta, 0) {
		t = 1 / (2 * math.Abs(theta))
	}
	if theta < 0 {
		t = -t
	}
	c := 1 / math.Sqrt(t*t+1)
	s := t * c
	for _, m := range [][][]float64{a, v} {
		for k := range m {
			mp, mq := m[k][p], m[k][q]
			m[k][p] = c*mp - s*mq
			m[k][q] = s*mp + c*mq
		}
	}
	for k := range a {
		ap, aq := a[p][k], a[q][k]
		a[p][k] = c*ap - s*aq
		a[q][k] = s*ap + c*aq
	}
}
