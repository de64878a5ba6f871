package browsertest

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deeplda/deeplda/safetensors"
)

// tinyModel trains a tiny model of the paper's ConvNet natively (one epoch
// on 128 Fashion-MNIST images) into dir/models/tiny-lda, with its command,
// as models/<name>/ holds one, and returns the folder of the models and the
// test accuracy that deeplda eval gives the checkpoint on the first 64
// test images (the checkpoint's BatchNorm statistics).
func tinyModel(t *testing.T, dataDir string) (string, float64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "models")
	return dir, trainTiny(t, dataDir, dir, "lda")
}

// trainTiny trains tinyModel's model with head (lda or softmax) into
// dir/tiny-<head> and returns deeplda eval's test accuracy of it.
func trainTiny(t *testing.T, dataDir, dir, head string) float64 {
	t.Helper()
	out := filepath.Join(dir, "tiny-"+head)
	args := []string{"-backend", "cpu", "-data", "fashion-mnist", "-datadir", dataDir, "-limit-test", "64", "-batch", "64"}
	trainArgs := []string{"-head", head, "-limit-train", "128", "-val", "0", "-epochs", "1", "-quiet"}
	deeplda := func(cmd string, more ...string) {
		t.Helper()
		c := exec.Command("go", append(append([]string{"run", "./cmd/deeplda", cmd}, args...), more...)...)
		c.Dir = ".."
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("deeplda %s: %v\n%s", cmd, err, b)
		}
	}
	deeplda("train", append(trainArgs, "-out", out)...)
	if err := os.WriteFile(filepath.Join(out, "COMMAND.txt"), []byte("deeplda train "+strings.Join(append(args, trainArgs...), " ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eval := filepath.Join(t.TempDir(), "eval")
	deeplda("eval", "-checkpoint", filepath.Join(out, "checkpoint.safetensors"), "-out", eval)
	b, err := os.ReadFile(filepath.Join(eval, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil || r.Test.Examples != 64 {
		t.Fatalf("deeplda eval's report: %v, %d test images", err, r.Test.Examples)
	}
	return r.Test.Accuracy
}

// modelSite serves site (a built site's URL, such as fashionSite's) with
// the trained models of src laid out by tools/modelindex, as
// DEEPLDA_MODELS=src ./build.sh site does, in site/models/.
func modelSite(t *testing.T, site, src string) string {
	t.Helper()
	dst := t.TempDir()
	c := exec.Command("go", "run", "./tools/modelindex", src, dst)
	c.Dir = ".."
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tools/modelindex: %v\n%s", err, b)
	}
	u, err := url.Parse(site)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"site/models/", http.StripPrefix(prefix+"site/models/", http.FileServer(http.Dir(dst))))
	mux.Handle("/", httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + prefix
}

// sharedFashion returns the folder of Fashion-MNIST beside the repository, or
// skips the test.
func sharedFashion(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "datasets", "fashion-mnist"))
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
	}
	if err != nil {
		t.Skipf("SKIPPED: no Fashion-MNIST to train the tiny model on (%v)", err)
	}
	return dir
}

