package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// The shared state of the browser tests, set up by TestMain.
var (
	chromium  string                         // the browser binary
	flags     []chromedp.ExecAllocatorOption // $DEEPLDA_CHROMIUM_FLAGS (chromiumFlags)
	noBrowser string                         // why the browser tests are skipped ("" when they run)
	siteDir   string                         // the built site
	server    *httptest.Server               // serves the built site under prefix
	baseURL   string                         // the page: server URL + prefix
	shotDir   string                         // where screenshots go (CI keeps out/screenshots)
)

// prefix is the subpath the site is served from, as on GitHub Pages.
const prefix = "/deeplda/"

// maxGap is the longest the page's main thread may stay busy while
// training (the heartbeat's largest gap). On the 2-core test machine the
// demos' longest gaps measured 159-252 ms with figures drawn at their own
// size, and up to 944 ms for the site before that change on a machine
// still busy; the bound catches a tab that freezes for the better part of
// a second, not the noise of a shared machine.
const maxGap = 400 * time.Millisecond

func TestMain(m *testing.M) { os.Exit(setup(m)) }

// noWebGPU ends a test that needs the page's WebGPU device when there is
// none: a failure in CI (CI set), where Chromium's SwiftShader must offer
// one, and a loud skip elsewhere.
func noWebGPU(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("no WebGPU in this Chromium, and CI is set, so this test must run: %s", why)
	}
	t.Skipf("SKIPPED: no WebGPU in this Chromium: %s", why)
}

// setup finds Chromium, builds (or takes) the site, serves it and runs the
// tests. Without Chromium the tests fail in CI (CI set) and are skipped
// loudly elsewhere, but for those that need only the site of $DEEPLDA_SITE.
func setup(m *testing.M) int {
	var err error
	if flags, err = chromiumFlags(os.Getenv("DEEPLDA_CHROMIUM_FLAGS")); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: DEEPLDA_CHROMIUM_FLAGS:", err)
		return 1
	}
	chromium = findChromium()
	if chromium == "" {
		msg := "no Chromium found (apt-get install chromium, or set CHROMIUM to the browser binary)"
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "browsertest: FAIL: "+msg)
			return 1
		}
		fmt.Fprintln(os.Stderr, "browsertest: SKIPPED, the browser tests did not run: "+msg)
		noBrowser = msg
		siteDir = os.Getenv("DEEPLDA_SITE") // for the tests that need no browser
		return m.Run()
	}
	site := os.Getenv("DEEPLDA_SITE")
	if site == "" {
		tmp, err := os.MkdirTemp("", "deeplda-site-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		site = filepath.Join(tmp, "site")
		cmd := exec.Command("bash", "build.sh", "site", site)
		cmd.Dir = ".."
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest: building the site:", err)
			return 1
		}
	}
	if _, err := os.Stat(filepath.Join(site, "site", "app.wasm")); err != nil {
		fmt.Fprintf(os.Stderr, "browsertest: %s is not a built site: %v\n", site, err)
		return 1
	}
	siteDir = site
	shotDir = filepath.Join("..", "out", "screenshots")
	if err := os.MkdirAll(shotDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	server = httptest.NewServer(NewHandler(site, prefix))
	defer server.Close()
	baseURL = server.URL + prefix
	return m.Run()
}

