package browsertest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// imageReport is the part of an image run's report.json the tests read.
type imageReport struct {
	report
	BatchNorm *struct {
		Batches      int                        `json:"batches"`
		Running      struct{ Accuracy float64 } `json:"running_stats"`
		Recalibrated struct{ Accuracy float64 } `json:"recalibrated"`
	} `json:"batchnorm"`
}

// fashionSite returns the URL of a site that hosts Fashion-MNIST (see
// siteWith).
func fashionSite(t *testing.T) string { return siteWith(t, "fashion-mnist") }

// TestImagesFashionMNIST trains the paper's ConvNet for one epoch on 256
// Fashion-MNIST images hosted by the site, on the CPU backend, and checks
// the report (both BatchNorm evaluations), the figures, the page's
// responsiveness, that it keeps still while the engine trains, and its
// console.
func TestImagesFashionMNIST(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&data=fashion-mnist&backend=cpu&limit-train=256&limit-test=256&epochs=1&batch=64&autostart=1")
	b.waitFinishedCalm("done", 8*time.Minute)
	raw := eval[string](b, `document.getElementById('report').textContent`)
	var r imageReport
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("#report: %v\n%.300s", err, raw)
	}
	if i := strings.Index(raw, `"batchnorm"`); i >= 0 {
		t.Logf("%.600s", raw[i:])
	}
	t.Logf("test accuracy %.4f, ECE %.4f; batchnorm %+v", r.Test.Accuracy, r.Test.ECE, r.BatchNorm)
	if r.Test.Accuracy <= 0.3 || r.Test.Examples != 256 || r.Train.Examples != 256 {
		t.Errorf("test accuracy %.4f on %d images (train %d), want > 0.3 on 256", r.Test.Accuracy, r.Test.Examples, r.Train.Examples)
	}
	if r.Status != "done" || r.Kind != "train" || r.Backend.Name != "cpu" || len(r.History) != 1 {
		t.Errorf("report: status %q, kind %q, backend %q, %d epochs", r.Status, r.Kind, r.Backend.Name, len(r.History))
	}
	if r.Config["data"] != "fashion-mnist" || r.Config["limit_train"] != 256.0 || r.Config["head"] != "lda" {
		t.Errorf("report config %v", r.Config)
	}
	if r.BatchNorm == nil || r.BatchNorm.Batches < 1 {
		t.Error("no BatchNorm recalibration in the report")
	}
	if r.Head.Sigma == nil {
		t.Error("no learned sigma in the report (spherical head)")
	}
	for _, name := range []string{"embedding.svg", "reliability.svg", "confidence.svg", "curves.svg"} {
		if n := eval[int](b, `document.querySelectorAll('.card[data-name="`+name+`"]:not([hidden]) svg *').length`); n < 10 {
			t.Errorf("%s: %d SVG elements", name, n)
		}
	}
	if n := eval[int](b, `document.querySelectorAll('.card[data-name="embedding.svg"] svg circle, .card[data-name="embedding.svg"] svg use, .card[data-name="embedding.svg"] svg path').length`); n < 50 {
		t.Errorf("the PCA view draws %d marks, want the 256 test embeddings", n)
	}
	extras := b.text("#extras")
	if !strings.Contains(extras, "running statistics") || !strings.Contains(extras, "recalibrated") {
		t.Errorf("the summary does not show both BatchNorm evaluations: %q", extras)
	}
	if q := eval[string](b, `location.search`); !strings.Contains(q, "demo=images") || !strings.Contains(q, "limit-train=256") {
		t.Errorf("the URL does not hold the settings: %s", q)
	}
	b.checkResponsive()
	b.checkNoLongTasks()
	b.screenshot("images-fashion-mnist.png")
	b.checkClean()
}

// wasmMemoryLimit is the WebAssembly memory the page may use: phones and
// many laptops refuse more.
const wasmMemoryLimit = 1 << 30

