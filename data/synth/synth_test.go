package synth

import (
	"github.com/deeplda/deeplda/internal/sharedtest"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/safetensors"
)

// goldenDir returns ../shared/golden (see sharedtest.Dir).
func goldenDir(t testing.TB) string { return sharedtest.Dir(t, "golden") }

func TestConstants(t *testing.T) {
	want := [Classes][Dim]float64{{-5, -1.25}, {5.5, 0.5}, {-1.25, 5.75}}
	for c := range want {
		for j := range want[c] {
			if math.Abs(Means[c][j]-want[c][j]) > 1e-15 {
				t.Errorf("Means[%d][%d] = %v, want %v", c, j, Means[c][j], want[c][j])
			}
		}
	}
	if Sigma != [Dim][Dim]float64{{1, 0.35}, {0.35, 1.1}} {
		t.Errorf("Sigma = %v", Sigma)
	}
	for i := 0; i < Dim; i++ {
		for j := 0; j < Dim; j++ {
			s := 0.0
			for k := 0; k < Dim; k++ {
				s += chol[i][k] * chol[j][k]
			}
			if math.Abs(s-Sigma[i][j]) > 1e-15 {
				t.Errorf("(L L^T)[%d][%d] = %v, want %v", i, j, s, Sigma[i][j])
			}
		}
	}
	if _, err := Truth().LogDet(); err != nil {
		t.Error(err)
	}
}

func TestDeterminism(t *testing.T) {
	x1, y1 := Generate(1000, 42)
	x2, y2 := Generate(1000, 42)
	x3, y3 := Generate(1000, 43)
	xs, ys := Generate(10, 42)
	if len(x1) != 2000 || len(y1) != 1000 {
		t.Fatalf("lengths %d %d", len(x1), len(y1))
	}
	same, diff := true, 0
	for i := range x1 {
		same = same && x1[i] == x2[i]
		if x1[i] != x3[i] {
			diff++
		}
	}
	for i := range y1 {
		same = same && y1[i] == y2[i]
	}
	if !same {
		t.Error("same seed gave different data")
	}
	if diff < 1900 {
		t.Errorf("seeds 42 and 43 agree on %d of 2000 values", 2000-diff)
	}
	labelsDiffer := false
	for i := range y1 {
		labelsDiffer = labelsDiffer || y1[i] != y3[i]
	}
	if !labelsDiffer {
		t.Error("seeds 42 and 43 gave the same labels")
	}
	for i := range xs {
		if xs[i] != x1[i] {
			t.Fatal("Generate(10) is not a prefix of Generate(1000)")
		}
	}
	for i := range ys {
		if ys[i] != y1[i] {
			t.Fatal("labels of Generate(10) are not a prefix of Generate(1000)")
		}
	}
	if x, y := Generate(0, 1); len(x) != 0 || len(y) != 0 {
		t.Error("Generate(0) is not empty")
	}
	func() {
		defer func() {
			if r, _ := recover().(string); !strings.HasPrefix(r, "synth: ") {
				t.Errorf("Generate(-1) recovered %q", r)
			}
		}()
		Generate(-1, 0)
	}()
}

func TestStatistics(t *testing.T) {
	const n = 200000
	x, y := Generate(n, 7)
	for _, l := range y {
		if l < 0 || l >= Classes {
			t.Fatalf("label %d out of range", l)
		}
	}
	m, err := metrics.FitLDA32(x, y, Classes, Dim)
	if err != nil {
		t.Fatal(err)
	}
	const z = 4.5 // standard errors allowed
	for c := 0; c < Classes; c++ {
		se := math.Sqrt(Prior * (1 - Prior) / n)
		if d := math.Abs(m.Pi[c] - Prior); d > z*se {
			t.Errorf("class %d frequency %v, want %v ± %v", c, m.Pi[c], Prior, z*se)
		}
		nc := m.Pi[c] * n
		for j := 0; j < Dim; j++ {
			se := math.Sqrt(Sigma[j][j] / nc)
			if d := math.Abs(m.Mu[c][j] - Means[c][j]); d > z*se {
				t.Errorf("class %d mean[%d] = %v, want %v ± %v", c, j, m.Mu[c][j], Means[c][j], z*se)
			}
		}
	}
	for i := 0; i < Dim; i++ {
		for j := 0; j < Dim; j++ {
			// Var of a sample covariance entry: (S_ij^2 + S_ii S_jj) / n.
			se := math.Sqrt((Sigma[i][j]*Sigma[i][j] + Sigma[i][i]*Sigma[j][j]) / n)
			if d := math.Abs(m.Sigma[i][j] - Sigma[i][j]); d > z*se {
				t.Errorf("Sigma[%d][%d] = %v, want %v ± %v", i, j, m.Sigma[i][j], Sigma[i][j], z*se)
			}
		}
	}
	// The refit model agrees with the truth.
	shift, kl, err := metrics.Consistency(Truth(), m)
	if err != nil || shift > 0.02 || kl > 1e-3 {
		t.Errorf("Consistency(truth, refit) = %v %v %v", shift, kl, err)
	}
}

// TestGoldenSample checks that the reference generator's sample (300 points
// drawn by gen_golden.py with numpy) fits the same mixture: its estimates lie
// within a few standard errors of Means and Sigma.
func TestGoldenSample(t *testing.T) {
	f, err := safetensors.ReadFile(filepath.Join(goldenDir(t), "head_cases.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := f.GetF32("lda_mle/x", 300, 2)
	if err != nil {
		t.Fatal(err)
	}
	y, err := f.GetI32("lda_mle/y", 300)
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.FitLDA32(x, y, Classes, Dim)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < Classes; c++ {
		nc := m.Pi[c] * 300
		for j := 0; j < Dim; j++ {
			if d := math.Abs(m.Mu[c][j] - Means[c][j]); d > 4.5*math.Sqrt(Sigma[j][j]/nc) {
				t.Errorf("golden class %d mean[%d] = %v, Means says %v", c, j, m.Mu[c][j], Means[c][j])
			}
		}
	}
	for i := 0; i < Dim; i++ {
		for j := 0; j < Dim; j++ {
			se := math.Sqrt((Sigma[i][j]*Sigma[i][j] + Sigma[i][i]*Sigma[j][j]) / 300)
			if d := math.Abs(m.Sigma[i][j] - Sigma[i][j]); d > 4.5*se {
				t.Errorf("golden Sigma[%d][%d] = %v, Sigma says %v", i, j, m.Sigma[i][j], Sigma[i][j])
			}
		}
	}
	// The true model classifies the golden sample about as well as the Bayes rule can.
	delta, err := Truth().DeltaBatch(metrics.Float64s(x))
	if err != nil {
		t.Fatal(err)
	}
	pred := make([]int, 300)
	for i := range pred {
		for c := 1; c < Classes; c++ {
			if delta[i*Classes+c] > delta[i*Classes+pred[i]] {
				pred[i] = c
			}
		}
	}
	if acc := metrics.Accuracy(pred, y); acc < 0.99 {
		t.Errorf("true model classifies %v of the golden sample", acc)
	}
}
