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

// eigenSym returns the eigenvalues of the symmetric matrix a (rows; only
// its upper triangle is read) in decreasing order and the matching unit
// eigenvectors, by the cyclic Jacobi method, and false if it did not
// converge.
func eigenSym(a [][]float64) (vals []float64, vecs [][]float64, ok bool) {
	n := len(a)
	m := make([]float64, n*n) // a, row-major; only the upper triangle is kept up to date
	v := make([]float64, n*n) // the eigenvectors, as columns
	for i, row := range a {
		copy(m[i*n:], row)
		v[i*n+i] = 1
	}
	for sweep := 0; ; sweep++ {
		off, all := 0.0, 0.0
		for p := 0; p < n; p++ {
			all += m[p*n+p] * m[p*n+p]
			for q := p + 1; q < n; q++ {
				off += 2 * m[p*n+q] * m[p*n+q]
			}
		}
		if off <= 1e-26*(all+off) {
			break
		}
		if sweep == maxSweeps {
			return nil, nil, false
		}
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				if m[p*n+q] != 0 {
					rotate(m, v, n, p, q)
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return m[order[i]*n+order[i]] > m[order[j]*n+order[j]] })
	vals = make([]float64, n)
	vecs = make([][]float64, n)
	for i, c := range order {
		vals[i] = m[c*n+c]
		vecs[i] = make([]float64, n)
		for j := range vecs[i] {
			vecs[i][j] = v[j*n+c]
		}
	}
	return vals, vecs, true
}

// rotate applies the Jacobi rotation J that zeroes m[p][q] (p < q) to the
// n×n matrices m (J^T m J, upper triangle only) and v (v J).
func rotate(m, v []float64, n, p, q int) {
	apq := m[p*n+q]
	theta := (m[q*n+q] - m[p*n+p]) / (2 * apq)
	t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
	if math.IsInf(theta*theta, 0) {
		t = 1 / (2 * math.Abs(theta))
	}
	if theta < 0 {
		t = -t
	}
	c := 1 / math.Sqrt(t*t+1)
	s := t * c
	m[p*n+p] -= t * apq
	m[q*n+q] += t * apq
	m[p*n+q] = 0
	rot := func(x, y *float64) { *x, *y = c**x-s**y, s**x+c**y }
	for k := 0; k < p; k++ { // m[k][p], m[k][q]
		rot(&m[k*n+p], &m[k*n+q])
	}
	for k := p + 1; k < q; k++ { // m[p][k] = m[k][p], m[k][q]
		rot(&m[p*n+k], &m[k*n+q])
	}
	for k := q + 1; k < n; k++ { // m[p][k], m[q][k]
		rot(&m[p*n+k], &m[q*n+k])
	}
	for k := 0; k < n; k++ {
		rot(&v[k*n+p], &v[k*n+q])
	}
}
