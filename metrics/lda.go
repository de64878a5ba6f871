package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// LDA is a Gaussian linear discriminant model with C classes in D
// dimensions: class priors Pi (C), class means Mu (C×D) and one shared
// covariance Sigma (D×D).
type LDA struct {
	Pi    []float64   `json:"pi"`
	Mu    [][]float64 `json:"mu"`
	Sigma [][]float64 `json:"sigma"`
}

// C returns the number of classes.
func (m LDA) C() int { return len(m.Pi) }

// D returns the dimension.
func (m LDA) D() int { return len(m.Sigma) }

// NewLDA builds an LDA from a head's parameters: pi = softmax(priorLogits),
// mu the row-major [c,d] means and sigma the row-major [d,d] covariance. It
// panics if the lengths do not match c and d.
func NewLDA(priorLogits, mu, sigma []float64, c, d int) LDA {
	if c < 1 || d < 1 || len(priorLogits) != c || len(mu) != c*d || len(sigma) != d*d {
		panic(fmt.Sprintf("metrics: NewLDA: c=%d d=%d with %d prior logits, %d means, %d covariance values",
			c, d, len(priorLogits), len(mu), len(sigma)))
	}
	m := LDA{Pi: make([]float64, c), Mu: make([][]float64, c), Sigma: make([][]float64, d)}
	mx := math.Inf(-1)
	for _, v := range priorLogits {
		mx = math.Max(mx, v)
	}
	s := 0.0
	for i, v := range priorLogits {
		m.Pi[i] = math.Exp(v - mx)
		s += m.Pi[i]
	}
	for i := range m.Pi {
		m.Pi[i] /= s
	}
	for i := range m.Mu {
		m.Mu[i] = append([]float64(nil), mu[i*d:(i+1)*d]...)
	}
	for i := range m.Sigma {
		m.Sigma[i] = append([]float64(nil), sigma[i*d:(i+1)*d]...)
	}
	return m
}

// Validate checks that the sizes agree (C ≥ 1 priors, C means of length
// D ≥ 1, a D×D covariance) and that the priors are finite and non-negative
// and the means finite. It does not check the covariance (LogDet does).
func (m LDA) Validate() error { return m.validate("LDA") }

func (m LDA) validate(what string) error {
	c, d := m.C(), m.D()
	if c < 1 || d < 1 {
		return fmt.Errorf("metrics: %s has %d classes and dimension %d", what, c, d)
	}
	if len(m.Mu) != c {
		return fmt.Errorf("metrics: %s has %d priors but %d means", what, c, len(m.Mu))
	}
	for i, p := range m.Pi {
		if !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("metrics: %s prior %d is %v", what, i, p)
		}
	}
	for i, mu := range m.Mu {
		if len(mu) != d {
			return fmt.Errorf("metrics: %s mean %d has length %d, covariance is %d×%d", what, i, len(mu), d, d)
		}
		for _, v := range mu {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("metrics: %s mean %d has a non-finite value", what, i)
			}
		}
	}
	for i, row := range m.Sigma {
		if len(row) != d {
			return fmt.Errorf("metrics: %s covariance row %d has length %d, want %d", what, i, len(row), d)
		}
	}
	return nil
}

// FitLDA returns the closed-form maximum-likelihood LDA of the row-major
// [n,d] points x with labels y in [0,c): class frequencies, class means, and
// the pooled within-class covariance divided by n. It returns an error when
// there are no points, a label is out of range, a class has no points or a
// value is not finite. It panics if len(x) is not len(y)*d.
func FitLDA(x []float64, y []int32, c, d int) (LDA, error) {
	if c < 1 || d < 1 || len(x) != len(y)*d {
		panic(fmt.Sprintf("metrics: FitLDA: c=%d d=%d with %d values for %d labels", c, d, len(x), len(y)))
	}
	n := len(y)
	if n == 0 {
		return LDA{}, errors.New("metrics: FitLDA: no points")
	}
	count := make([]int, c)
	m := LDA{Pi: make([]float64, c), Mu: make([][]float64, c), Sigma: make([][]float64, d)}
	for k := range m.Mu {
		m.Mu[k] = make([]float64, d)
	}
	for i, l := range y {
		if l < 0 || int(l) >= c {
			return LDA{}, fmt.Errorf("metrics: FitLDA: label %d of point %d is outside [0,%d)", l, i, c)
		}
		count[l]++
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return LDA{}, fmt.Errorf("metrics: FitLDA: point %d has a non-finite value", i)
			}
			m.Mu[l][j] += v
		}
	}
	for k := range m.Mu {
		if count[k] == 0 {
			return LDA{}, fmt.Errorf("metrics: FitLDA: class %d has no points", k)
		}
		m.Pi[k] = float64(count[k]) / float64(n)
		for j := range m.Mu[k] {
			m.Mu[k][j] /= float64(count[k])
		}
	}
	for j := range m.Sigma {
		m.Sigma[j] = make([]float64, d)
	}
	diff := make([]float64, d)
	for i, l := range y {
		for j := range diff {
			diff[j] = x[i*d+j] - m.Mu[l][j]
		}
		for a := 0; a < d; a++ {
			for b := 0; b <= a; b++ {
				m.Sigma[a][b] += diff[a] * diff[b]
			}
		}
	}
	for a := 0; a < d; a++ {
		for b := 0; b <= a; b++ {
			m.Sigma[a][b] /= float64(n)
			m.Sigma[b][a] = m.Sigma[a][b]
		}
	}
	return m, nil
}