// TestModelHosted opens a trained model the site hosts (model= in the URL):
// the page evaluates it on the hosted test images, matches deeplda eval,
// shows its figures, the history of its report and its out-of-distribution
// scores against the other hosted data set, and Continue training
// trains it on with a new history.
func TestModelHosted(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	src, want := tinyModel(t, sharedFashion(t))
	// MNIST too: the opened model's out-of-distribution scores.
	site := modelSite(t, siteWith(t, "fashion-mnist", "mnist"), src)
	b := newBrowser(t, options{})
	// model= implies the images demo.
	b.openURL(site + "?backend=cpu&limit-train=64&limit-test=64&epochs=1&batch=64&model=tiny-lda")
	b.waitOpened("tiny-lda")
	if s := b.state(); s != "done" {
		t.Errorf("state %q after opening, want done", s)
	}
	r := b.report()
	t.Logf("opened: test accuracy %.4f (deeplda eval %.4f), ECE %.4f; %s", r.Test.Accuracy, want, r.Test.ECE, b.text("#progress-text"))
	if r.Test.Examples != 64 || math.Abs(r.Test.Accuracy-want) > 1e-9 {
		t.Errorf("test split %+v, want 64 images at deeplda eval's accuracy %.4f", r.Test, want)
	}
	if r.Kind != "eval" || len(r.History) != 1 || r.Head.Sigma == nil {
		t.Errorf("report kind %q, %d history rows, sigma %v; want eval, the hosted report's 1 row, the head", r.Kind, len(r.History), r.Head.Sigma)
	}
	for _, name := range []string{"embedding.svg", "reliability.svg", "confidence.svg", "accuracy.svg"} {
		if !eval[bool](b, `!document.querySelector('#figures [data-name="`+name+`"]').hidden`) {
			t.Errorf("%s is not shown", name)
		}
	}
	if o := b.oodReport().OOD; o == nil || o.Dataset != "mnist" || o.NIn != 64 || o.NOut != 64 || o.Density == nil {
		t.Errorf("the opened model's ood: %+v, want both scores of 64 test images of fashion-mnist and mnist", o)
	}
	b.checkOODFigures()
	if got := eval[string](b, `location.search`); !strings.Contains(got, "model=tiny-lda") {
		t.Errorf("the URL %q lost model=tiny-lda", got)
	}
	// An edit keeps model= while the model is shown.
	b.typeInto("#f-seed", "2")
	if got := eval[string](b, `location.search`); !strings.Contains(got, "model=tiny-lda") || !strings.Contains(got, "seed=2") {
		t.Errorf("after an edit the URL is %q, want model=tiny-lda and seed=2", got)
	}
	if !eval[bool](b, `document.getElementById('open-both').disabled`) {
		t.Error("Open both heads is enabled, but the site hosts no model of the other head")
	}
	if !strings.Contains(b.text("#f-model"), "tiny-lda: fashion-mnist, lda head (spherical), dnll") {
		t.Errorf("the model list says %q", b.text("#f-model"))
	}
	b.screenshot("model-hosted.png")

	// A pointer click at the button's position (far down the page, after
	// the full-page screenshot) misses it in headless Chromium; the test
	// clicks it as the DOM does.
	eval[bool](b, `(document.getElementById('continue-model').click(), true)`)
	b.waitFinished("done", 5*time.Minute)
	r = b.report()
	if r.Kind != "train" || len(r.History) != 1 || r.History[0].Epoch != 1 || r.Status != "done" {
		t.Errorf("after Continue training: kind %q, history %+v, status %q; want train, one new epoch, done", r.Kind, r.History, r.Status)
	}
	if eval[bool](b, `!document.getElementById('continue-model').hidden`) {
		t.Error("Continue training is still offered after training on")
	}
	b.checkClean()
}

