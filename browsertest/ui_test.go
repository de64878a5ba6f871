package browsertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startUI builds deeplda and starts "deeplda ui" on the built site with a
// temporary runs folder, on the CPU; it returns the URL it printed (with
// its token) and the runs folder. The process ends with the test.
func startUI(t testing.TB) (url, runs string) {
	t.Helper()
	p := startUIIn(t, filepath.Join(t.TempDir(), "runs"))
	return p.url, p.runs
}

// uiProcess is a running deeplda ui.
type uiProcess struct {
	url, runs string
	cmd       *exec.Cmd
}

// close stops deeplda ui as Ctrl-C does and waits until it has exited.
func (p *uiProcess) close() {
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()
}

// startUIIn starts deeplda ui (see startUI) on the runs folder runs.
func startUIIn(t testing.TB, runs string) *uiProcess {
	t.Helper()
	if siteDir == "" {
		t.Skip("SKIPPED: no built site (DEEPLDA_SITE)")
	}
	bin := filepath.Join(t.TempDir(), "deeplda")
	build := exec.Command("go", "build", "-o", bin, "./cmd/deeplda")
	build.Dir = ".."
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building deeplda: %v\n%s", err, b)
	}
	c := exec.Command(bin, "ui", "-no-browser", "-backend", "cpu", "-site", siteDir, "-runs", runs, "-datadir", filepath.Join(siteDir, "site", "data"))
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p := &uiProcess{runs: runs, cmd: c}
	t.Cleanup(p.close)
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if u := regexp.MustCompile(`http://\S+`).FindString(lines.Text()); u != "" {
			go func() {
				for lines.Scan() {
				}
			}()
			p.url = u
			return p
		}
	}
	t.Fatalf("deeplda ui printed no URL (%v)", lines.Err())
	return nil
}