// FitLDA32 is FitLDA for float32 points (for example a batch of embeddings).
func FitLDA32(x []float32, y []int32, c, d int) (LDA, error) {
	return FitLDA(Float64s(x), y, c, d)
}

// LogDet returns log det Sigma, computed from its Cholesky factor. It
// returns an error if the model is invalid or Sigma is not symmetric
// positive definite.
func (m LDA) LogDet() (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	f, err := factor("LDA covariance", m.Sigma)
	if err != nil {
		return 0, err
	}
	return f.logdet, nil
}

// Delta returns the C discriminants of the point z (length D):
// delta_c(z) = log pi_c - 1/2 log det Sigma - 1/2 (z-mu_c)^T Sigma^-1 (z-mu_c),
// without the -(D/2) log 2pi constant (the convention of the paper and of
// gen_golden.py). It returns an error if the model is invalid or Sigma is not
// positive definite, and panics if len(z) != D.
func (m LDA) Delta(z []float64) ([]float64, error) {
	if len(z) != m.D() {
		panic(fmt.Sprintf("metrics: Delta: point of length %d, model dimension %d", len(z), m.D()))
	}
	return m.DeltaBatch(z)
}

// DeltaBatch returns the row-major [n,C] discriminants (see Delta) of the
// row-major [n,D] points x, factorising Sigma once. It panics if len(x) is
// not a multiple of D.
func (m LDA) DeltaBatch(x []float64) ([]float64, error) {
	d2, logdet, err := m.distances("DeltaBatch", x)
	if err != nil {
		return nil, err
	}
	c := m.C()
	for i, v := range d2 {
		d2[i] = math.Log(m.Pi[i%c]) - 0.5*logdet - 0.5*v
	}
	return d2, nil
}

// MahalanobisScore returns, for each row of the row-major [n,D] points x,
// minus its squared Mahalanobis distance to the nearest class mean,
// -min_c (z-mu_c)^T Sigma^-1 (z-mu_c): the out-of-distribution score of Lee
// et al. (2018) in the model's own covariance, higher near a mean. It
// returns an error if the model is invalid or Sigma is not positive
// definite, and panics if len(x) is not a multiple of D.
func (m LDA) MahalanobisScore(x []float64) ([]float64, error) {
	d2, _, err := m.distances("MahalanobisScore", x)
	if err != nil {
		return nil, err
	}
	c := m.C()
	out := make([]float64, len(d2)/c)
	for i := range out {
		out[i] = -slices.Min(d2[i*c : (i+1)*c])
	}
	return out, nil
}

// distances returns the row-major [n,C] squared Mahalanobis distances
// (z-mu_c)^T Sigma^-1 (z-mu_c) of the row-major [n,D] points x to the
// class means, and log det Sigma, factorising Sigma once.
func (m LDA) distances(fn string, x []float64) (d2 []float64, logdet float64, err error) {
	if err := m.Validate(); err != nil {
		return nil, 0, err
	}
	c, d := m.C(), m.D()
	n := rows(fn, len(x), d)
	f, err := factor("LDA covariance", m.Sigma)
	if err != nil {
		return nil, 0, err
	}
	d2 = make([]float64, n*c)
	diff := make([]float64, d)
	for i := 0; i < n; i++ {
		z := x[i*d : (i+1)*d]
		for k := 0; k < c; k++ {
			for j := range diff {
				diff[j] = z[j] - m.Mu[k][j]
			}
			d2[i*c+k] = f.mahalanobis2(diff)
		}
	}
	return d2, f.logdet, nil
}

