package metrics

import (
	"encoding/json"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/safetensors"
)

// goldenDir returns ../shared/golden (see sharedtest.Dir).
func goldenDir(t testing.TB) string { return sharedtest.Dir(t, "golden") }

func headCases(t *testing.T) *safetensors.File {
	t.Helper()
	f, err := safetensors.ReadFile(filepath.Join(goldenDir(t), "head_cases.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// close reports |got-want| <= atol + rtol*|want|.
func close(got, want, atol, rtol float64) bool {
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}

func expectPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "metrics: ") {
			t.Errorf("%s: recovered %v, want a metrics panic", name, r)
		}
	}()
	fn()
}

func TestClassify(t *testing.T) {
	logits := []float32{1, 3, 3, -1, float32(math.NaN()), 0, 1000, 1001, 999}
	if got := Argmax(logits, 3); got[0] != 1 || got[1] != 2 || got[2] != 1 {
		t.Errorf("Argmax = %v", got)
	}
	if got := Accuracy([]int{1, 2, 0}, []int32{1, 2, 2}); got != 2.0/3 {
		t.Errorf("Accuracy = %v", got)
	}
	if Accuracy(nil, nil) != 0 {
		t.Error("Accuracy of nothing is not 0")
	}
	p := Softmax([]float32{1000, 1001, 999, 0, 0, 0}, 3)
	e := math.Exp(1)
	want := []float64{e / (1 + e + e*e), e * e / (1 + e + e*e), 1 / (1 + e + e*e), 1.0 / 3, 1.0 / 3, 1.0 / 3}
	for i := range want {
		if !close(p[i], want[i], 1e-15, 1e-12) {
			t.Errorf("Softmax[%d] = %v, want %v", i, p[i], want[i])
		}
	}
	conf, pred := Confidences(p, 3)
	if pred[0] != 1 || pred[1] != 0 || conf[0] != p[1] {
		t.Errorf("Confidences = %v %v", conf, pred)
	}
	// Large logits must not overflow.
	nll := NLL([]float32{1000, 1001, 999}, []int32{2}, 3)
	if !close(nll, math.Log(1+e+e*e), 1e-12, 1e-12) {
		t.Errorf("NLL = %v", nll)
	}
	expectPanic(t, "Argmax rows", func() { Argmax(logits, 4) })
	expectPanic(t, "NLL label", func() { NLL([]float32{1, 2}, []int32{2}, 2) })
	expectPanic(t, "NLL count", func() { NLL([]float32{1, 2}, []int32{0, 1}, 2) })
	expectPanic(t, "Accuracy", func() { Accuracy([]int{1}, nil) })
}

func TestGoldenSoftmaxNLL(t *testing.T) {
	f := headCases(t)
	for _, p := range []string{"spherical", "diag", "full"} {
		delta := must[[]float32](t)(f.GetF32(p+"/delta", 7, 4))
		y := must[[]int32](t)(f.GetI32(p+"/y", 7))
		post := must[[]float32](t)(f.GetF32(p+"/posterior", 7, 4))
		ce := must[float32](t)(f.Scalar(p + "/loss_ce"))
		if got := NLL(delta, y, 4); !close(got, float64(ce), 1e-6, 1e-5) {
			t.Errorf("%s: NLL = %v, want %v", p, got, ce)
		}
		for i, v := range Softmax(delta, 4) {
			if !close(v, float64(post[i]), 1e-6, 1e-5) {
				t.Errorf("%s: Softmax[%d] = %v, want %v", p, i, v, post[i])
			}
		}
	}
	logits := must[[]float32](t)(f.GetF32("softmax/logits", 7, 4))
	y := must[[]int32](t)(f.GetI32("softmax/y", 7))
	ce := must[float32](t)(f.Scalar("softmax/loss_ce"))
	if got := NLL(logits, y, 4); !close(got, float64(ce), 1e-6, 1e-5) {
		t.Errorf("softmax: NLL = %v, want %v", got, ce)
	}
}