// TestUINativeToyRun trains a toy run from the page that deeplda ui
// serves, on its native engine: the report says so, the run's folder holds
// what deeplda synth writes, and its report.json equals deeplda synth's
// with the same settings but for the timings and the engine.
func TestUINativeToyRun(t *testing.T) {
	url, runs := startUI(t)
	b := newBrowser(t, options{})
	b.openURL(url + "&backend=native&epochs=5&train=2000&test=500&autostart=1")
	b.waitFinished("done", 2*time.Minute)
	var r struct {
		Backend struct{ Name, Engine string }
	}
	if err := json.Unmarshal([]byte(eval[string](b, `document.getElementById('report').textContent`)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Backend.Engine != "native" || r.Backend.Name != "cpu" {
		t.Errorf("the page's report says backend %+v, want the native engine on the CPU", r.Backend)
	}
	dirs, _ := runFolders(runs)
	if len(dirs) != 1 {
		t.Fatalf("runs folder: %v, want one run", dirs)
	}
	for _, f := range []string{"report.json", "checkpoint.safetensors", "resume.safetensors", "embedding.svg"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Errorf("the run's folder: %v", err)
		}
	}
	synth := filepath.Join(t.TempDir(), "synth")
	c := exec.Command("go", "run", "./cmd/deeplda", "synth", "-backend", "cpu", "-epochs", "5", "-train", "2000", "-test", "500", "-quiet", "-out", synth)
	c.Dir = ".."
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("deeplda synth: %v\n%s", err, b)
	}
	got, want := comparable(t, filepath.Join(dirs[0], "report.json")), comparable(t, filepath.Join(synth, "report.json"))
	if got != want {
		t.Errorf("the native run's report.json differs from deeplda synth's:\n%s\n%s", got, want)
	}

	// The runs folder's list shows the run; shown from its folder, it
	// has its figures and report.
	b.waitFor(`document.querySelector('#folders button[data-folder]') !== null && document.querySelector('#folders').textContent.includes('done')`, 30*time.Second)
	eval[bool](b, `(document.querySelector('#folders button[data-folder]').click(), true)`)
	b.waitFor(`document.body.dataset.state === 'idle' && document.querySelectorAll('#figures svg').length > 0`, 30*time.Second)
	if got := comparableJSON(t, []byte(eval[string](b, `document.getElementById('report').textContent`))); got != comparable(t, filepath.Join(dirs[0], "report.json")) {
		t.Error("the run shown from its folder has another report")
	}

	// A second run, then both side by side from the list.
	b.openURL(url + "&backend=native&epochs=3&train=2000&test=500&lambda=1&autostart=1")
	b.waitFinished("done", 2*time.Minute)
	b.waitFor(`document.querySelectorAll('#folders input[data-pick]').length === 2 && !document.querySelector('#folders').textContent.includes('training')`, 30*time.Second)
	eval[bool](b, `(document.querySelectorAll('#folders input[data-pick]').forEach(e => e.click()), true)`)
	b.waitFor(`!document.getElementById('folders-compare').disabled`, 10*time.Second)
	eval[bool](b, `(document.getElementById('folders-compare').click(), true)`)
	b.waitFor(`document.querySelectorAll('#summary button[data-run]').length === 2 && document.querySelector('#overview figure[data-name="compare_accuracy.svg"] svg') !== null`, 30*time.Second)
	if legend := eval[string](b, `document.querySelector('#overview figure[data-name="compare_accuracy.svg"] svg').textContent`); !strings.Contains(legend, "λ = 0.01") || !strings.Contains(legend, "λ = 1") {
		t.Errorf("the side-by-side accuracy figure does not name both runs: %q", legend)
	}
	checkRunColors(b)

	// Only the user gets in.
	token := url[strings.Index(url, "token=")+len("token="):]
	base := url[:strings.Index(url, "/?")]
	for _, c := range []struct {
		name   string
		method string
		path   string
		header map[string]string
	}{
		{"no token", "POST", "/engine/command", nil},
		{"no token", "GET", "/runs/index.json", nil},
		{"a foreign Host", "GET", "/?token=" + token, map[string]string{"Host": "evil.example:80"}},
		{"a foreign Origin", "POST", "/engine/command?token=" + token, map[string]string{"Origin": "http://evil.example"}},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(`{"kind":"stop"}`))
		for k, v := range c.header {
			req.Header.Set(k, v)
			if k == "Host" {
				req.Host = v
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a request with %s: status %d, want 403", c.name, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/runs/%2e%2e/index.html?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("a path outside the runs folder was served")
	}
	b.checkClean()
}

// runColors are the colours of the runs side by side as the page shows
// them (as rgb(r, g, b)): the markers of the picked rows of the runs
// folder's table in its order, those of the summary's rows, and the
// curves of the side-by-side accuracy figure, with its legend's swatches,
// by the label of the summary's rows.
type runColors struct {
	Folders, Summary, Series, Legend []string
}

// runColorsJS reads runColors.
const runColorsJS = `(() => {
  const rgb = h => 'rgb(' + [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16)).join(', ') + ')';
  const bg = e => e ? getComputedStyle(e).backgroundColor : '';
  const svg = document.querySelector('#overview figure[data-name="compare_accuracy.svg"] svg');
  const swatch = {};
  for (const t of svg.querySelectorAll('g.legend text')) {
    let e = t.previousElementSibling;
    while (e && e.tagName !== 'line') e = e.previousElementSibling;
    if (e) swatch[t.textContent] = rgb(e.getAttribute('stroke'));
  }
  const rows = [...document.querySelectorAll('#summary-table tbody tr')];
  return {
    folders: [...document.querySelectorAll('#folders input[data-pick]')].filter(e => e.checked).map(e => bg(e.nextElementSibling)),
    summary: rows.map(r => bg(r.querySelector('.run-mark'))),
    series: [...svg.querySelectorAll('g.series path')].map(p => rgb(p.getAttribute('stroke'))),
    legend: rows.map(r => swatch[r.querySelector('button[data-run]').textContent] || ''),
  };
})()`

// checkRunColors checks that each run side by side has one colour: its
// marker in the runs folder's table (picked in the table's order), its
// marker in the summary, and its curve and legend swatch in the
// side-by-side accuracy figure.
func checkRunColors(b *browser) {
	b.t.Helper()
	c := eval[runColors](b, runColorsJS)
	b.t.Logf("the runs' colours: %+v", c)
	if len(c.Summary) < 2 || slices.Contains(c.Summary, "") || c.Summary[0] == c.Summary[1] ||
		!slices.Equal(c.Folders, c.Summary) || !slices.Equal(c.Series, c.Summary) || !slices.Equal(c.Legend, c.Summary) {
		b.t.Errorf("the runs side by side have not one colour each in the table, the summary, the figure's curves and its legend: %+v", c)
	}
}

// comparable returns report.json at path without what differs between
// two runs of the same settings: the timings, the provenance, where it ran
// and the folders its data came from.
func comparable(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return comparableJSON(t, raw)
}

// comparableJSON is comparable of a report.json's content.
func comparableJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"seconds", "version", "commit", "timestamp", "engine", "examples_per_second", "datadir", "ood_datadir"} {
				delete(x, k)
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(m)
	b, _ := json.MarshalIndent(m, "", " ")
	return string(b)
}

