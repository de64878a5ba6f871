package browsertest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/gpurecord"
	"github.com/deeplda/deeplda/kernels"
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
	checkSuite(t, benchPage(t, br, page+"?bench=1&"+suiteQuery), suiteConfig(t, suiteQuery))
	br.checkClean()
}

// TestPageBenchSuite runs bench=1 in the trainer's page on WebGPU: it
// shows the GPU table instead of training, and #report holds the results
// and the table (see checkSuite). bench/page_gpu.sh sets three variables:
// $DEEPLDA_PAGE_SUITE, the suite's settings in place of suiteQuery
// ("sizes=1024,2048,4096&batches=64,256&steps=20"); $DEEPLDA_PAGE_RECORD,
// a file that then receives the page's adapter and the results
// (gpurecord.PageRun); and $DEEPLDA_PAGE_HARDWARE=1, which fails the test
// before the suite runs when the adapter is a CPU implementation of
// WebGPU (SwiftShader) rather than the GPU.
func TestPageBenchSuite(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	query := cmp.Or(os.Getenv("DEEPLDA_PAGE_SUITE"), suiteQuery)
	c := suiteConfig(t, query)
	br := newBrowser(t, options{})
	br.open("")
	adapter := br.adapter()
	version, err := cdp.Call(br.ctx, chromedp.FromContext(br.ctx).Browser, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		t.Fatalf("asking for the browser's version: %v", err)
	}
	t.Logf("%s, adapter %q: %d features, device limits %v", version.Product, adapter.Name(), len(adapter.Features), adapter.DeviceLimits)
	if adapter.Software && os.Getenv("DEEPLDA_PAGE_HARDWARE") == "1" {
		t.Fatalf("the page's adapter %q is a CPU implementation of WebGPU, not the GPU (DEEPLDA_PAGE_HARDWARE=1)", adapter.Name())
	}
	br.openOnWebGPU(t, "?bench=1&autostart=1&backend=webgpu&"+query)
	br.waitFinished("done", 10*time.Minute)
	var r benchResult
	if err := json.Unmarshal([]byte(br.text("#report")), &r); err != nil {
		t.Fatalf("#report is not the bench result: %v\n%.500s", err, br.text("#report"))
	}
	checkSuite(t, r, c)
	if want := fmt.Sprintf("| ConvNet step, batch %d |", c.Batches[0]); !strings.Contains(br.text("#summary"), want) {
		t.Errorf("the page does not show the table: %q", br.text("#summary"))
	}
	br.checkClean()
	if path := os.Getenv("DEEPLDA_PAGE_RECORD"); path != "" {
		run := gpurecord.PageRun{Browser: version.Product, Flags: strings.Fields(os.Getenv("DEEPLDA_CHROMIUM_FLAGS")),
			Adapter: adapter, Results: r.Results, Table: r.Table}
		b, err := json.MarshalIndent(run, "", "  ")
		if err == nil {
			err = os.WriteFile(path, append(b, '\n'), 0o644)
		}
		if err != nil {
			t.Fatalf("DEEPLDA_PAGE_RECORD: %v", err)
		}
	}
}

// adapterJS describes the adapter that navigator.gpu gives the page, and
// the limits of a device requested with the defaults, as the page's
// backend requests it, in JSON (gpurecord.PageAdapter); "" without one.
const adapterJS = `(async () => {
  const a = navigator.gpu && await navigator.gpu.requestAdapter();
  if (!a) return '';
  const all = (o) => { const m = {}; for (const k in o) if (typeof o[k] === 'number') m[k] = o[k]; return m; };
  const d = await a.requestDevice();
  const i = a.info;
  const r = { vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description,
    fallback: !!(a.isFallbackAdapter || i.isFallbackAdapter), features: [...a.features].sort(),
    limits: all(a.limits), device_limits: all(d.limits) };
  d.destroy();
  return JSON.stringify(r);
})()`