// findChromium returns the browser binary: $CHROMIUM, or the first of the
// usual names on PATH.
func findChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return ""
		}
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromiumFlags parses extra command-line flags for Chromium: words
// "--name" or "--name=value" separated by spaces. bench/page_gpu.sh sets
// them in $DEEPLDA_CHROMIUM_FLAGS to put the page's WebGPU on the GPU
// ("--enable-features=Vulkan --use-angle=vulkan ..."). They come after the
// harness's own flags and replace those of the same name ("--headless=new"
// for "--headless").
func chromiumFlags(s string) ([]chromedp.ExecAllocatorOption, error) {
	var opts []chromedp.ExecAllocatorOption
	for _, w := range strings.Fields(s) {
		name, ok := strings.CutPrefix(w, "--")
		if !ok || name == "" || strings.HasPrefix(name, "=") {
			return nil, fmt.Errorf("%q is not a flag --name or --name=value", w)
		}
		if k, v, ok := strings.Cut(name, "="); ok {
			opts = append(opts, chromedp.Flag(k, v))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	return opts, nil
}

// heartbeatJS records, from before the page's own scripts run, the longest
// gap between two 10 ms interval ticks while the page is training: how long
// the main thread was busy at a stretch.
const heartbeatJS = `(() => {
  const hb = { max: 0, ticks: 0, last: 0, wasTraining: false, long: [], tasks: [], from: 0, to: 0 };
  window.__heartbeat = hb;
  setInterval(() => {
    const now = performance.now();
    const training = !!document.body && document.body.dataset.state === 'training';
    if (hb.wasTraining && hb.last) { hb.max = Math.max(hb.max, now - hb.last); hb.ticks++; if (now - hb.last > 150) hb.long.push(Math.round(now - hb.last) + ' ms ending at ' + Math.round(now) + ' ms'); }
    if (training) {
      const p = document.getElementById('progress-text');
      const m = p ? / · step \d+ \/ \d+ · |: (\d+) \/ (\d+) images$/.exec(p.textContent) : null;
      if (m && (m[1] === undefined || m[1] !== m[2])) { if (!hb.from) hb.from = now; hb.to = now; }
    }
    hb.last = now;
    hb.wasTraining = training;
  }, 10);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) hb.tasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { hb.noObserver = String(e); }
  hb.frames = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        hb.frames.push({ start: e.startTime, duration: e.duration, render: e.renderStart ? e.renderStart - e.startTime : 0,
          layout: e.styleAndLayoutStart ? e.styleAndLayoutStart - e.startTime : 0,
          scripts: e.scripts.map((x) => x.invoker + ' ' + Math.round(x.duration) + ' ms') });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch (e) {}
})();`

// maxTask is the longest task the page's main thread may run while the
// engine trains (the Long Tasks API reports tasks over 50 ms).
const maxTask = 50 * time.Millisecond

// maxLayoutsPerSecond bounds how often the page may lay itself out while
// the engine trains: progress comes at most ten times a second, and each
// may change the layout once. An animation (a CSS transition on the
// progress bar) lays out every frame, 60 times a second, on a thread that
// a 2-core machine's engine and module Workers need.
const maxLayoutsPerSecond = 15

// browser is one headless Chromium with one tab, recording the tab's
// console messages and requests.
type browser struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	console  []chromedp.ConsoleMessage
	requests []string
}

// options of newBrowser.
type options struct {
	noWebGPU bool // leave WebGPU off (no --enable-unsafe-webgpu, WebGPU features disabled)
	noProbes bool // leave out the heartbeat (heartbeatJS), whose 10 ms ticks take the page's thread from a timed run
}

// newBrowser starts Chromium with a fresh profile; it is closed when the
// test (or benchmark) ends.
func newBrowser(t testing.TB, o options) *browser {
	t.Helper()
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	}
	if o.noWebGPU {
		opts = append(opts, chromedp.Flag("disable-features", "WebGPU,Vulkan"), chromedp.Flag("disable-gpu", true))
	} else {
		opts = append(opts, chromedp.Flag("enable-unsafe-webgpu", true))
	}
	opts = append(opts, flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", chromium, err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	reqs := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range reqs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.requests = append(b.requests, ev.Request.URL)
			b.mu.Unlock()
		}
	}()
	if !o.noProbes {
		b.onNewDocument("the heartbeat", heartbeatJS)
	}
	return b
}

// onNewDocument has the tab run the script src (what, for errors) in every
// document it loads from then on, before the page's own scripts.
func (b *browser) onNewDocument(what, src string) {
	b.t.Helper()
	add := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(b.ctx, add); err != nil {
		b.t.Fatalf("installing %s: %v", what, err)
	}
}