// TestUIReload reloads the page in the middle of a native run: the page
// shows the run again (the native engine sends it), does not start
// another, and the run finishes once.
func TestUIReload(t *testing.T) {
	url, runs := startUI(t)
	b := newBrowser(t, options{})
	const epochs = 1500
	b.openURL(url + fmt.Sprintf("&backend=native&epochs=%d&train=20000&autostart=1", epochs))
	b.waitFor(`(/epoch (\d+)/.exec(document.getElementById('progress-text').textContent) || [0, 0])[1] >= 3`, time.Minute)
	if q := eval[string](b, `location.search`); strings.Contains(q, "autostart") || !strings.Contains(q, "backend=native") {
		t.Errorf("the address after the start: %s", q)
	}
	if err := chromedp.Do(b.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	b.waitFor(`document.body.dataset.ready === '1'`, time.Minute)
	b.waitFor(`document.body.dataset.state === 'training' || document.body.dataset.state === 'done'`, 30*time.Second)
	b.waitFinished("done", 3*time.Minute)
	r := b.report()
	if r.Status != "done" || len(r.History) != epochs {
		t.Errorf("after the reload: status %q, %d epochs", r.Status, len(r.History))
	}
	dirs, _ := runFolders(runs)
	if len(dirs) != 1 {
		t.Errorf("runs folder: %v, want one run", dirs)
	}
	b.checkClean()
}

// imageArgs are the settings of the native image runs below: the page's
// URL parameters, and deeplda train's flags for the same run.
func imageArgs(train, epochs int) (query string, flags []string) {
	query = fmt.Sprintf("&backend=native&demo=images&data=fashion-mnist&limit-train=%d&limit-test=256&epochs=%d&batch=64&autostart=1", train, epochs)
	flags = []string{"-backend", "cpu", "-data", "fashion-mnist", "-datadir", filepath.Join(siteDir, "site", "data", "fashion-mnist"),
		"-limit-train", fmt.Sprint(train), "-limit-test", "256", "-epochs", fmt.Sprint(epochs), "-batch", "64", "-quiet",
		// The page's defaults: no held-out set, MNIST as the
		// out-of-distribution set where the site hosts it.
		"-val", "0", "-ood", "mnist", "-ood-datadir", filepath.Join(siteDir, "site", "data", "mnist")}
	return query, flags
}

// nativeImageRun trains an image run from the page on deeplda ui's native
// engine and the same run with deeplda train (first when cmdFirst), and
// returns the two report.json files.
func nativeImageRun(t testing.TB, b *browser, url, runs string, train, epochs int, cmdFirst bool) (page, cmd string) {
	query, flags := imageArgs(train, epochs)
	runCmd := func() {
		out := filepath.Join(t.TempDir(), "train")
		c := exec.Command("go", append([]string{"run", "./cmd/deeplda", "train", "-out", out}, flags...)...)
		c.Dir = ".."
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("deeplda train: %v\n%s", err, b)
		}
		cmd = filepath.Join(out, "report.json")
	}
	if cmdFirst {
		runCmd()
	}
	b.openURL(url + query)
	b.waitFinished("done", 10*time.Minute)
	dirs, _ := runFolders(runs)
	if len(dirs) != 1 {
		t.Fatalf("runs folder: %v, want one run", dirs)
	}
	if !cmdFirst {
		runCmd()
	}
	return filepath.Join(dirs[0], "report.json"), cmd
}

