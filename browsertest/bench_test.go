package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// maxBrowserRatio is the bound of the issue: the toy run in Chromium takes
// at most twice the native time.
const maxBrowserRatio = 2.0

// timeoutsJS records, from before the page's own scripts run, the short
// timers (at most 5 ms asked) that fire while the page is training: the Go
// runtime's time.Sleep, through which the page hands the thread back to the
// browser. waited sums the time from setting each timer to its firing, that
// is what each yield costs (the timer's clamp plus whatever the browser ran
// in between).
const timeoutsJS = `(() => {
  const st = { n: 0, asked: 0, waited: 0, max: 0 };
  window.__timeouts = st;
  const orig = window.setTimeout;
  window.setTimeout = function (fn, delay, ...args) {
    const d = Number(delay) || 0;
    if (typeof fn !== 'function' || d > 5 || !document.body || document.body.dataset.state !== 'training') {
      return orig.call(window, fn, delay, ...args);
    }
    const t0 = performance.now();
    return orig.call(window, function (...a) {
      const w = performance.now() - t0;
      st.n++; st.asked += d; st.waited += w; st.max = Math.max(st.max, w);
      return fn.apply(this, a);
    }, delay, ...args);
  };
})();`

// toyTiming is the result of the page program's toy mode
// (goldenpage.ToyResult), or its error.
type toyTiming struct {
	ReportEvery  int     `json:"report_every"`
	YieldMS      int     `json:"yield_ms"`
	Yields       int     `json:"yields"`
	Seconds      float64 `json:"seconds"`
	YieldSeconds float64 `json:"yield_seconds"`
	TestAccuracy float64 `json:"test_accuracy"`
	Error        string  `json:"error"`
}

// BenchmarkToyBrowserVsNative times the default toy DNLL run (Deep LDA, MLP
// 2-32-2, full head, 100 epochs, 20,000 points, batch 256, CPU backend)
// natively in this process and in the trainer page in Chromium
// (?demo=deep&loss=dnll&backend=cpu&autostart=1, the training time of
// report.json), and fails when the page takes more than maxBrowserRatio
// times the native time. To tell where the page's time goes it also times
// the same run compiled to WebAssembly without the page (the golden page
// program's toy mode): bare (progress every 10 steps, no yields), and paced
// as the page paces it (a progress report every step, a 1 ms sleep every
// 30 ms).
//
// It is not part of "./build.sh test" (benchmarks do not run without
// -bench); one pass takes a few minutes:
//
//	./build.sh site
//	DEEPLDA_SITE=$PWD/out/site go test -run '^$' -bench ToyBrowserVsNative -benchtime 1x -v ./browsertest
func BenchmarkToyBrowserVsNative(b *testing.B) {
	if noBrowser != "" {
		b.Skip("SKIPPED: " + noBrowser)
	}
	toyPage := serveGoldenPage(b, buildGoldenPage(b), "")
	var native, inPage, bare, paced float64
	for i := 0; i < b.N; i++ {
		native += nativeToy(b)
		inPage += pageToy(b)
		br := newBrowser(b, options{})
		bare += wasmToy(b, br, toyPage, "")
		paced += wasmToy(b, br, toyPage, "&report=1&yield=30")
	}
	n := float64(b.N)
	native, inPage, bare, paced = native/n, inPage/n, bare/n, paced/n
	ratio := inPage / native
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(native, "native-s")
	b.ReportMetric(inPage, "page-s")
	b.ReportMetric(ratio, "page/native")
	b.ReportMetric(bare, "wasm-bare-s")
	b.ReportMetric(paced, "wasm-paced-s")
	b.Logf("training time: native %.2f s, page %.2f s (%.2fx native); the same run in WebAssembly without the page: bare %.2f s (%.2fx), paced like the page %.2f s (%.2fx); GOMAXPROCS %d",
		native, inPage, ratio, bare, bare/native, paced, paced/native, runtime.GOMAXPROCS(0))
	if ratio > maxBrowserRatio {
		b.Errorf("the toy run takes %.2fx the native time in the page, more than %gx", ratio, maxBrowserRatio)
	}
}