// checkEngineMemory logs the engine's WebAssembly memory (the page's
// data-engine-memory), measured when what, and fails above
// wasmMemoryLimit.
func (b *browser) checkEngineMemory(what string) {
	b.t.Helper()
	n := eval[float64](b, `Number(document.body.dataset.engineMemory)`)
	b.t.Logf("WebAssembly memory %s: %.0f MiB", what, n/(1<<20))
	if n > wasmMemoryLimit {
		b.t.Errorf("WebAssembly memory %s: %.0f MiB, more than %d MiB", what, n/(1<<20), wasmMemoryLimit>>20)
	}
}

// TestImagesMemory trains the image demo briefly on the CPU backend (64
// images, batch 64) and logs the engine's WebAssembly memory (in its worker; data-engine-memory), its
// high-water mark (a WebAssembly memory never shrinks), for
// BENCHMARKS.md; it fails above wasmMemoryLimit. The page holds the whole
// data set it loaded (Fashion-MNIST's 70,000 images, as bytes) whatever
// the number of images trained on, and training allocates the activations
// of one batch, so a run on the full training set at the same batch needs
// about this memory.
func TestImagesMemory(t *testing.T) {
	trainMemory(t, "limit-train=64&limit-test=64&batch=64", "after training on 64 images at batch 64")
}

// trainMemory runs the image demo on Fashion-MNIST for one epoch on the
// CPU backend with the settings of query, and checks the engine's
// WebAssembly memory at the end (what names the run in the message).
func trainMemory(t *testing.T, query, what string) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&data=fashion-mnist&backend=cpu&epochs=1&autostart=1&" + query)
	b.waitFinished("done", 10*time.Minute)
	b.checkEngineMemory(what)
	b.checkClean()
}

// TestImagesMemoryFullSet starts the image demo on all of Fashion-MNIST's
// training images (55,000 after the held-out ones) at the page's batch of
// 64 on the CPU backend, waits for its second training step and checks
// the engine's WebAssembly memory against wasmMemoryLimit: the whole
// training set must fit in a tab (TestImagesMemoryBatch256 checks the
// paper's batch of 256).
func TestImagesMemoryFullSet(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&data=fashion-mnist&backend=cpu&limit-train=0&limit-test=64&epochs=1&batch=64&autostart=1")
	b.waitFor(`/step [2-9]\d* \//.test(document.getElementById('progress-text').textContent)`, 8*time.Minute)
	b.checkEngineMemory("while training on the full training set at batch 64")
}

// TestImagesMemoryBatch256 runs the image demo at the paper's batch of
// 256 on the CPU backend (two steps on 512 of Fashion-MNIST's images, the
// whole set loaded, then the evaluations and the figures) and checks the
// engine's WebAssembly memory at the end, its high-water mark, against
// wasmMemoryLimit: the layers' input gradients take turns in two buffers
// (model's registry.grad) and the engine's collector keeps its heap to
// wasm's engineHeapLimit. BENCHMARKS.md has the figure.
func TestImagesMemoryBatch256(t *testing.T) {
	trainMemory(t, "limit-train=512&limit-test=256&batch=256", "after training on 512 images at batch 256")
}