// TestUINativeImageRun trains the ConvNet on 256 Fashion-MNIST images from
// the page on the native engine: the report says so, and equals deeplda
// train's with the same settings but for the timings and the engine.
func TestUINativeImageRun(t *testing.T) {
	url, runs := startUI(t)
	b := newBrowser(t, options{})
	page, cmd := nativeImageRun(t, b, url, runs, 256, 1, false)
	var r struct {
		Backend struct{ Name, Engine string }
		Status  string
	}
	raw, _ := os.ReadFile(page)
	if err := json.Unmarshal(raw, &r); err != nil || r.Backend.Engine != "native" || r.Status != "done" {
		t.Errorf("the run's report: %v, backend %+v, status %q", err, r.Backend, r.Status)
	}
	if got, want := comparable(t, page), comparable(t, cmd); got != want {
		t.Errorf("the native run's report.json differs from deeplda train's:\n%s\n%s", got, want)
	}
	b.checkClean()
}

// BenchmarkUINativeImages times an image run (1024 Fashion-MNIST images, 2
// epochs) from the page on deeplda ui's native engine and the same run
// with deeplda train, round by round (in turn which goes first): images a second of each (from their
// reports' training time) and the page's as a fraction of the command's.
// It prints the table of BENCHMARKS.md's "deeplda ui" section, with the
// commit the reports name.
func BenchmarkUINativeImages(b *testing.B) {
	const train, epochs = 1024, 2
	var pageIPS, cmdIPS, share []float64
	commit := treeCommit()
	for i := range b.N {
		url, runs := startUI(b)
		br := newBrowser(b, options{})
		// The command goes first every other round, so that a shared
		// machine's load hits both alike.
		page, cmd := nativeImageRun(b, br, url, runs, train, epochs, i%2 == 1)
		p, c := train*epochs/reportSeconds(b, page), train*epochs/reportSeconds(b, cmd)
		pageIPS, cmdIPS, share = append(pageIPS, p), append(cmdIPS, c), append(share, 100*p/c)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(mean(pageIPS), "page-images/s")
	b.ReportMetric(mean(cmdIPS), "train-images/s")
	b.ReportMetric(mean(pageIPS)/mean(cmdIPS), "page/train")
	var tab strings.Builder
	fmt.Fprintf(&tab, "Fashion-MNIST, %d training images, %d epochs at batch 64, CPU backend on %d cores, at %s (%d round(s)):\n", train, epochs, runtime.NumCPU(), commit, b.N)
	fmt.Fprintf(&tab, "| run | images/s | of deeplda train |\n| --- | --- | --- |\n")
	fmt.Fprintf(&tab, "| deeplda train | %s | 100%% |\n", span(cmdIPS, "%.1f"))
	fmt.Fprintf(&tab, "| the page, backend native (deeplda ui) | %s | %s%% |\n", span(pageIPS, "%.1f"), span(share, "%.0f"))
	fmt.Fprint(os.Stdout, tab.String())
}

// treeCommit names the checkout the benchmark runs ("commit 1a2b3c4d5e6f",
// "... with local changes"), or says it is not a git checkout.
func treeCommit() string {
	out, err := exec.Command("git", "-C", "..", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "a checkout outside git"
	}
	c := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", "..", "status", "--porcelain", "--untracked-files=no").Output(); err != nil || len(st) > 0 {
		c += " with local changes"
	}
	return c
}

// reportSeconds returns the training time of report.json at path.
func reportSeconds(t testing.TB, path string) float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Seconds float64 }
	if err := json.Unmarshal(raw, &r); err != nil || r.Seconds <= 0 {
		t.Fatalf("%s: %v, %v seconds", path, err, r.Seconds)
	}
	return r.Seconds
}

