package browsertest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
)

// convnetGoal is the bound of the WebGPU issue: on every backend the
// ConvNet training step at batch 64 reaches at least 60% of the same
// backend's GFLOP/s on a 1024x1024x1024 matmul.
const convnetGoal = 0.6

// gpuBenchQuery is what the page times, in this order: the matmul before
// and after the ConvNet steps, so that a change in the machine's load
// shows as a spread between the two matmul figures.
const gpuBenchQuery = "?bench=matmul:5,convnet:2,matmul:5&size=1024&batch=64"

// BenchmarkWebGPUConvNetVsMatMul times, in one page load on Chromium's
// WebGPU (SwiftShader in headless Chromium), what "deeplda bench" times
// natively: a 1024x1024x1024 matmul and a ConvNet training step at batch
// 64 on 28x28 inputs (experiment.Bench, run by the golden page program's
// bench mode), reports both rates and their ratio, and fails when the
// ratio is below convnetGoal. It is skipped, saying so, when this Chromium
// offers no WebGPU adapter. SwiftShader is slow (half a minute per ConvNet
// step on two cores); one pass takes a few minutes:
//
//	./build.sh site
//	DEEPLDA_SITE=$PWD/out/site go test -run '^$' -bench WebGPUConvNetVsMatMul -benchtime 1x -v ./browsertest
func BenchmarkWebGPUConvNetVsMatMul(b *testing.B) {
	if noBrowser != "" {
		b.Skip("SKIPPED: " + noBrowser)
	}
	page := serveGoldenPage(b, buildGoldenPage(b), "")
	var matmul, convnet []float64
	for i := 0; i < b.N; i++ {
		br := newBrowser(b, options{})
		for _, r := range gpuBench(b, br, page+gpuBenchQuery) {
			b.Logf("%s on %s (%s): %d steps, %.3f s/step, %.2f GFLOP/s", r.Model, r.Backend.Name, r.Backend.Adapter, r.Steps, r.SecondsPerStep, r.GFLOPS)
			if r.Model == "matmul" {
				matmul = append(matmul, r.GFLOPS)
			} else {
				convnet = append(convnet, r.GFLOPS)
			}
		}
		br.checkClean()
	}
	mm, cn := mean(matmul), mean(convnet)
	ratio := cn / mm
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(mm, "matmul-GFLOP/s")
	b.ReportMetric(cn, "convnet-GFLOP/s")
	b.ReportMetric(ratio, "convnet/matmul")
	b.Logf("matmul 1024: %.2f GFLOP/s %v; ConvNet step, batch 64: %.2f GFLOP/s %v; ratio %.0f%% (goal >= %.0f%%)",
		mm, matmul, cn, convnet, 100*ratio, 100*convnetGoal)
	if ratio < convnetGoal {
		b.Errorf("the ConvNet step runs at %.0f%% of the matmul's rate, less than %.0f%%", 100*ratio, 100*convnetGoal)
	}
}

// gpuBench opens the golden page program's bench mode at u and returns its
// timings; it skips the benchmark when the browser has no WebGPU adapter.
func gpuBench(b *testing.B, br *browser, u string) []experiment.BenchResult {
	b.Helper()
	r := benchPage(b, br, u)
	if len(r.Results) != strings.Count(u, ",")+1 {
		b.Fatalf("%d results for %s", len(r.Results), u)
	}
	return r.Results
}

// benchResult is the golden page program's bench result.
type benchResult struct {
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table"`
	Error   string                   `json:"error"`
	Stopped bool                     `json:"stopped"`
}

// benchPage opens the golden page program's bench mode at u and returns its
// result, timed on WebGPU; without a WebGPU adapter it skips the test
// loudly, or fails it in CI.
func benchPage(t testing.TB, br *browser, u string) benchResult {
	t.Helper()
	br.openURL(u)
	br.waitFor(`document.body.dataset.state === 'done' || document.body.dataset.state === 'error'`, 30*time.Minute)
	raw := eval[string](br, `document.getElementById('result').textContent`)
	var r benchResult
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("#result is not the bench result: %v\n%.500s", err, raw)
	}
	if r.Error != "" {
		if strings.Contains(r.Error, "no WebGPU adapter") && os.Getenv("CI") == "" {
			t.Skipf("SKIPPED: this Chromium offers no WebGPU adapter: %s", r.Error)
		}
		t.Fatalf("the bench page failed: %s", r.Error)
	}
	for _, x := range r.Results {
		if x.Backend.Name != "webgpu" || x.GFLOPS <= 0 {
			t.Fatalf("timed on %q at %v GFLOP/s, want webgpu", x.Backend.Name, x.GFLOPS)
		}
	}
	return r
}

// TestGPUBenchSuite runs bench=1, the GPU table of "deeplda bench -suite",
// reduced to small sizes, in the golden page program on Chromium's WebGPU
// (see checkSuite).
func TestGPUBenchSuite(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	page := serveGoldenPage(t, buildGoldenPage(t), "")
	br := newBrowser(t, options{})
	checkSuite(t, benchPage(t, br, page+"?bench=1&"+suiteQuery))
	br.checkClean()
}

// TestPageBenchSuite runs bench=1 in the trainer's page on WebGPU: it
// shows the GPU table instead of training, and #report holds the results
// and the table (see checkSuite).
func TestPageBenchSuite(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	br := newBrowser(t, options{})
	br.openOnWebGPU(t, "?bench=1&autostart=1&backend=webgpu&"+suiteQuery)
	br.waitFinished("done", 10*time.Minute)
	var r benchResult
	if err := json.Unmarshal([]byte(br.text("#report")), &r); err != nil {
		t.Fatalf("#report is not the bench result: %v\n%.500s", err, br.text("#report"))
	}
	checkSuite(t, r)
	if !strings.Contains(br.text("#summary"), "| ConvNet step, batch 1 |") {
		t.Errorf("the page does not show the table: %q", br.text("#summary"))
	}
	br.checkClean()
}

// suiteQuery shrinks the GPU table to sizes SwiftShader times quickly.
const suiteQuery = "sizes=32,64&batches=1&steps=1"

// checkSuite checks the result of bench=1 with suiteQuery: each
// benchmark's result, with what a step asks of the device (one submission
// per training step, no read-back) and its device time by op family (or
// why there is none), and the Markdown table.
func checkSuite(t *testing.T, r benchResult) {
	t.Helper()
	t.Logf("\n%s", r.Table)
	if len(r.Results) != 4 || r.Results[2].Model != "convnet" || r.Results[3].Model != "mlp" {
		t.Fatalf("results %+v; want two matmuls, the ConvNet step and the toy step", r.Results)
	}
	for _, x := range r.Results[2:] {
		if x.PerStep == nil || x.PerStep.Submits != 1 || x.PerStep.Readbacks != 0 {
			t.Errorf("%s: per_step %+v; want one submission and no read-back", x.Model, x.PerStep)
		}
		if (x.GPUMs == nil) == (x.GPUMsUnavailable == "") {
			t.Errorf("%s: gpu_ms %v, gpu_ms_unavailable %q; want exactly one", x.Model, x.GPUMs, x.GPUMsUnavailable)
		}
	}
	if ms := r.Results[2].GPUMs; ms != nil && (ms["conv"] <= 0 || ms["batchnorm"] <= 0) {
		t.Errorf("the ConvNet step's gpu_ms %v; want time for conv and batchnorm", ms)
	}
	for _, want := range []string{"| matmul 64 |", "| ConvNet step, batch 1 |", "| toy step, batch 256 |", "of the 64 matmul"} {
		if !strings.Contains(r.Table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// mean is the arithmetic mean of xs.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
