package metrics

import (
	"math"
	"testing"
)

func TestDetectHand(t *testing.T) {
	cases := []struct {
		name    string
		in, out []float64
		want    Detection
	}{
		{"separated", []float64{3, 2, 1}, []float64{0, -1}, Detection{1, 1, 0}},
		{"reversed", []float64{0}, []float64{1, 2}, Detection{0, 1.0 / 3, 1}},
		{"all tied", []float64{1, 1}, []float64{1, 1}, Detection{0.5, 0.5, 1}},
		// Pairs: 2>1, 2>0, 1=1 (half), 1>0: 3.5 of 4. Thresholds: 2 (recall
		// 1/2 at precision 1), 1 (recall 1 at precision 2/3).
		{"one tie", []float64{2, 1}, []float64{1, 0}, Detection{0.875, 0.5 + 0.5*2.0/3, 0.5}},
		// 20 in-distribution scores 1..20 against out 0 and 1.5: the 95%
		// threshold keeps 19 of 20 (scores >= 2), which 0 of 2 out reach.
		{"95 percent", seq(1, 20), []float64{0, 1.5}, Detection{(20 + 19) / 40.0, -1, 0}},
	}
	for _, c := range cases {
		got, err := Detect(c.in, c.out)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !close(got.AUROC, c.want.AUROC, 1e-12, 0) || !close(got.FPRAt95TPR, c.want.FPRAt95TPR, 1e-12, 0) ||
			(c.want.AUPR >= 0 && !close(got.AUPR, c.want.AUPR, 1e-12, 0)) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func seq(lo, hi int) []float64 {
	var v []float64
	for i := lo; i <= hi; i++ {
		v = append(v, float64(i))
	}
	return v
}

func TestDetectErrors(t *testing.T) {
	if _, err := Detect(nil, []float64{1}); err == nil {
		t.Error("no in-distribution scores: no error")
	}
	if _, err := Detect([]float64{1}, []float64{math.NaN()}); err == nil {
		t.Error("NaN score: no error")
	}
}

func TestLogDensity(t *testing.T) {
	delta := []float32{0, 0, -1000, -1000, 2, float32(math.Inf(-1))}
	got := LogDensity(delta, 2)
	want := []float64{math.Log(2), -1000 + math.Log(2), 2}
	for i := range want {
		if !close(got[i], want[i], 1e-9, 1e-12) {
			t.Errorf("row %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if g := LogDensity([]float32{float32(math.Inf(-1)), float32(math.Inf(-1))}, 2); !math.IsInf(g[0], -1) {
		t.Errorf("all -Inf row: got %v, want -Inf", g[0])
	}
}

// TestDetectAUROCPairs checks AUROC against counting every (in, out) pair,
// on integer scores with many ties.
func TestDetectAUROCPairs(t *testing.T) {
	r := uint64(7)
	next := func() float64 { r = r*6364136223846793005 + 1442695040888963407; return float64(r >> 60) }
	for trial := 0; trial < 20; trial++ {
		in, out := make([]float64, 13+trial), make([]float64, 7+2*trial)
		for i := range in {
			in[i] = next() + 2
		}
		for i := range out {
			out[i] = next()
		}
		pairs := 0.0
		for _, a := range in {
			for _, b := range out {
				switch {
				case a > b:
					pairs++
				case a == b:
					pairs += 0.5
				}
			}
		}
		want := pairs / float64(len(in)*len(out))
		got, err := Detect(in, out)
		if err != nil || !close(got.AUROC, want, 1e-12, 0) {
			t.Fatalf("trial %d: AUROC %v (%v), want %v", trial, got.AUROC, err, want)
		}
	}
}

func TestROCTies(t *testing.T) {
	got, err := ROC([]float64{2, 1}, []float64{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []ROCPoint{{0, 0}, {0, 0.5}, {0.5, 1}, {1, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestMaxScore checks the largest score per row, -Inf rows included.
func TestMaxScore(t *testing.T) {
	inf := float32(math.Inf(-1))
	got := MaxScore([]float32{1, 3, 2, inf, inf, -1, inf, inf, inf}, 3)
	if len(got) != 3 || got[0] != 3 || got[1] != -1 || !math.IsInf(got[2], -1) {
		t.Errorf("MaxScore = %v, want [3 -1 -Inf]", got)
	}
}

// TestMahalanobisScore checks minus the squared distance to the nearest
// mean in the model's covariance against sums done by hand, and that a
// singular covariance is an error.
func TestMahalanobisScore(t *testing.T) {
	m := LDA{Pi: []float64{0.5, 0.5}, Mu: [][]float64{{0, 0}, {2, 0}}, Sigma: [][]float64{{1, 0}, {0, 4}}}
	// (1,2): 1 + 4/4 = 2 to both means; (0,4): 16/4 = 4 and 4 + 16/4 = 8;
	// (3,0): 9 and 1.
	got, err := m.MahalanobisScore([]float64{1, 2, 0, 4, 3, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-2, -4, -1}
	for i := range want {
		if !close(got[i], want[i], 1e-14, 1e-14) {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
	m.Sigma = [][]float64{{1, 1}, {1, 1}}
	if _, err := m.MahalanobisScore([]float64{0, 0}); err == nil {
		t.Error("a singular covariance gave no error")
	}
}