// TestUIRestartResumes closes deeplda ui (Ctrl-C) in the middle of a
// native run and starts it again on the same runs folder: it resumes the
// run from its last whole epoch, in the same folder, and a page opened
// then shows it to its end, with the report of an uninterrupted deeplda
// synth run of the same settings.
func TestUIRestartResumes(t *testing.T) {
	const epochs = 200
	first := startUIIn(t, filepath.Join(t.TempDir(), "runs"))
	b := newBrowser(t, options{})
	b.openURL(first.url + fmt.Sprintf("&backend=native&epochs=%d&train=20000&autostart=1", epochs))
	b.waitFor(`(/epoch (\d+)/.exec(document.getElementById('progress-text').textContent) || [0, 0])[1] >= 5`, time.Minute)
	first.close()
	dirs, _ := runFolders(first.runs)
	if len(dirs) != 1 {
		t.Fatalf("runs folder: %v, want one run", dirs)
	}
	for _, f := range []string{"resume.safetensors", "../.resume.json"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Fatalf("after Ctrl-C: %v", err)
		}
	}
	second := startUIIn(t, first.runs)
	b2 := newBrowser(t, options{})
	b2.openURL(second.url + "&backend=native")
	// The page is idle until the engine's first events of the resumed run
	// reach it.
	b2.waitFor(`document.body.dataset.state !== 'idle'`, time.Minute)
	b2.waitFinished("done", 3*time.Minute)
	if r := b2.report(); r.Status != "done" || len(r.History) != epochs {
		t.Errorf("the resumed run: status %q, %d epochs", r.Status, len(r.History))
	}
	if after, _ := runFolders(first.runs); len(after) != 1 {
		t.Errorf("runs folder after the restart: %v, want the one run", after)
	}
	if _, err := os.Stat(filepath.Join(first.runs, ".resume.json")); err == nil {
		t.Error(".resume.json is still there")
	}
	synth := filepath.Join(t.TempDir(), "synth")
	c := exec.Command("go", "run", "./cmd/deeplda", "synth", "-backend", "cpu", "-epochs", fmt.Sprint(epochs), "-train", "20000", "-quiet", "-out", synth)
	c.Dir = ".."
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("deeplda synth: %v\n%s", err, out)
	}
	if got, want := comparable(t, filepath.Join(dirs[0], "report.json")), comparable(t, filepath.Join(synth, "report.json")); got != want {
		t.Errorf("the resumed run's report.json differs from an uninterrupted deeplda synth's:\n%.2000s\n%.2000s", got, want)
	}
	b2.checkClean()
}

// runFolders returns the run folders in runs.
func runFolders(runs string) ([]string, error) {
	entries, err := os.ReadDir(runs)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(runs, e.Name()))
		}
	}
	return dirs, err
}

// TestUIHostileFigures puts figures that try to script the page (as in a
// run folder from anywhere) into the runs folder: shown from the list,
// opened by their address or downloaded, they run nothing and send no
// command.
func TestUIHostileFigures(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	dir := filepath.Join(runs, "20260101-000000-s1-r1-hostile")
	c := exec.Command("go", "run", "./cmd/deeplda", "synth", "-backend", "cpu", "-epochs", "2", "-train", "500", "-test", "200", "-quiet", "-out", dir)
	c.Dir = ".."
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("deeplda synth: %v\n%s", err, out)
	}
	// The attack: mark the page, then post a command with the page's
	// token.
	attack := `document.documentElement.dataset.pwned = 1; fetch('engine/command', {method: 'POST', headers: {'X-Deeplda-Token': globalThis.deepldaToken}, body: '{"kind":"bench"}'})`
	emb, err := os.ReadFile(filepath.Join(dir, "embedding.svg"))
	if err != nil {
		t.Fatal(err)
	}
	emb = append([]byte(`<img src=x onerror="`+strings.ReplaceAll(attack, `"`, "&quot;")+`">`), emb...)
	curves, err := os.ReadFile(filepath.Join(dir, "curves.svg"))
	if err != nil {
		t.Fatal(err)
	}
	inside := `<script>` + attack + `</script><foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="` + strings.ReplaceAll(attack, `"`, "&quot;") + `"/></foreignObject><rect width="1" height="1" onload="` + strings.ReplaceAll(attack, `"`, "&quot;") + `"/>`
	i := strings.Index(string(curves), ">") + 1 // after <svg ...>
	curves = append(append(append([]byte{}, curves[:i]...), inside...), curves[i:]...)
	for name, b := range map[string][]byte{"embedding.svg": emb, "curves.svg": curves} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startUIIn(t, runs)
	b := newBrowser(t, options{})
	b.openURL(p.url + "&backend=native")
	b.waitFor(`document.querySelector('#folders button[data-folder]') !== null`, time.Minute)
	if strings.Contains(eval[string](b, `location.href`), "token=") {
		t.Error("the token stays in the address bar")
	}
	eval[bool](b, `(document.querySelector('#folders button[data-folder]').click(), true)`)
	b.waitFor(`document.body.dataset.state === 'idle' && document.querySelector('#figures figure[data-name="curves.svg"] svg') !== null`, 30*time.Second)
	// The figure's files, downloaded rather than opened.
	eval[bool](b, `(document.querySelectorAll('#folders button[data-file]').forEach(e => e.click()), true)`)
	time.Sleep(2 * time.Second)
	if eval[bool](b, `document.documentElement.dataset.pwned === '1'`) {
		t.Error("a figure of the runs folder ran script in the page")
	}
	if eval[bool](b, `document.querySelector('#figures [onerror], #figures [onload], #figures script, #figures foreignObject') !== null`) {
		t.Errorf("the page holds the hostile markup: %s", eval[string](b, `document.getElementById('figures').innerHTML.slice(0, 2000)`))
	}
	b.mu.Lock()
	for _, u := range b.requests {
		if strings.HasSuffix(u, "/x") {
			t.Errorf("the page loaded the hostile image: %s", u)
		}
	}
	b.mu.Unlock()
	// Opened by its address (the token in the query), the figure is
	// sandboxed: its script does not run.
	token := regexp.MustCompile(`token=([0-9a-f]+)`).FindStringSubmatch(p.url)[1]
	base := strings.SplitN(p.url, "/?", 2)[0]
	if _, err := chromedp.Run(b.ctx, chromedp.Navigate(base+"/runs/20260101-000000-s1-r1-hostile/curves.svg?token="+token)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if !strings.Contains(eval[string](b, `document.documentElement.outerHTML`), "<script>") {
		t.Errorf("the figure was not opened: %s", eval[string](b, `document.documentElement.outerHTML.slice(0, 500)`))
	}
	if eval[bool](b, `document.documentElement.dataset.pwned === '1'`) {
		t.Error("the figure opened by its address ran script")
	}
}