// nativeToy trains the default toy run on the CPU backend and returns its
// training time (report.json's seconds, evaluations excluded).
func nativeToy(b *testing.B) float64 {
	be := cpu.New()
	r, err := experiment.NewSynth(be, experiment.DefaultSynth())
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for !r.Done() {
		if err := r.Epoch(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("native (%s): %.2f s training, %.2f s with the evaluations; test accuracy %.4f",
		be.Info().Adapter, float64(r.Report.Seconds), time.Since(start).Seconds(), float64(r.Report.Test.Accuracy))
	return float64(r.Report.Seconds)
}

// pageToy trains the default toy run in the trainer page on the CPU
// backend and returns the training time of its report.json.
func pageToy(b *testing.B) float64 {
	br := newBrowser(b, options{})
	addScript := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: timeoutsJS})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(br.ctx, addScript); err != nil {
		b.Fatalf("installing the timer probe: %v", err)
	}
	br.open("?demo=deep&loss=dnll&backend=cpu&autostart=1")
	start := time.Now()
	br.waitFinished("done", 15*time.Minute)
	wall := time.Since(start)
	var rep struct {
		Seconds float64        `json:"seconds"`
		Config  map[string]any `json:"config"`
		Backend struct{ Name, Adapter string }
		Test    split `json:"test"`
	}
	raw := eval[string](br, `document.getElementById('report').textContent`)
	if err := json.Unmarshal([]byte(raw), &rep); err != nil {
		b.Fatalf("#report is not report.json: %v", err)
	}
	d := experiment.DefaultSynth()
	if rep.Backend.Name != "cpu" || rep.Config["epochs"] != float64(d.Epochs) || rep.Config["train"] != float64(d.Train) || rep.Config["batch"] != float64(d.Batch) || rep.Config["loss"] != "dnll" {
		b.Fatalf("the page trained %v on %q, not the default toy run on the CPU", rep.Config, rep.Backend.Name)
	}
	type timeouts struct {
		N      int     `json:"n"`
		Asked  float64 `json:"asked"`
		Waited float64 `json:"waited"`
		Max    float64 `json:"max"`
	}
	to := eval[timeouts](br, `window.__timeouts`)
	b.Logf("page (%s): %.2f s training, %.1f s until done; test accuracy %.4f; %d short timers while training (%.0f ms asked, %.0f ms waited, longest %.0f ms)",
		rep.Backend.Adapter, rep.Seconds, wall.Seconds(), float64(rep.Test.Accuracy), to.N, to.Asked, to.Waited, to.Max)
	br.checkClean()
	return rep.Seconds
}

// wasmToy runs the golden page program's toy mode (query: more of its
// parameters) and returns its training time.
func wasmToy(b *testing.B, br *browser, pageURL, query string) float64 {
	br.openURL(pageURL + "?toy=1" + query)
	br.waitFor(`document.body.dataset.state === 'done' || document.body.dataset.state === 'error'`, 15*time.Minute)
	var r toyTiming
	raw := eval[string](br, `document.getElementById('result').textContent`)
	if err := json.Unmarshal([]byte(raw), &r); err != nil || r.Error != "" {
		b.Fatalf("toy mode%s: %v %s\n%.300s", query, err, r.Error, raw)
	}
	what := "bare"
	if r.YieldMS > 0 {
		what = fmt.Sprintf("paced (report every %d, yield every %d ms)", r.ReportEvery, r.YieldMS)
	}
	b.Logf("wasm %s: %.2f s training; %d yields took %.2f s; test accuracy %.4f", what, r.Seconds, r.Yields, r.YieldSeconds, r.TestAccuracy)
	return r.Seconds
}