// TestImagesBadFiles chooses a text file, then a truncated gzip file, in
// the data panel: the parser's message must appear next to the control,
// and the page must stay usable (idle, not error).
func TestImagesBadFiles(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=images&backend=cpu")
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("not a data set\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	upload := func(files ...string) {
		t.Helper()
		if err := chromedp.Do(b.ctx, chromedp.SetUploadFiles("#f-files", files)); err != nil {
			t.Fatalf("choosing %v: %v", files, err)
		}
	}
	upload(notes)
	b.waitFor(`document.getElementById('e-files').textContent.includes('notes.txt: not a file of a data set')`, 30*time.Second)

	// A gzipped IDX file cut short, with a valid labels file beside it.
	images := gzipIDX(t, 0x803, []uint32{100, 28, 28}, 100*28*28)
	labels := gzipIDX(t, 0x801, []uint32{100}, 100)
	trunc := filepath.Join(dir, "t10k-images-idx3-ubyte.gz")
	lbl := filepath.Join(dir, "t10k-labels-idx1-ubyte.gz")
	if err := os.WriteFile(trunc, images[:len(images)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lbl, labels, 0o644); err != nil {
		t.Fatal(err)
	}
	upload(trunc, lbl)
	b.waitFor(`document.getElementById('e-files').textContent.includes('t10k-images-idx3-ubyte.gz')`, 30*time.Second)
	msg := b.text("#e-files")
	t.Logf("message: %s", msg)
	if strings.Contains(msg, "notes.txt") {
		t.Errorf("the old message stayed: %q", msg)
	}
	if s := b.state(); s != "idle" {
		t.Errorf("state %q after bad files, want idle", s)
	}
	// Mismatched counts: 100 images, 50 labels.
	short := gzipIDX(t, 0x801, []uint32{50}, 50)
	full := filepath.Join(dir, "full", "t10k-images-idx3-ubyte.gz")
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, images, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lbl, short, 0o644); err != nil {
		t.Fatal(err)
	}
	upload(full, lbl)
	b.waitFor(`document.getElementById('e-files').textContent.includes('50 labels, but')`, 30*time.Second)
	b.screenshot("images-bad-file.png")
	if s := b.state(); s != "idle" || eval[bool](b, `document.getElementById('train').disabled`) {
		t.Errorf("state %q or Train disabled after bad files", s)
	}
	b.checkClean()
}