func TestECEHand(t *testing.T) {
	conf := []float64{0.05, 0.1, 0.3, 0.5, 0.95, 1, 0, 0.5}
	correct := []bool{false, true, true, false, true, true, true, true}
	// Bins of width 0.5: (0,0.5] holds 0.05,0.1,0.3,0.5,0.5 (3 correct);
	// (0.5,1] holds 0.95,1 (both correct); 0 falls in no bin.
	rel := Reliability(conf, correct, 2)
	if rel[0].Count != 5 || rel[1].Count != 2 {
		t.Fatalf("Reliability = %+v", rel)
	}
	if !close(rel[0].Accuracy, 0.6, 1e-15, 0) || !close(rel[0].Confidence, 1.45/5, 1e-15, 1e-15) {
		t.Errorf("bin 0 = %+v", rel[0])
	}
	want := 5.0/8*math.Abs(0.6-0.29) + 2.0/8*math.Abs(1-0.975)
	if got := ECE(conf, correct, 2); !close(got, want, 1e-15, 1e-12) {
		t.Errorf("ECE = %v, want %v", got, want)
	}
	if h := ConfidenceHistogram(conf, 2); h[0] != 5 || h[1] != 2 {
		t.Errorf("ConfidenceHistogram = %v", h)
	}
	// Perfect calibration.
	if got := ECE([]float64{1, 1}, []bool{true, true}, 10); got != 0 {
		t.Errorf("ECE of perfect predictions = %v", got)
	}
	if ECE(nil, nil, 10) != 0 {
		t.Error("ECE of nothing is not 0")
	}
	b, err := json.Marshal(rel[1])
	if err != nil || string(b) != `{"lo":0.5,"hi":1,"count":2,"accuracy":1,"confidence":0.975}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
	// Empty bins are JSON-safe.
	if _, err := json.Marshal(Reliability([]float64{0.99}, []bool{true}, 15)); err != nil {
		t.Error(err)
	}
	expectPanic(t, "bins", func() { ECE(conf, correct, 0) })
	expectPanic(t, "lengths", func() { ECE(conf, correct[:2], 10) })
}

func TestGoldenECE(t *testing.T) {
	f := headCases(t)
	probs := must[[]float32](t)(f.GetF32("ece/probs", 500, 5))
	labels := must[[]int32](t)(f.GetI32("ece/labels", 500))
	conf, pred := Confidences(Float64s(probs), 5)
	correct := make([]bool, len(conf))
	for i := range correct {
		correct[i] = pred[i] == int(labels[i])
	}
	for _, c := range []struct {
		name string
		bins int
	}{{"ece/ece10", 10}, {"ece/ece15", 15}} {
		want := must[float32](t)(f.Scalar(c.name))
		if got := ECE(conf, correct, c.bins); !close(got, float64(want), 1e-6, 0) {
			t.Errorf("ECE(%d bins) = %v, want %v", c.bins, got, want)
		}
		total := 0
		for _, b := range Reliability(conf, correct, c.bins) {
			total += b.Count
		}
		if total != 500 {
			t.Errorf("%d bins hold %d predictions, want 500", c.bins, total)
		}
	}
	acc := must[float32](t)(f.Scalar("ece/accuracy"))
	if got := Accuracy(pred, labels); !close(got, float64(acc), 1e-6, 0) {
		t.Errorf("Accuracy = %v, want %v", got, acc)
	}
}

func TestGoldenFitLDA(t *testing.T) {
	f := headCases(t)
	x := must[[]float32](t)(f.GetF32("lda_mle/x", 300, 2))
	y := must[[]int32](t)(f.GetI32("lda_mle/y", 300))
	pi := must[[]float32](t)(f.GetF32("lda_mle/pi", 3))
	mu := must[[]float32](t)(f.GetF32("lda_mle/mu", 3, 2))
	sigma := must[[]float32](t)(f.GetF32("lda_mle/Sigma", 2, 2))
	m, err := FitLDA32(x, y, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 3; c++ {
		if !close(m.Pi[c], float64(pi[c]), 1e-7, 1e-5) {
			t.Errorf("Pi[%d] = %v, want %v", c, m.Pi[c], pi[c])
		}
		for j := 0; j < 2; j++ {
			if !close(m.Mu[c][j], float64(mu[2*c+j]), 1e-6, 1e-5) {
				t.Errorf("Mu[%d][%d] = %v, want %v", c, j, m.Mu[c][j], mu[2*c+j])
			}
		}
	}
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if !close(m.Sigma[i][j], float64(sigma[2*i+j]), 1e-6, 1e-5) {
				t.Errorf("Sigma[%d][%d] = %v, want %v", i, j, m.Sigma[i][j], sigma[2*i+j])
			}
		}
	}
}

func TestFitLDAErrors(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	if _, err := FitLDA(x, []int32{0, 0}, 2, 2); err == nil || !strings.Contains(err.Error(), "class 1 has no points") {
		t.Errorf("empty class: %v", err)
	}
	if _, err := FitLDA(x, []int32{0, 5}, 2, 2); err == nil || !strings.Contains(err.Error(), "label 5") {
		t.Errorf("bad label: %v", err)
	}
	if _, err := FitLDA(nil, nil, 2, 2); err == nil {
		t.Error("no points: no error")
	}
	if _, err := FitLDA([]float64{0, math.NaN(), 2, 3}, []int32{0, 1}, 2, 2); err == nil {
		t.Error("NaN: no error")
	}
	expectPanic(t, "FitLDA sizes", func() { FitLDA(x, []int32{0}, 2, 2) })
}

// goldenLDA builds the LDA of one head case of head_cases.
func goldenLDA(t *testing.T, f *safetensors.File, p string) LDA {
	pl := must[[]float32](t)(f.GetF32(p+"/prior_logits", 4))
	mu := must[[]float32](t)(f.GetF32(p+"/mu", 4, 3))
	sigma := make([]float64, 9)
	switch p {
	case "spherical":
		lv := must[float32](t)(f.Scalar(p + "/log_var"))
		for i := 0; i < 3; i++ {
			sigma[4*i] = math.Exp(float64(lv))
		}
	case "diag":
		lv := must[[]float32](t)(f.GetF32(p+"/log_var", 3))
		for i := 0; i < 3; i++ {
			sigma[4*i] = math.Exp(float64(lv[i]))
		}
	case "full":
		// Sigma = L L^T in float64 from the stored L.
		L := must[[]float32](t)(f.GetF32(p+"/L", 3, 3))
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 3; k++ {
					sigma[3*i+j] += float64(L[3*i+k]) * float64(L[3*j+k])
				}
			}
		}
	}
	return NewLDA(Float64s(pl), Float64s(mu), sigma, 4, 3)
}

func TestGoldenDelta(t *testing.T) {
	f := headCases(t)
	for _, p := range []string{"spherical", "diag", "full"} {
		m := goldenLDA(t, f, p)
		z := must[[]float32](t)(f.GetF32(p+"/z", 7, 3))
		want := must[[]float32](t)(f.GetF32(p+"/delta", 7, 4))
		got, err := m.DeltaBatch(Float64s(z))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !close(got[i], float64(want[i]), 1e-5, 1e-5) {
				t.Errorf("%s: delta[%d] = %v, want %v", p, i, got[i], want[i])
			}
		}
		one, err := m.Delta(Float64s(z[3:6]))
		if err != nil {
			t.Fatal(err)
		}
		for k := range one {
			if one[k] != got[4+k] {
				t.Errorf("%s: Delta differs from DeltaBatch", p)
			}
		}
		if p == "full" {
			L := must[[]float32](t)(f.GetF32("full/L", 3, 3))
			want := 2 * (math.Log(float64(L[0])) + math.Log(float64(L[4])) + math.Log(float64(L[8])))
			if got, err := m.LogDet(); err != nil || !close(got, want, 1e-12, 1e-9) {
				t.Errorf("LogDet = %v, %v; want %v", got, err, want)
			}
		}
	}
}

func TestLDAErrors(t *testing.T) {
	m := LDA{Pi: []float64{0.5, 0.5}, Mu: [][]float64{{0, 0}, {1, 1}}, Sigma: [][]float64{{1, 1}, {1, 1}}}
	if _, err := m.LogDet(); err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Errorf("singular LogDet: %v", err)
	}
	if _, err := m.Delta([]float64{0, 0}); err == nil {
		t.Error("singular Delta: no error")
	}
	m.Sigma = [][]float64{{1, 0}, {0, -1}}
	if _, err := m.LogDet(); err == nil {
		t.Error("indefinite LogDet: no error")
	}
	m.Sigma = [][]float64{{1, 0.5}, {0, 1}}
	if _, err := m.LogDet(); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("asymmetric LogDet: %v", err)
	}
	m.Sigma = [][]float64{{1, 0}, {0, 1e-20}}
	if _, err := m.LogDet(); err == nil || !strings.Contains(err.Error(), "singular") {
		t.Errorf("near-singular LogDet: %v", err)
	}
	m.Sigma = [][]float64{{1, 0}, {0, math.NaN()}}
	if _, err := m.LogDet(); err == nil {
		t.Error("NaN LogDet: no error")
	}
	m.Sigma = [][]float64{{1, 0}, {0, 1}}
	m.Mu = [][]float64{{0, 0}}
	if err := m.Validate(); err == nil {
		t.Error("Validate accepted 2 priors and 1 mean")
	}
	expectPanic(t, "Delta length", func() { LDA{Pi: []float64{1}, Mu: [][]float64{{0}}, Sigma: [][]float64{{1}}}.Delta([]float64{1, 2}) })
}

func TestDeltaHand(t *testing.T) {
	// 1-D: pi = (0.25, 0.75), mu = (0, 2), sigma^2 = 4, z = 1.
	m := LDA{Pi: []float64{0.25, 0.75}, Mu: [][]float64{{0}, {2}}, Sigma: [][]float64{{4}}}
	got, err := m.Delta([]float64{1})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Log(0.25) - 0.5*math.Log(4) - 0.5*0.25, math.Log(0.75) - 0.5*math.Log(4) - 0.5*0.25}
	for i := range want {
		if !close(got[i], want[i], 1e-15, 1e-14) {
			t.Errorf("delta[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestConsistency(t *testing.T) {
	a := LDA{Pi: []float64{0.5, 0.5}, Mu: [][]float64{{0, 1}, {2, -1}}, Sigma: [][]float64{{2, 0.3}, {0.3, 1}}}
	shift, kl, err := Consistency(a, a)
	if err != nil || math.Abs(shift) > 1e-14 || math.Abs(kl) > 1e-14 {
		t.Errorf("identical models: %v %v %v", shift, kl, err)
	}

	// 1-D: learned N(0,1), refit N(2,4): distance 2, KL = 1/2 (4 + 4 - 1 + ln(1/4)).
	l1 := LDA{Pi: []float64{1}, Mu: [][]float64{{0}}, Sigma: [][]float64{{1}}}
	r1 := LDA{Pi: []float64{1}, Mu: [][]float64{{2}}, Sigma: [][]float64{{4}}}
	shift, kl, err = Consistency(l1, r1)
	if err != nil || !close(shift, 2, 1e-14, 1e-14) || !close(kl, 0.5*(7+math.Log(0.25)), 1e-14, 1e-14) {
		t.Errorf("1-D: %v %v %v", shift, kl, err)
	}

	// 2-D, two classes. Learned Sigma = diag(1,4), means (0,0) and (1,1);
	// refit Sigma_hat = diag(2,1), means (1,2) and (1,1).
	// Class 0: shift^2 = 1 + 4/4 = 2; class 1: 0.
	// tr(Sigma^-1 Sigma_hat) = 2 + 1/4; ln(det Sigma / det Sigma_hat) = ln 2.
	l2 := LDA{Pi: []float64{0.5, 0.5}, Mu: [][]float64{{0, 0}, {1, 1}}, Sigma: [][]float64{{1, 0}, {0, 4}}}
	r2 := LDA{Pi: []float64{0.3, 0.7}, Mu: [][]float64{{1, 2}, {1, 1}}, Sigma: [][]float64{{2, 0}, {0, 1}}}
	shift, kl, err = Consistency(l2, r2)
	wantShift := math.Sqrt2 / 2
	base := 2.25 - 2 + math.Ln2
	wantKL := (0.5*(base+2) + 0.5*base) / 2
	if err != nil || !close(shift, wantShift, 1e-14, 1e-14) || !close(kl, wantKL, 1e-14, 1e-14) {
		t.Errorf("2-D: %v %v %v; want %v %v", shift, kl, err, wantShift, wantKL)
	}

	// 2-D with correlations, against explicit 2x2 inverses.
	S := [][]float64{{2, 0.6}, {0.6, 1}}
	H := [][]float64{{1.5, -0.2}, {-0.2, 0.8}}
	l3 := LDA{Pi: []float64{1}, Mu: [][]float64{{0.5, -1}}, Sigma: S}
	r3 := LDA{Pi: []float64{1}, Mu: [][]float64{{1.5, 0}}, Sigma: H}
	det := S[0][0]*S[1][1] - S[0][1]*S[1][0]
	inv := [][]float64{{S[1][1] / det, -S[0][1] / det}, {-S[1][0] / det, S[0][0] / det}}
	dv := []float64{1, 1}
	m2 := dv[0]*(inv[0][0]*dv[0]+inv[0][1]*dv[1]) + dv[1]*(inv[1][0]*dv[0]+inv[1][1]*dv[1])
	tr := inv[0][0]*H[0][0] + inv[0][1]*H[1][0] + inv[1][0]*H[0][1] + inv[1][1]*H[1][1]
	detH := H[0][0]*H[1][1] - H[0][1]*H[1][0]
	shift, kl, err = Consistency(l3, r3)
	if err != nil || !close(shift, math.Sqrt(m2), 1e-14, 1e-13) || !close(kl, 0.5*(tr+m2-2+math.Log(det/detH)), 1e-14, 1e-13) {
		t.Errorf("correlated 2-D: %v %v %v", shift, kl, err)
	}

	// Errors, not NaN or panics.
	bad := LDA{Pi: []float64{1}, Mu: [][]float64{{0, 0}}, Sigma: [][]float64{{1, 1}, {1, 1}}}
	if _, _, err := Consistency(bad, r3); err == nil || !strings.Contains(err.Error(), "learned covariance") {
		t.Errorf("singular learned: %v", err)
	}
	if _, _, err := Consistency(l3, bad); err == nil || !strings.Contains(err.Error(), "refit covariance") {
		t.Errorf("singular refit: %v", err)
	}
	if _, _, err := Consistency(l1, r3); err == nil {
		t.Error("dimension mismatch: no error")
	}
	if _, _, err := Consistency(l2, r3); err == nil {
		t.Error("class count mismatch: no error")
	}
}

func TestPCA(t *testing.T) {
	// Points mean ± s_i r_i along an orthonormal basis r (a rotation): the
	// covariance is exactly sum_i 2 s_i^2 r_i r_i^T / (n-1).
	th := 0.4
	r := [][]float64{
		{math.Cos(th), math.Sin(th), 0},
		{-math.Sin(th) / math.Sqrt2, math.Cos(th) / math.Sqrt2, 1 / math.Sqrt2},
		{math.Sin(th) / math.Sqrt2, -math.Cos(th) / math.Sqrt2, 1 / math.Sqrt2},
	}
	s := []float64{5, 2, 0.5}
	mean := []float64{1, -2, 3}
	var x []float64
	for i := range r {
		for _, sign := range []float64{1, -1} {
			for j := 0; j < 3; j++ {
				x = append(x, mean[j]+sign*s[i]*r[i][j])
			}
		}
	}
	res, err := PCA(x, 6, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for j := range mean {
		if !close(res.Mean[j], mean[j], 1e-14, 1e-14) {
			t.Errorf("Mean = %v", res.Mean)
		}
	}
	total := 0.0
	for i := range s {
		total += 2 * s[i] * s[i] / 5
	}
	for i := range s {
		want := 2 * s[i] * s[i] / 5
		if !close(res.Variance[i], want, 1e-12, 1e-12) || !close(res.VarianceRatio[i], want/total, 1e-12, 1e-12) {
			t.Errorf("component %d: variance %v ratio %v, want %v %v", i, res.Variance[i], res.VarianceRatio[i], want, want/total)
		}
		// Same axis; sign fixed by the largest-magnitude entry.
		dot := 0.0
		big := 0
		for j := range r[i] {
			dot += res.Components[i][j] * r[i][j]
			if math.Abs(res.Components[i][j]) > math.Abs(res.Components[i][big]) {
				big = j
			}
		}
		if !close(math.Abs(dot), 1, 1e-12, 0) {
			t.Errorf("component %d = %v, want ±%v", i, res.Components[i], r[i])
		}
		if res.Components[i][big] <= 0 {
			t.Errorf("component %d = %v: largest entry is not positive", i, res.Components[i])
		}
	}
	// Projection: the first point is mean + 5 r_0, so (±5, 0, 0).
	pr := res.Project(x[:3])
	if !close(math.Abs(pr[0]), 5, 1e-12, 0) || math.Abs(pr[1]) > 1e-12 || math.Abs(pr[2]) > 1e-12 {
		t.Errorf("Project = %v", pr)
	}
	top, err := PCA(x, 6, 3, 1)
	if err != nil || len(top.Components) != 1 || top.Components[0][0] != res.Components[0][0] {
		t.Errorf("PCA k=1: %+v %v", top, err)
	}
	if len(top.Project(x)) != 6 {
		t.Error("Project with k=1 does not give one coordinate per point")
	}
	if _, err := PCA(x[:3], 1, 3, 1); err == nil {
		t.Error("one point: no error")
	}
	x[4] = math.Inf(1)
	if _, err := PCA(x, 6, 3, 1); err == nil {
		t.Error("Inf: no error")
	}
	expectPanic(t, "PCA k", func() { PCA(x, 6, 3, 4) })
	// Constant data: zero variance, ratios 0, no error.
	c, err := PCA([]float64{1, 1, 1, 1}, 2, 2, 2)
	if err != nil || c.Variance[0] != 0 || c.VarianceRatio[0] != 0 {
		t.Errorf("constant data: %+v %v", c, err)
	}
}

func TestEllipse(t *testing.T) {
	mu := []float64{1, -2}
	sigma := []float64{2, 0.7, 0.7, 1}
	pts, err := Ellipse(mu, sigma, 0.9, 400)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 400 {
		t.Fatalf("%d points", len(pts))
	}
	r2 := -2 * math.Log(0.1)
	det := sigma[0]*sigma[3] - sigma[1]*sigma[2]
	area := 0.0
	for i, p := range pts {
		dx, dy := p[0]-mu[0], p[1]-mu[1]
		m2 := (sigma[3]*dx*dx - 2*sigma[1]*dx*dy + sigma[0]*dy*dy) / det
		if !close(m2, r2, 1e-12, 1e-12) {
			t.Errorf("point %d at squared Mahalanobis distance %v, want %v", i, m2, r2)
		}
		q := pts[(i+1)%len(pts)]
		area += 0.5 * (p[0]*q[1] - q[0]*p[1])
	}
	// Positive (counter-clockwise) area close to pi r^2 sqrt(det).
	if want := math.Pi * r2 * math.Sqrt(det); !close(area, want, 0, 1e-3) {
		t.Errorf("area = %v, want %v", area, want)
	}
	if _, err := Ellipse(mu, []float64{1, 1, 1, 1}, 0.9, 10); err == nil {
		t.Error("singular covariance: no error")
	}
	expectPanic(t, "level", func() { Ellipse(mu, sigma, 1, 10) })
	expectPanic(t, "points", func() { Ellipse(mu, sigma, 0.5, 2) })
}