// TestUITooManyPages opens a page beside as many listeners as the native
// engine takes: the page says why it cannot listen, rather than hang.
func TestUITooManyPages(t *testing.T) {
	url, _ := startUI(t)
	token := regexp.MustCompile(`token=([0-9a-f]+)`).FindStringSubmatch(url)[1]
	base := strings.SplitN(url, "/?", 2)[0]
	for range 32 {
		resp, err := http.Get(base + "/engine/events?token=" + token)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a listener: status %d", resp.StatusCode)
		}
	}
	b := newBrowser(t, options{})
	b.openURL(url + "&backend=native")
	b.waitFor(`document.body.dataset.state === 'error'`, 30*time.Second)
	if n := b.text("#notice"); !strings.Contains(n, "The native engine refused this page: deeplda ui: 32 pages listen to this engine already: close one") {
		t.Errorf("the notice: %q", n)
	}
}

// TestUIResumeKilled kills deeplda ui (kill -9) in the middle of a native
// run and starts it again: the run is not resumed by itself (nothing
// stopped it), but the runs list offers its Resume, which trains it on to
// its end in the same folder.
func TestUIResumeKilled(t *testing.T) {
	const epochs = 100
	first := startUIIn(t, filepath.Join(t.TempDir(), "runs"))
	b := newBrowser(t, options{})
	b.openURL(first.url + fmt.Sprintf("&backend=native&epochs=%d&train=20000&autostart=1", epochs))
	b.waitFor(`(/epoch (\d+)/.exec(document.getElementById('progress-text').textContent) || [0, 0])[1] >= 5`, time.Minute)
	first.cmd.Process.Kill()
	first.cmd.Wait()
	dirs, _ := runFolders(first.runs)
	if len(dirs) != 1 {
		t.Fatalf("runs folder: %v, want one run", dirs)
	}
	second := startUIIn(t, first.runs)
	b2 := newBrowser(t, options{})
	b2.openURL(second.url + "&backend=native")
	b2.waitFor(`document.querySelector('#folders button[data-resume]') !== null`, 30*time.Second)
	eval[bool](b2, `(document.querySelector('#folders button[data-resume]').click(), true)`)
	b2.waitFor(`document.body.dataset.state !== 'idle'`, 30*time.Second)
	b2.waitFinished("done", 3*time.Minute)
	if r := b2.report(); r.Status != "done" || len(r.History) != epochs {
		t.Errorf("the resumed run: status %q, %d epochs", r.Status, len(r.History))
	}
	if after, _ := runFolders(first.runs); len(after) != 1 {
		t.Errorf("runs folder after the resume: %v, want the one run", after)
	}
	b2.checkClean()
}