// TestModelsSideBySide opens two hosted models of one data set, an LDA
// head and a softmax head, side by side: Open both heads, after one was
// opened alone, opens the other beside it, and so does compare=1 with
// model= naming one of them. Each run is its checkpoint evaluated
// (deeplda eval's accuracy) with its report's history; the comparison's
// figures, the gap and both heads' out-of-distribution AUROCs are shown; the URL keeps model= and compare=1; and
// Continue training, which trains one model on, is not offered.
func TestModelsSideBySide(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	data := sharedFashion(t)
	dir := filepath.Join(t.TempDir(), "models")
	want := map[string]float64{"lda": trainTiny(t, data, dir, "lda"), "softmax": trainTiny(t, data, dir, "softmax")}
	// MNIST too: both heads' out-of-distribution scores, compared.
	site := modelSite(t, siteWith(t, "fashion-mnist", "mnist"), dir)
	b := newBrowser(t, options{})
	b.openURL(site + "?backend=cpu&limit-test=64&batch=64&model=tiny-softmax")
	b.waitOpened("tiny-softmax")
	if eval[bool](b, `document.getElementById('open-both').disabled`) {
		t.Fatal("Open both heads is disabled for a model whose other head the site hosts")
	}
	eval[bool](b, `(document.getElementById('open-both').click(), true)`)
	b.waitOpened("tiny-softmax,tiny-lda")
	t.Logf("%s", b.text("#progress-text"))
	reps := b.runReports()
	if len(reps) != 2 {
		t.Fatalf("%d runs, want 2 (both heads)", len(reps))
	}
	for i, head := range []string{"lda", "softmax"} {
		r := reps[i]
		if r.Config["head"] != head || r.Kind != "eval" || r.Status != "opened tiny-"+head || len(r.History) != 1 ||
			r.Test.Examples != 64 || math.Abs(r.Test.Accuracy-want[head]) > 1e-9 {
			t.Errorf("run %d: head %v, kind %q, status %q, %d history rows, test %+v; want tiny-%s opened at deeplda eval's accuracy %.4f with its report's 1 row",
				i+1, r.Config["head"], r.Kind, r.Status, len(r.History), r.Test, head, want[head])
		}
	}
	for _, name := range []string{"compare_ece.svg", "compare_accuracy.svg", "compare_reliability.svg"} {
		svg := eval[string](b, `(document.querySelector('.card[data-name="`+name+`"]:not([hidden])') || {innerHTML: ''}).innerHTML`)
		for _, label := range []string{"LDA head, DNLL", "softmax head, CE"} {
			if !strings.Contains(svg, label) {
				t.Errorf("%s does not show %q", name, label)
			}
		}
	}
	if gap := b.text("#compare-gap"); !strings.Contains(gap, "Gap (LDA − softmax)") {
		t.Errorf("#compare-gap: %q", gap)
	}
	if got := b.text(".table-box:has(#compare-ood) .table-caption"); !strings.Contains(got, "against mnist (AUROC, 64 test images against 64)") {
		t.Errorf("the caption of #compare-ood %q does not say against what", got)
	}
	ood := eval[[][]string](b, `[...document.querySelectorAll('#compare-ood tr')].map(r => [...r.cells].map(c => c.textContent))`)
	rows := map[string][]string{}
	for _, r := range ood {
		rows[r[0]] = r[1:]
	}
	if h := rows["Score (AUROC)"]; len(h) != 2 || h[0] != "LDA head" || h[1] != "softmax head" {
		t.Errorf("#compare-ood's header %q, want a column per head", h)
	}
	for score, heads := range map[string]int{"density": 1, "largest softmax probability": 2} {
		r := rows[score]
		for i := range heads {
			if i >= len(r) || !strings.HasSuffix(r[i], "%") {
				t.Errorf("#compare-ood: %s of head %d is %q, want an AUROC in percent", score, i+1, r)
			}
		}
	}
	if got := eval[string](b, `location.search`); !strings.Contains(got, "model=tiny-softmax") || !strings.Contains(got, "compare=1") {
		t.Errorf("the URL %q, want model=tiny-softmax and compare=1", got)
	}
	if !strings.Contains(b.text("#model-status"), "also opens tiny-lda (lda head) beside it") {
		t.Errorf("the model's description %q does not name the model opened beside it", b.text("#model-status"))
	}
	if eval[bool](b, `!document.getElementById('continue-model').hidden`) {
		t.Error("Continue training is offered for two models")
	}
	// The form holds the LDA head's settings, so that Train trains both
	// heads side by side as compare=1 does.
	if h, l := eval[string](b, `document.getElementById('f-head').value`), eval[string](b, `document.getElementById('f-lambda').value`); h != "lda" || l != "0.01" {
		t.Errorf("the form's head %q and lambda %q, want the LDA head's: lda, 0.01", h, l)
	}
	b.screenshot("models-side-by-side.png")
	b.checkClean()

	// The address (compare=1 and model=) opens both again.
	b.openURL(site + "?backend=cpu&limit-test=64&batch=64&compare=1&model=tiny-softmax")
	b.waitOpened("tiny-softmax,tiny-lda")
}

// TestModelDropped opens checkpoints the user chooses on a site without
// trained models (where model= names none): bad ones get one line naming
// the file and the problem, and the page stays usable; a good one (deeplda
// train's) opens.
func TestModelDropped(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	src, want := tinyModel(t, sharedFashion(t))
	site := modelSite(t, fashionSite(t), t.TempDir()) // a site that hosts no models
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&backend=cpu&limit-test=64&model=nope")
	if got := b.text("#f-model"); !strings.Contains(got, "no trained models") {
		t.Errorf("a site without models lists %q", got)
	}
	b.waitFor(`document.getElementById('e-model').textContent !== ''`, time.Minute)
	if msg := b.text("#e-model"); msg != "model=nope: this site hosts no trained model of that name (it hosts: none)" {
		t.Errorf("model=nope says %q", msg)
	}
	ckpt := filepath.Join(src, "tiny-lda", "checkpoint.safetensors")
	f, err := safetensors.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nan := safetensors.New()
	for k, v := range f.Tensors {
		nan.Tensors[k] = v
	}
	mu := nan.Tensors["head.mu"]
	vals := append([]float32(nil), mu.F32...)
	vals[3] = float32(math.NaN())
	nan.Set("head.mu", safetensors.NewF32(vals, mu.Shape...))
	nanBytes, err := safetensors.Encode(nan)
	if err != nil {
		t.Fatal(err)
	}
	other := safetensors.New()
	other.Set("weight", safetensors.NewF32(make([]float32, 6), 2, 3))
	otherBytes, err := safetensors.Encode(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{write("notes.safetensors", []byte("not a checkpoint\n")), "notes.safetensors: not a safetensors checkpoint"},
		{write("nan.safetensors", nanBytes), "head.mu"},
		{write("other.safetensors", otherBytes), "not a checkpoint of the paper's ConvNet"},
	} {
		if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles("#f-files", []string{c.file})); err != nil {
			t.Fatalf("choosing %s: %v", c.file, err)
		}
		b.waitFor(`document.getElementById('e-model').textContent.includes(`+jsString(c.want)+`)`, 2*time.Minute)
		msg := b.text("#e-model")
		t.Logf("%s: %s", filepath.Base(c.file), msg)
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, filepath.Base(c.file)+": ") {
			t.Errorf("message %q: want one line starting with the file's name", msg)
		}
		if s := b.state(); s != "idle" || eval[bool](b, `document.getElementById('train').disabled`) {
			t.Errorf("state %q or Train disabled after %s", s, filepath.Base(c.file))
		}
	}
	if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles("#f-files", []string{ckpt})); err != nil {
		t.Fatal(err)
	}
	b.waitFor(`document.body.dataset.model === 'checkpoint.safetensors'`, 5*time.Minute)
	r := b.report()
	if b.text("#e-model") != "" || r.Test.Examples != 64 || math.Abs(r.Test.Accuracy-want) > 1e-9 {
		t.Errorf("the dropped checkpoint: message %q, test %+v; want deeplda eval's accuracy %.4f on 64 images", b.text("#e-model"), r.Test, want)
	}
	// No report came with it: the figures of the evaluation, no history.
	for name, shown := range map[string]bool{"embedding.svg": true, "reliability.svg": true, "confidence.svg": true, "accuracy.svg": false, "curves.svg": false} {
		if got := eval[bool](b, `!document.querySelector('#figures [data-name="`+name+`"]').hidden`); got != shown {
			t.Errorf("%s shown %v, want %v", name, got, shown)
		}
	}
	if !eval[bool](b, `!document.getElementById('dl-checkpoint').disabled`) {
		t.Error("the opened checkpoint cannot be downloaded")
	}
	b.checkClean()
}