// open loads the page with a query ("?demo=deep&...") and waits until the
// Go program has started.
func (b *browser) open(query string) { b.openURL(baseURL + query) }

// openOnWebGPU opens the page with query (which starts a run) and ends the
// test through noWebGPU unless the run got the WebGPU backend.
func (b *browser) openOnWebGPU(t *testing.T, query string) {
	t.Helper()
	b.open(query)
	if eval[string](b, `document.getElementById('backend').dataset.backend || ''`) != "webgpu" {
		noWebGPU(t, b.text("#notice"))
	}
}

// openURL loads a page and waits until the Go program has started.
func (b *browser) openURL(u string) {
	b.t.Helper()
	b.t.Logf("opening %s", u)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		b.t.Fatalf("navigating: %v", err)
	}
	b.waitFor(`document.body.dataset.ready === '1' || document.body.dataset.state === 'error'`, time.Minute)
}

// eval evaluates a JavaScript expression in the page and decodes the result
// into a T.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition every 200 ms until it holds.
func (b *browser) waitFor(cond string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waited %v for %s (last error %v); state %q, progress %q, notice %q", timeout, cond, err,
				b.state(), b.text("#progress-text"), b.text("#notice"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// state returns document.body.dataset.state.
func (b *browser) state() string {
	v, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.dataset.state || ''`))
	return v
}

// text returns the text of the first element matching a CSS selector ("" if
// there is none).
func (b *browser) text(sel string) string {
	q, _ := json.Marshal(sel)
	v, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.querySelector(`+string(q)+`) || {textContent: ''}).textContent`))
	return strings.TrimSpace(v)
}

// waitFinished waits until the page stops training and fails unless the
// state is then want.
func (b *browser) waitFinished(want string, timeout time.Duration) {
	b.t.Helper()
	start := time.Now()
	b.waitFor(`document.body.dataset.state !== 'training'`, timeout)
	if got := b.state(); got != want {
		b.t.Fatalf("state %q after %v, want %q; notice %q; progress %q; form %q", got, time.Since(start).Round(time.Second), want,
			b.text("#notice"), b.text("#progress-text"), b.text("#form-error"))
	}
	b.t.Logf("%s after %v: %s", want, time.Since(start).Round(100*time.Millisecond), b.text("#progress-text"))
}

// report is the part of report.json the tests read.
type report struct {
	Kind    string         `json:"kind"`
	Config  map[string]any `json:"config"`
	Backend struct{ Name, Adapter string }
	Train   split `json:"train"`
	Test    split `json:"test"`
	Head    struct {
		Sigma     *float64 `json:"sigma"`
		LogDetCov *float64 `json:"logdet_cov"`
	} `json:"head"`
	Consistency *struct {
		MeanShift float64 `json:"mean_shift"`
		KL        float64 `json:"kl"`
	} `json:"consistency"`
	History []struct {
		Epoch int `json:"epoch"`
	} `json:"history"`
	Status string `json:"status"`
}

type split struct {
	Examples int     `json:"examples"`
	Accuracy float64 `json:"accuracy"`
	ECE      float64 `json:"ece"`
}

// report decodes the content of #report.
func (b *browser) report() report {
	b.t.Helper()
	raw := eval[string](b, `document.getElementById('report').textContent`)
	var r report
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		b.t.Fatalf("#report is not report.json: %v\n%.300s", err, raw)
	}
	return r
}

// checkFigures checks that the element sel holds at least n SVG figures
// with at least elems SVG elements in all.
func (b *browser) checkFigures(sel string, n, elems int) {
	b.t.Helper()
	q, _ := json.Marshal(sel)
	svgs := eval[int](b, `document.querySelectorAll(`+string(q)+` + ' svg').length`)
	all := eval[int](b, `document.querySelectorAll(`+string(q)+` + ' svg *').length`)
	if svgs < n || all < elems {
		b.t.Errorf("%s: %d SVG figures with %d elements, want at least %d and %d", sel, svgs, all, n, elems)
	}
}

