// Package synth generates the synthetic data set of the paper "Deep Linear
// Discriminant Analysis Revisited": a 2-D mixture of three Gaussians with
// equal priors, means 2.5*[(-2,-0.5), (2.2,0.2), (-0.5,2.3)] and the shared
// covariance [[1,0.35],[0.35,1.1]].
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/deeplda/deeplda/metrics"
)

// Classes is the number of mixture components (classes).
const Classes = 3

// Dim is the dimension of the points.
const Dim = 2

// Means are the class means. Treat as read-only: Generate uses its own copy.
var Means = [Classes][Dim]float64{{2.5 * -2, 2.5 * -0.5}, {2.5 * 2.2, 2.5 * 0.2}, {2.5 * -0.5, 2.5 * 2.3}}

// Sigma is the shared class covariance. Treat as read-only: Generate uses
// its own copy.
var Sigma = [Dim][Dim]float64{{1, 0.35}, {0.35, 1.1}}

// Prior is the probability of each class.
const Prior = 1.0 / Classes

var (
	means = Means
	sigma = Sigma
	// chol is the lower Cholesky factor L of sigma (L L^T = sigma).
	chol = func() [Dim][Dim]float64 {
		l11 := math.Sqrt(sigma[0][0])
		l21 := sigma[1][0] / l11
		return [Dim][Dim]float64{{l11, 0}, {l21, math.Sqrt(sigma[1][1] - l21*l21)}}
	}()
)

// seq2 is the second PCG seed word, fixed so that one uint64 selects the
// stream.
const seq2 = 0x9e3779b97f4a7c15

// Generate draws n points of the mixture with a PCG generator seeded with
// (seed, 0x9e3779b97f4a7c15). It returns the row-major [n,2] points and the
// labels in [0,3). For each point in turn it draws the label (uniform), then
// two standard normals eps, and sets x = Means[y] + L eps with L the lower
// Cholesky factor of Sigma; the values are computed in float64 and rounded
// to float32. The output depends only on n and seed, and the first m points
// of Generate(n, s) are those of Generate(m, s). It panics if n < 0.
func Generate(n int, seed uint64) (x []float32, y []int32) {
	if n < 0 {
		panic(fmt.Sprintf("synth: Generate: n = %d", n))
	}
	r := rand.New(rand.NewPCG(seed, seq2))
	x = make([]float32, n*Dim)
	y = make([]int32, n)
	for i := 0; i < n; i++ {
		c := r.IntN(Classes)
		e0, e1 := r.NormFloat64(), r.NormFloat64()
		y[i] = int32(c)
		x[2*i] = float32(means[c][0] + chol[0][0]*e0)
		x[2*i+1] = float32(means[c][1] + chol[1][0]*e0 + chol[1][1]*e1)
	}
	return x, y
}

// Truth returns the true model of the mixture as an LDA (equal priors,
// Means, Sigma), for example to compute the Bayes-optimal discriminants or
// to compare a learned head with it.
func Truth() metrics.LDA {
	m := metrics.LDA{Pi: make([]float64, Classes), Mu: make([][]float64, Classes), Sigma: make([][]float64, Dim)}
	for c := range m.Pi {
		m.Pi[c] = Prior
		m.Mu[c] = []float64{means[c][0], means[c][1]}
	}
	for i := range m.Sigma {
		m.Sigma[i] = []float64{sigma[i][0], sigma[i][1]}
	}
	return m
}
