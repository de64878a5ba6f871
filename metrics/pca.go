package metrics

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PCAResult holds the top K principal components of a D-dimensional data
// set.
type PCAResult struct {
	// Mean is the data mean (D).
	Mean []float64 `json:"mean"`
	// Components are K unit vectors of length D, sorted by decreasing
	// variance. Each is signed so that its largest-magnitude entry (the first
	// one on ties) is positive.
	Components [][]float64 `json:"components"`
	// Variance is the variance along each component (the eigenvalues of the
	// sample covariance, divided by n-1).
	Variance []float64 `json:"variance"`
	// VarianceRatio is Variance divided by the total variance (0 if the
	// data are constant).
	VarianceRatio []float64 `json:"variance_ratio"`
}

// PCA returns the top k principal components of the row-major [n,d] points
// x. It returns an error for fewer than 2 points or a non-finite value, and
// panics if len(x) != n*d or k is not in [1,d].
func PCA(x []float64, n, d, k int) (PCAResult, error) {
	if d < 1 || n < 0 || len(x) != n*d || k < 1 || k > d {
		panic(fmt.Sprintf("metrics: PCA: n=%d d=%d k=%d with %d values", n, d, k, len(x)))
	}
	if n < 2 {
		return PCAResult{}, fmt.Errorf("metrics: PCA: need at least 2 points, have %d", n)
	}
	mean := make([]float64, d)
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return PCAResult{}, fmt.Errorf("metrics: PCA: point %d has a non-finite value", i/d)
		}
		mean[i%d] += v
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	cov := mat.NewSymDense(d, nil)
	diff := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range diff {
			diff[j] = x[i*d+j] - mean[j]
		}
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				cov.SetSym(a, b, cov.At(a, b)+diff[a]*diff[b])
			}
		}
	}
	cov.ScaleSym(1/float64(n-1), cov)
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return PCAResult{}, errors.New("metrics: PCA: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	total := 0.0
	for _, v := range vals {
		total += math.Max(v, 0)
	}
	r := PCAResult{Mean: mean, Components: make([][]float64, k), Variance: make([]float64, k), VarianceRatio: make([]float64, k)}
	for i := 0; i < k; i++ {
		col := d - 1 - i
		r.Variance[i] = math.Max(vals[col], 0)
		if total > 0 {
			r.VarianceRatio[i] = r.Variance[i] / total
		}
		comp := make([]float64, d)
		big := 0
		for j := range comp {
			comp[j] = vecs.At(j, col)
			if math.Abs(comp[j]) > math.Abs(comp[big]) {
				big = j
			}
		}
		if comp[big] < 0 {
			for j := range comp {
				comp[j] = -comp[j]
			}
		}
		r.Components[i] = comp
	}
	return r, nil
}

// Project returns the coordinates of the row-major [n,D] points x along the
// components, as a row-major [n,K] slice. It panics if len(x) is not a
// multiple of D.
func (r PCAResult) Project(x []float64) []float64 {
	d, k := len(r.Mean), len(r.Components)
	n := rows("Project", len(x), d)
	out := make([]float64, n*k)
	for i := 0; i < n; i++ {
		p := x[i*d : (i+1)*d]
		for c, comp := range r.Components {
			s := 0.0
			for j, v := range comp {
				s += (p[j] - r.Mean[j]) * v
			}
			out[i*k+c] = s
		}
	}
	return out
}