// checkResponsive checks the heartbeat: the page's main thread never stayed
// busy longer than maxGap while training.
func (b *browser) checkResponsive() {
	b.t.Helper()
	type hb struct {
		Max   float64  `json:"max"`
		Ticks int      `json:"ticks"`
		Long  []string `json:"long"`
	}
	h := eval[hb](b, `window.__heartbeat`)
	b.t.Logf("heartbeat while training: %d ticks, longest gap %.0f ms; gaps over 150 ms: %v", h.Ticks, h.Max, h.Long)
	if h.Ticks < 10 {
		b.t.Errorf("only %d heartbeat ticks while training: the page was not running timers", h.Ticks)
	}
	if gap := time.Duration(h.Max * float64(time.Millisecond)); gap > maxGap {
		b.t.Errorf("the page froze for %v while training (limit %v)", gap.Round(time.Millisecond), maxGap)
		b.logConsole()
	}
}

// layouts returns how many times the tab has computed its layout (the
// DevTools Performance domain's LayoutCount), switching the domain's
// metrics on at the first call.
func (b *browser) layouts() float64 {
	b.t.Helper()
	var n float64
	get := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, performance.Enable, performance.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		r, err := cdp.Call(ctx, tg, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			return chromedp.Void{}, err
		}
		for _, m := range r.Metrics {
			if m.Name == "LayoutCount" {
				n = m.Value
				return chromedp.Void{}, nil
			}
		}
		return chromedp.Void{}, errors.New("no LayoutCount among the metrics")
	}
	if err := chromedp.Do(b.ctx, get); err != nil {
		b.t.Fatalf("reading the tab's performance metrics: %v", err)
	}
	return n
}

// waitFinishedCalm is waitFinished for a run that is starting (autostart):
// it also checks that the page laid itself out at most maxLayoutsPerSecond
// times a second while it trained (a few more for the final figures).
func (b *browser) waitFinishedCalm(want string, timeout time.Duration) {
	b.t.Helper()
	b.waitFor(`document.body.dataset.state !== 'idle'`, time.Minute)
	from, start := b.layouts(), time.Now()
	b.waitFinished(want, timeout)
	n, secs := b.layouts()-from, time.Since(start).Seconds()
	b.t.Logf("the page laid out %.0f times in the %.1f s of the run", n, secs)
	if limit := maxLayoutsPerSecond*secs + 20; n > limit {
		b.t.Errorf("the page laid out %.0f times in %.1f s of training, more than %.0f: something animates while the engine works", n, secs, limit)
	}
}

// checkNoLongTasks checks, with the Long Tasks observer of the heartbeat,
// that the page's main thread ran no task longer than maxTask from the
// first to the last moment the page showed a training step or an
// evaluation under way (its progress line "... · step N / M · ..." or
// "...: N / M images" with N < M): while the engine works. The tasks after
// it, while the page lays the final figures out, are logged.
func (b *browser) checkNoLongTasks() {
	b.t.Helper()
	type tasks struct {
		Tasks      [][2]float64 `json:"tasks"`
		From, To   float64
		NoObserver string `json:"noObserver"`
	}
	h := eval[tasks](b, `window.__heartbeat`)
	if h.NoObserver != "" {
		b.t.Fatalf("no Long Tasks observer in this browser: %s", h.NoObserver)
	}
	if h.From == 0 {
		b.t.Fatal("the heartbeat never saw the page training")
	}
	var longest float64
	var during []string
	for _, task := range h.Tasks {
		if task[0] >= h.From && task[0] <= h.To {
			longest = max(longest, task[1])
			during = append(during, fmt.Sprintf("%.0f ms at %.0f ms", task[1], task[0]))
		}
	}
	var after []string
	for _, task := range h.Tasks {
		if task[0] > h.To {
			after = append(after, fmt.Sprintf("%.0f ms at %.0f ms", task[1], task[0]))
		}
	}
	b.t.Logf("long tasks of the main thread while training (%.0f-%.0f ms): %d %v; after it: %v; %d in the whole page", h.From, h.To, len(during), during, after, len(h.Tasks))
	if d := time.Duration(longest * float64(time.Millisecond)); d > maxTask {
		b.t.Errorf("the main thread ran a task of %v while training (limit %v)", d.Round(time.Millisecond), maxTask)
		// The long animation frames of that time say what took it:
		// scripts (by their invoker), style and layout, or painting.
		type frame struct {
			Start, Duration, Render, Layout float64
			Scripts                         []string
		}
		for _, f := range eval[[]frame](b, `window.__heartbeat.frames`) {
			if f.Start+f.Duration >= h.From && f.Start <= h.To {
				b.t.Logf("long animation frame at %.0f ms: %.0f ms, rendering from %.0f ms, style and layout from %.0f ms, scripts %v", f.Start, f.Duration, f.Render, f.Layout, f.Scripts)
			}
		}
		b.logConsole()
	}
}