// waitOpened waits until the page shows the opened model label (the
// models' names joined by commas), and fails the test with the page's
// message when it says why it could not open them.
func (b *browser) waitOpened(label string) {
	b.t.Helper()
	b.waitFor(`document.body.dataset.model === `+jsString(label)+` || document.getElementById('e-model').textContent !== ''`, 5*time.Minute)
	if msg := b.text("#e-model"); msg != "" {
		b.t.Fatalf("opening %s: %s", label, msg)
	}
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHostedSoftmaxRecalibrated opens the site's fashion-mnist-softmax
// (models/): the model list gives the figures of its recalibrated
// BatchNorm statistics first, those of the statistics as trained beside
// them, and the page's evaluation of the hosted checkpoint matches deeplda
// eval's on the same test images, with the recalibrated statistics (the
// trained ones score some 20 points lower).
func TestHostedSoftmaxRecalibrated(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	data := sharedFashion(t)
	models, err := filepath.Abs(filepath.Join("..", "models"))
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(models, "fashion-mnist-softmax", "checkpoint.safetensors")
	eval := filepath.Join(t.TempDir(), "eval")
	c := exec.Command("go", "run", "./cmd/deeplda", "eval", "-backend", "cpu", "-data", "fashion-mnist", "-datadir", data,
		"-limit-test", "500", "-batch", "100", "-checkpoint", ckpt, "-out", eval)
	c.Dir = ".."
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("deeplda eval: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(eval, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want report
	if err := json.Unmarshal(b, &want); err != nil || want.Test.Examples != 500 || want.Test.Accuracy < 0.88 {
		t.Fatalf("deeplda eval of the hosted checkpoint: %v, test %+v; want 500 images at about 92.6%%", err, want.Test)
	}
	site := modelSite(t, siteWith(t, "fashion-mnist"), models)
	br := newBrowser(t, options{})
	br.openURL(site + "?backend=cpu&limit-test=500&batch=100&model=fashion-mnist-softmax")
	br.waitOpened("fashion-mnist-softmax")
	list := br.text("#f-model")
	if !strings.Contains(list, "fashion-mnist-softmax: fashion-mnist, softmax head, ce, 20 epochs; test accuracy 92.62%, ECE 4.73% (BatchNorm recalibrated; with the statistics as trained 72.01%, ECE 23.07%)") {
		t.Errorf("the model list says %q", list)
	}
	r := br.report()
	if r.Test.Examples != 500 || math.Abs(r.Test.Accuracy-want.Test.Accuracy) > 1e-9 {
		t.Errorf("opened: test %+v, want 500 images at deeplda eval's accuracy %.4f", r.Test, want.Test.Accuracy)
	}
	if p := br.text("#progress-text"); !strings.Contains(p, "with the statistics as trained 72.01%") {
		t.Errorf("the opened model's line %q does not give the trained statistics' figures beside", p)
	}
	br.checkClean()
}