// gzipIDX returns a gzipped IDX file with the given magic, dimensions and
// n bytes of data (labels i%10, pixels a pattern).
func gzipIDX(t *testing.T, magic uint32, dims []uint32, n int) []byte {
	t.Helper()
	var raw bytes.Buffer
	be32 := func(v uint32) { raw.Write([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}) }
	be32(magic)
	for _, d := range dims {
		be32(d)
	}
	for i := range n {
		if magic == 0x801 {
			raw.WriteByte(byte(i % 10))
		} else {
			raw.WriteByte(byte(i * 7919 % 251))
		}
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestDeviceLost destroys the WebGPU device in the middle of a run
// (debug=lose-device: halfway through, once the page holds a host copy of
// the run): with backend auto the page must say where the device was lost
// and go on on the CPU from that copy, not from scratch: the report keeps
// the epochs trained on WebGPU, its backend becomes cpu, the epochs and the
// training time continue where the copy was taken and the run ends with a
// good accuracy, without console errors. Without a WebGPU device it fails
// in CI and is skipped loudly elsewhere.
func TestDeviceLost(t *testing.T) {
	b := newBrowser(t, options{})
	b.openOnWebGPU(t, "?backend=auto&debug=lose-device&epochs=20&train=4000&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	notice := b.text("#notice")
	t.Logf("notice: %s", notice)
	for _, want := range []string{"The WebGPU device was lost at step", "Training continues on the CPU backend", "epochs trained on WebGPU stay in the history"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the notice does not say %q: %q", want, notice)
		}
	}
	kept := checkContinued(t, b, 20, 16)
	if kept < 1 {
		t.Errorf("the CPU took over from epoch %d: nothing trained on WebGPU was kept", kept)
	}
	if r := b.report(); r.Backend.Name != "cpu" || r.Status != "done" || r.Test.Accuracy < 0.97 {
		t.Errorf("after the lost device: backend %q, status %q, test accuracy %.4f", r.Backend.Name, r.Status, r.Test.Accuracy)
	}
	if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "cpu" {
		t.Errorf("backend badge %q after the lost device, want cpu", got)
	}
	b.screenshot("device-lost.png")
	b.checkClean()
}

// TestDeviceLostResume loses the device of a run on backend webgpu: the run
// stops at its last host copy with Resume, which continues it on the CPU.
func TestDeviceLostResume(t *testing.T) {
	b := newBrowser(t, options{})
	b.openOnWebGPU(t, "?backend=webgpu&debug=lose-device&epochs=20&train=4000&autostart=1")
	b.waitFinished("idle", 5*time.Minute)
	notice := b.text("#notice")
	t.Logf("notice: %s", notice)
	if !strings.Contains(notice, "The WebGPU device was lost") || !strings.Contains(notice, "Resume continues it on the CPU backend") {
		t.Errorf("the notice does not offer to resume on the CPU: %q", notice)
	}
	if !eval[bool](b, `!document.getElementById('resume').hidden && !document.getElementById('resume').disabled`) {
		t.Fatal("no Resume button after the lost device")
	}
	kept := eval[int](b, `+document.body.dataset.keptEpochs`)
	r := b.report()
	if r.Status != "stopped" || r.Backend.Name != "cpu" || len(r.History) != kept {
		t.Errorf("stopped: status %q, backend %q, %d epochs in the history, want %q, cpu, %d", r.Status, r.Backend.Name, len(r.History), "stopped", kept)
	}
	b.click("#resume")
	b.waitFinished("done", 5*time.Minute)
	checkContinued(t, b, 20, 16)
	if r := b.report(); r.Backend.Name != "cpu" || r.Status != "done" || r.Test.Accuracy < 0.97 {
		t.Errorf("after Resume: backend %q, status %q, test accuracy %.4f", r.Backend.Name, r.Status, r.Test.Accuracy)
	}
	b.checkClean()
}

// checkContinued checks the report of a run of epochs epochs of steps
// steps that moved to the CPU: the device was lost halfway, the CPU took
// over from an earlier step, report.json's backend_moves says so, every
// epoch is in the history once and the training time never went back. It
// returns the number of epochs kept from WebGPU.
func checkContinued(t *testing.T, b *browser, epochs, steps int) int {
	t.Helper()
	lost := eval[int](b, `+document.body.dataset.lostStep`)
	resume := eval[int](b, `+document.body.dataset.resumeStep`)
	kept := eval[int](b, `+document.body.dataset.keptEpochs`)
	t.Logf("device lost at step %d, the CPU took over after step %d (%d epochs kept)", lost, resume, kept)
	if 2*lost < epochs*steps || resume > lost || kept > resume/steps {
		t.Errorf("device lost at step %d, the CPU took over after step %d; want the loss halfway (step %d) and a take-over before it", lost, resume, epochs*steps/2)
	}
	var moves []struct {
		From       string `json:"from"`
		To         string `json:"to"`
		Error      string `json:"error"`
		LostStep   int    `json:"lost_step"`
		ResumeStep int    `json:"resume_step"`
		KeptEpochs int    `json:"kept_epochs"`
	}
	if err := json.Unmarshal([]byte(eval[string](b, `JSON.stringify(JSON.parse(document.getElementById('report').textContent).backend_moves)`)), &moves); err != nil {
		t.Fatalf("report.json's backend_moves: %v", err)
	}
	if len(moves) != 1 || moves[0].From != "webgpu" || moves[0].To != "cpu" || moves[0].Error == "" ||
		moves[0].LostStep != lost || moves[0].ResumeStep != resume || moves[0].KeptEpochs != kept {
		t.Errorf("report.json's backend_moves %+v, want one move from webgpu to cpu at steps %d and %d, %d epochs kept", moves, lost, resume, kept)
	}
	var hist []struct {
		Epoch   int     `json:"epoch"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal([]byte(eval[string](b, `JSON.stringify(JSON.parse(document.getElementById('report').textContent).history)`)), &hist); err != nil {
		t.Fatal(err)
	}
	if len(hist) != epochs {
		t.Fatalf("%d epochs in the history, want %d", len(hist), epochs)
	}
	for i, h := range hist {
		if h.Epoch != i+1 || i > 0 && h.Seconds < hist[i-1].Seconds {
			t.Errorf("history row %d: epoch %d after %.3f s (the row before: %.3f s)", i, h.Epoch, h.Seconds, hist[max(i-1, 0)].Seconds)
		}
	}
	return kept
}

// TestImagesStopResume stops an image run after a few steps and resumes it
// to the end.
func TestImagesStopResume(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&backend=cpu&limit-train=128&limit-test=64&epochs=2&batch=32&autostart=1")
	b.waitFor(`(/step (\d+)/.exec(document.getElementById('progress-text').textContent) || [0, 0])[1] >= 2`, 3*time.Minute)
	b.click("#stop")
	b.waitFinished("idle", 3*time.Minute)
	if !eval[bool](b, `!document.getElementById('resume').hidden && !document.getElementById('resume').disabled`) {
		t.Fatal("no Resume button after Stop")
	}
	if r := b.report(); r.Status != "stopped" {
		t.Errorf("after Stop: status %q", r.Status)
	}
	b.click("#resume")
	b.waitFinished("done", 5*time.Minute)
	r := b.report()
	if r.Status != "done" || len(r.History) != 2 || r.Test.Examples != 64 {
		t.Errorf("after Resume: status %q, %d epochs, %d test images", r.Status, len(r.History), r.Test.Examples)
	}
	b.checkResponsive()
	b.checkClean()
}

// TestImagesLiveLoss trains an image run of two epochs of 32 steps on the
// CPU backend: while it trains, the page draws its training loss per step
// (loss_steps.svg), with more points than the run has epochs, and keeps
// the curve when it ends.
func TestImagesLiveLoss(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&backend=cpu&limit-train=512&limit-test=64&epochs=2&batch=16")
	b.waitFor(`!document.getElementById('train').disabled`, 2*time.Minute)
	b.click("#train")
	// The points of the curve's line: the commands of its path.
	const points = `(p => p ? p.getAttribute('d').split(/[ML]/).length - 1 : 0)(document.querySelector('.card[data-name="loss_steps.svg"]:not([hidden]) g.series path'))`
	b.waitFor(`document.body.dataset.state !== 'training' || `+points+` > 2`, 5*time.Minute)
	if got := b.state(); got != "training" {
		t.Fatalf("the run ended (%q) before its live loss curve had more points than its 2 epochs: %d", got, eval[int](b, points))
	}
	t.Logf("while training: %d points; %s", eval[int](b, points), b.text("#progress-text"))
	b.viewShot("images-live-loss.png")
	b.waitFinished("done", 5*time.Minute)
	if n := eval[int](b, points); n < 3 {
		t.Errorf("after the run, the live loss curve has %d points, want the reports of both epochs", n)
	}
	b.checkClean()
}

// TestImagesWebGPU trains the paper's ConvNet for one epoch on 64
// Fashion-MNIST images on WebGPU (SwiftShader in headless Chromium), with
// the engine in its worker, and checks the report and that the page's
// main thread ran no long task while it trained. Without a WebGPU device
// it fails in CI and is skipped loudly elsewhere.
func TestImagesWebGPU(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&data=fashion-mnist&backend=webgpu&limit-train=64&limit-test=64&epochs=1&batch=64&autostart=1")
	if eval[string](b, `document.getElementById('backend').dataset.backend || ''`) != "webgpu" {
		noWebGPU(t, b.text("#notice"))
	}
	b.waitFinished("done", 8*time.Minute)
	var r imageReport
	if err := json.Unmarshal([]byte(b.text("#report")), &r); err != nil {
		t.Fatalf("#report: %v", err)
	}
	t.Logf("backend %s (%s): test accuracy %.4f, ECE %.4f; %s", r.Backend.Name, r.Backend.Adapter, r.Test.Accuracy, r.Test.ECE, b.text("#progress-text"))
	if r.Backend.Name != "webgpu" || r.Status != "done" || r.Test.Examples != 64 || len(r.History) != 1 {
		t.Errorf("report: backend %q, status %q, %d test images, %d epochs", r.Backend.Name, r.Status, r.Test.Examples, len(r.History))
	}
	b.checkResponsive()
	b.checkNoLongTasks()
	b.checkClean()
}