// adapter returns the page's WebGPU adapter; without one it ends the test
// through noWebGPU.
func (b *browser) adapter() gpurecord.PageAdapter {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](adapterJS, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("asking for the adapter: %v", err)
	}
	var a gpurecord.PageAdapter
	if s == "" {
		noWebGPU(b.t, "navigator.gpu gives no adapter")
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		b.t.Fatalf("the adapter's description %q: %v", s, err)
	}
	a.Software = kernels.SoftwareAdapter(a.Fallback, a.Name())
	return a
}

// suiteQuery shrinks the GPU table to sizes SwiftShader times quickly;
// the matmul of 128 runs on the wide GEMM tile, 32 on the narrow one.
const suiteQuery = "sizes=32,128&batches=1&steps=1"

// suiteConfig is the suite that bench=1 runs with query's sizes, batches
// and steps.
func suiteConfig(t *testing.T, query string) experiment.SuiteConfig {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("the suite's settings %q: %v", query, err)
	}
	steps, err := strconv.Atoi(cmp.Or(q.Get("steps"), "2"))
	if err != nil {
		t.Fatalf("the suite's settings %q: steps: %v", query, err)
	}
	c, err := experiment.ParseSuite(q.Get("sizes"), q.Get("batches"), steps)
	if err != nil {
		t.Fatalf("the suite's settings %q: %v", query, err)
	}
	return c
}

// checkSuite checks the result of bench=1 with the suite c: each
// benchmark's result in c's order, with what a training step asks of the
// device (one submission, and one more each time the ring of uniform
// blocks wraps; no read-back) and its device time by op family (or why
// there is none), and the Markdown table.
func checkSuite(t *testing.T, r benchResult, c experiment.SuiteConfig) {
	t.Helper()
	t.Logf("\n%s", r.Table)
	cs := c.Configs()
	if len(r.Results) != len(cs) {
		t.Fatalf("%d results %+v; want %d", len(r.Results), r.Results, len(cs))
	}
	for i, want := range cs {
		x := r.Results[i]
		if got, want := benchName(x.Model, x.Size, x.Batch), benchName(want.Model, want.Size, want.Batch); got != want {
			t.Errorf("result %d: %q, want %q", i, got, want)
		}
		if row := "| " + benchName(x.Model, x.Size, x.Batch) + " |"; !strings.Contains(r.Table, row) {
			t.Errorf("the table lacks %q", row)
		}
		if x.Model == "matmul" {
			continue
		}
		if x.PerStep == nil || x.PerStep.Submits < 1 || x.PerStep.Submits > 1.2 || x.PerStep.Readbacks != 0 {
			t.Errorf("%s: per_step %+v; want one submission a step (1.1 where the uniform ring wraps, every ninth ConvNet step) and no read-back", x.Model, x.PerStep)
		}
		if (x.GPUMs == nil) == (x.GPUMsUnavailable == "") {
			t.Errorf("%s: gpu_ms %v, gpu_ms_unavailable %q; want exactly one", x.Model, x.GPUMs, x.GPUMsUnavailable)
		}
		if ms := x.GPUMs; x.Model == "convnet" && ms != nil && (ms["conv"] <= 0 || ms["batchnorm"] <= 0) {
			t.Errorf("the ConvNet step's gpu_ms %v; want time for conv and batchnorm", ms)
		}
	}
	if want := fmt.Sprintf("of the %d matmul", slices.Max(c.Sizes)); !strings.Contains(r.Table, want) {
		t.Errorf("the table lacks %q", want)
	}
}

// benchName names a benchmark of the suite as its table does.
func benchName(model string, size, batch int) string {
	switch model {
	case "matmul":
		return fmt.Sprintf("matmul %d", size)
	case "convnet":
		return fmt.Sprintf("ConvNet step, batch %d", batch)
	}
	return fmt.Sprintf("toy step, batch %d", batch)
}

// mean is the arithmetic mean of xs.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