// checkClean fails on console errors, uncaught exceptions and requests to
// another origin.
func (b *browser) checkClean() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			b.t.Errorf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1)
		}
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, "http://127.0.0.1:") && !strings.HasPrefix(u, "blob:") && !strings.HasPrefix(u, "data:") {
			b.t.Errorf("request to another origin: %s", u)
		}
	}
}

// screenshot saves a PNG of the whole page into out/screenshots.
func (b *browser) screenshot(name string) { b.shoot(name, chromedp.FullScreenshot(100)) }

// viewShot saves a PNG of the window as it shows now (not the whole page)
// into out/screenshots.
func (b *browser) viewShot(name string) { b.shoot(name, chromedp.CaptureScreenshot()) }

// shoot saves the PNG that shot takes into out/screenshots.
func (b *browser) shoot(name string, shot chromedp.Action[[]byte]) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, shot)
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(shotDir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot %s", path)
}

// click clicks the element matching a CSS selector.
func (b *browser) click(sel string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Click(sel)); err != nil {
		b.t.Fatalf("clicking %s: %v", sel, err)
	}
}

// logConsole writes the page's console messages to the test log.
func (b *browser) logConsole() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		b.t.Logf("console %s: %s", m.Type, m.Text)
	}
}

// typeInto replaces the text of an input with text, as typed keys.
func (b *browser) typeInto(sel, text string) {
	b.t.Helper()
	q, _ := json.Marshal(sel)
	clear := chromedp.Evaluate[chromedp.Void](`(e => { e.value = ''; e.focus(); })(document.querySelector(` + string(q) + `))`)
	if err := chromedp.Do(b.ctx, clear, chromedp.SendKeys(sel, text)); err != nil {
		b.t.Fatalf("typing into %s: %v", sel, err)
	}
}

// runReports returns the report of every run of the session, in order, by
// showing each run in turn (a click on its name in the summary's table of
// runs, the box's own table; the tables below it, in boxes of their own,
// have no such buttons); the heading over the figures must name each.
func (b *browser) runReports() []report {
	b.t.Helper()
	const runs = "#summary > table tbody tr"
	n := eval[int](b, `document.querySelectorAll('`+runs+`').length`)
	var out []report
	for i := 1; i <= n; i++ {
		b.click(fmt.Sprintf("%s:nth-child(%d) button", runs, i))
		b.waitFor(fmt.Sprintf(`document.querySelector('%s:nth-child(%d)').classList.contains('shown')`, runs, i), 10*time.Second)
		label := b.text(fmt.Sprintf("%s:nth-child(%d) button", runs, i))
		if title := b.text("#figures-title"); n > 1 && !strings.HasPrefix(title, "Figures of "+label+" (") {
			b.t.Errorf("run %s shown: the heading over its figures says %q", label, title)
		}
		out = append(out, b.report())
	}
	return out
}