// Consistency compares a learned LDA head with the closed-form LDA refit on
// the learned embeddings (FitLDA), both with the same C and D. It returns
//
//   - meanShift: the mean over classes of the Mahalanobis distance between
//     the learned mean mu_c and the refit mean mu_hat_c, measured with the
//     LEARNED covariance Sigma: sqrt((mu_hat_c-mu_c)^T Sigma^-1 (mu_hat_c-mu_c));
//   - kl: the mean over classes of KL(N(mu_hat_c, Sigma_hat) || N(mu_c, Sigma)),
//     which is 1/2 [tr(Sigma^-1 Sigma_hat) + (mu_c-mu_hat_c)^T Sigma^-1 (mu_c-mu_hat_c) -
//     D + ln(det Sigma / det Sigma_hat)].
//
// Both are 0 when the two models agree. The priors are not compared. It
// returns an error if the sizes differ or either covariance is not symmetric
// positive definite.
func Consistency(learned, refit LDA) (meanShift, kl float64, err error) {
	if err := learned.validate("learned LDA"); err != nil {
		return 0, 0, err
	}
	if err := refit.validate("refit LDA"); err != nil {
		return 0, 0, err
	}
	c, d := learned.C(), learned.D()
	if refit.C() != c || refit.D() != d {
		return 0, 0, fmt.Errorf("metrics: Consistency: learned model has C=%d D=%d, refit model C=%d D=%d", c, d, refit.C(), refit.D())
	}
	fl, err := factor("learned covariance", learned.Sigma)
	if err != nil {
		return 0, 0, err
	}
	fr, err := factor("refit covariance", refit.Sigma)
	if err != nil {
		return 0, 0, err
	}
	// tr(Sigma^-1 Sigma_hat) = sum_j e_j^T Sigma^-1 Sigma_hat e_j.
	var sol mat.VecDense
	tr := 0.0
	col := make([]float64, d)
	for j := 0; j < d; j++ {
		for i := 0; i < d; i++ {
			col[i] = fr.sym.At(i, j)
		}
		if err := fl.chol.SolveVecTo(&sol, mat.NewVecDense(d, col)); err != nil {
			return 0, 0, fmt.Errorf("metrics: Consistency: learned covariance: %v", err)
		}
		tr += sol.AtVec(j)
	}
	diff := make([]float64, d)
	for k := 0; k < c; k++ {
		for j := range diff {
			diff[j] = refit.Mu[k][j] - learned.Mu[k][j]
		}
		m2 := fl.mahalanobis2(diff)
		meanShift += math.Sqrt(m2)
		klc := 0.5 * (tr + m2 - float64(d) + fl.logdet - fr.logdet)
		if klc < 0 { // rounding: the exact value is never negative
			klc = 0
		}
		kl += klc
	}
	return meanShift / float64(c), kl / float64(c), nil
}

// factored is a Cholesky factorisation Sigma = L L^T.
type factored struct {
	sym    *mat.SymDense
	chol   mat.Cholesky
	l      [][]float64 // lower triangle of L, rows
	logdet float64
	work   []float64
}

// maxCond is the largest condition number accepted for a covariance.
const maxCond = 1e14

// factor checks that sigma is a finite, symmetric (to rounding) square
// matrix and positive definite, and factorises it.
func factor(what string, sigma [][]float64) (*factored, error) {
	d := len(sigma)
	if d == 0 {
		return nil, fmt.Errorf("metrics: %s is empty", what)
	}
	scale := 0.0
	for i, row := range sigma {
		if len(row) != d {
			return nil, fmt.Errorf("metrics: %s row %d has length %d, want %d", what, i, len(row), d)
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("metrics: %s has a non-finite value", what)
			}
			scale = math.Max(scale, math.Abs(v))
		}
	}
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			a, b := sigma[i][j], sigma[j][i]
			if math.Abs(a-b) > 1e-6*scale {
				return nil, fmt.Errorf("metrics: %s is not symmetric: [%d][%d]=%v, [%d][%d]=%v", what, i, j, a, j, i, b)
			}
			sym.SetSym(i, j, (a+b)/2)
		}
	}
	f := &factored{sym: sym}
	if !f.chol.Factorize(sym) {
		return nil, fmt.Errorf("metrics: %s is not positive definite", what)
	}
	if cond := f.chol.Cond(); !(cond <= maxCond) {
		return nil, fmt.Errorf("metrics: %s is numerically singular (condition number %.3g)", what, cond)
	}
	f.logdet = f.chol.LogDet()
	var l mat.TriDense
	f.chol.LTo(&l)
	f.work = make([]float64, d)
	f.l = make([][]float64, d)
	for i := range f.l {
		f.l[i] = make([]float64, i+1)
		for j := 0; j <= i; j++ {
			f.l[i][j] = l.At(i, j)
		}
	}
	return f, nil
}

// mahalanobis2 returns v^T Sigma^-1 v = |L^-1 v|^2 by forward substitution.
func (f *factored) mahalanobis2(v []float64) float64 {
	d := len(f.l)
	w := f.work
	s := 0.0
	for i := 0; i < d; i++ {
		t := v[i]
		row := f.l[i]
		for j := 0; j < i; j++ {
			t -= row[j] * w[j]
		}
		w[i] = t / row[i]
		s += w[i] * w[i]
	}
	return s
}
