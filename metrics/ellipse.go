package metrics

import (
	"fmt"
	"math"
)

// Ellipse returns points points on the boundary of the region that holds
// probability level (in (0,1), e.g. 0.9) of the 2-D Gaussian N(mu, sigma),
// with sigma the row-major 2×2 covariance: the points p with
// (p-mu)^T sigma^-1 (p-mu) = r^2, r^2 = -2 ln(1-level) (the chi-square
// quantile with 2 degrees of freedom). The points go counter-clockwise from
// angle 0 and the first is not repeated at the end. It returns an error if
// sigma is not symmetric positive definite, and panics if len(mu) != 2,
// len(sigma) != 4, level is not in (0,1) or points < 3.
func Ellipse(mu, sigma []float64, level float64, points int) ([][2]float64, error) {
	if len(mu) != 2 || len(sigma) != 4 {
		panic(fmt.Sprintf("metrics: Ellipse: mean of length %d and covariance of %d values, want 2 and 4", len(mu), len(sigma)))
	}
	if !(level > 0 && level < 1) || points < 3 {
		panic(fmt.Sprintf("metrics: Ellipse: level %v, %d points", level, points))
	}
	f, err := factor("ellipse covariance", [][]float64{sigma[0:2], sigma[2:4]})
	if err != nil {
		return nil, err
	}
	r := math.Sqrt(-2 * math.Log1p(-level))
	l11, l21, l22 := f.l[0][0], f.l[1][0], f.l[1][1]
	out := make([][2]float64, points)
	for i := range out {
		t := 2 * math.Pi * float64(i) / float64(points)
		u, v := r*math.Cos(t), r*math.Sin(t)
		out[i] = [2]float64{mu[0] + l11*u, mu[1] + l21*u + l22*v}
	}
	return out, nil
}