// TestUIKeepsSettings checks that a page of deeplda ui keeps what its user
// chose: with no backend in the URL it trains on the native engine; after
// a finished native run, a link with other settings (demo=deep&loss=ce)
// opens with them, offers the last run instead of showing it in their
// place, and trains CE; the runs folder's table sorts by a header and its
// CSV says what it shows; the offer, taken on a new page, shows that run.
func TestUIKeepsSettings(t *testing.T) {
	url, _ := startUI(t)
	b := newBrowser(t, options{})
	b.openURL(url + "&epochs=3&train=2000&test=500&autostart=1")
	b.waitFinished("done", 2*time.Minute)
	if r, engine := b.report(), eval[string](b, `JSON.parse(document.getElementById('report').textContent).backend.engine`); r.Config["loss"] != "dnll" || engine != "native" {
		t.Errorf("the default run: loss %v on the %q engine, want dnll on the native one", r.Config["loss"], engine)
	}
	b.openURL(url + "&demo=deep&loss=ce&epochs=2&train=2000&test=500")
	b.waitFor(`document.body.dataset.ready === '1' && !document.getElementById('show-last').hidden`, time.Minute)
	if got := eval[string](b, `document.querySelector('[name=loss]').value + ' ' + document.querySelector('[name=epochs]').value + ' ' + document.querySelector('[name=backend]').value`); got != "ce 2 native" {
		t.Errorf("the form after the link: %q, want ce 2 native", got)
	}
	if got := eval[string](b, `document.getElementById('show-last').textContent`); !strings.Contains(got, "Show the native engine's last run") {
		t.Errorf("the offer: %q", got)
	}
	eval[bool](b, `(document.getElementById('train').click(), true)`)
	b.waitFinished("done", 2*time.Minute)
	if r := b.report(); r.Config["loss"] != "ce" || len(r.History) != 2 {
		t.Errorf("trained loss %v for %d epochs, want ce for 2", r.Config["loss"], len(r.History))
	}
	// The runs folder's table, full width, sorted by a header's click.
	b.waitFor(`document.querySelectorAll('#folders-table tbody tr').length === 2 && !document.querySelector('#folders').textContent.includes('training')`, 30*time.Second)
	for _, want := range []string{"ascending", "descending"} {
		eval[bool](b, `(document.querySelector('#folders button[data-sort="ece"]').click(), true)`)
		b.waitFor(`document.querySelector('#folders th[aria-sort]:not([aria-sort="none"]) button').dataset.sort === 'ece'`, 5*time.Second)
		got := eval[string](b, `document.querySelector('#folders th[aria-sort]:not([aria-sort="none"])').getAttribute('aria-sort') + ' ' +
			Array.from(document.querySelectorAll('#folders-table tbody tr')).map(r => r.cells[7].textContent).join(' ')`)
		f := strings.Fields(strings.ReplaceAll(got, "%", ""))
		var first, second float64
		if len(f) == 3 {
			first, _ = strconv.ParseFloat(f[1], 64)
			second, _ = strconv.ParseFloat(f[2], 64)
		}
		ordered := len(f) == 3 && f[0] == want && first != second && (first < second) == (want == "ascending")
		if !ordered {
			t.Errorf("sorted by ECE, %s: %q", want, got)
		}
	}
	if w := eval[float64](b, `document.getElementById('folders-box').getBoundingClientRect().width`); w < 600 {
		t.Errorf("the runs table is %.0f px wide, want the content's width", w)
	}
	// Its CSV says what it shows, in its order.
	dir := b.allowDownloads()
	b.click(`#folders button[data-csv="folders-table"]`)
	b.checkCSV(dir, "runs.csv", "#folders-table")
	b.screenshot("ui-runs.png")
	b.openURL(url + "&demo=deep&loss=nll")
	b.waitFor(`document.body.dataset.ready === '1' && !document.getElementById('show-last').hidden`, time.Minute)
	if got := eval[string](b, `document.querySelector('[name=loss]').value`); got != "nll" {
		t.Errorf("the form before the offer is taken: loss %q, want nll", got)
	}
	eval[bool](b, `(document.getElementById('show-last').click(), true)`)
	b.waitFor(`document.getElementById('show-last').hidden && document.body.dataset.state === 'done' && JSON.parse(document.getElementById('report').textContent).config.loss === 'ce'`, 30*time.Second)
	if got := eval[string](b, `document.querySelector('[name=loss]').value`); got != "ce" {
		t.Errorf("the form once the last run is shown: loss %q, want ce", got)
	}
	b.checkClean()
}
