package browsertest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBadInput checks that bad settings in the URL and typed into the form
// show a message next to the control, and that nothing starts.
func TestBadInput(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?backend=cpu&lambda=abc&autostart=1")
	if s := b.state(); s != "idle" {
		t.Errorf("state %q with lambda=abc, want idle", s)
	}
	if msg := b.text("#e-lambda"); !strings.Contains(msg, `lambda must be a number, got "abc"`) {
		t.Errorf("lambda message %q", msg)
	}
	b.typeInto("#f-lambda", "-1")
	b.waitFor(`document.getElementById('e-lambda').textContent.includes('lambda must be a finite number >= 0')`, 10*time.Second)
	b.typeInto("#f-epochs", "0")
	b.waitFor(`document.getElementById('e-epochs').textContent.includes('epochs must be at least 1, got 0')`, 10*time.Second)
	b.typeInto("#f-batch", "2.5")
	b.waitFor(`document.getElementById('e-batch').textContent.includes('batch must be a whole number')`, 10*time.Second)
	if q := eval[string](b, `location.search`); !strings.Contains(q, "epochs=0") || !strings.Contains(q, "batch=2.5") {
		t.Errorf("the URL does not follow the form: %s", q)
	}
	b.click("#train")
	time.Sleep(300 * time.Millisecond)
	if s := b.state(); s != "idle" {
		t.Errorf("state %q after Train with bad settings, want idle", s)
	}
	b.screenshot("bad-input.png")
	b.typeInto("#f-lambda", "0.01")
	b.typeInto("#f-epochs", "3")
	b.typeInto("#f-batch", "256")
	b.waitFor(`document.querySelectorAll('.field.invalid').length === 0`, 10*time.Second)
	b.checkClean()
}

// TestStopResume stops a run in the middle and resumes it to the end. The
// run is long enough (about 15 s in WebAssembly on a quiet machine; 300
// epochs took 2 s) for the stop to land in the middle.
func TestStopResume(t *testing.T) {
	const epochs = 2000
	b := newBrowser(t, options{})
	b.open(fmt.Sprintf("?backend=cpu&epochs=%d&train=20000&autostart=1", epochs))
	b.waitFor(`(/epoch (\d+)/.exec(document.getElementById('progress-text').textContent) || [0, 0])[1] >= 3`, 2*time.Minute)
	b.click("#stop")
	b.waitFinished("idle", time.Minute)
	if !eval[bool](b, `!document.getElementById('resume').hidden && !document.getElementById('resume').disabled`) {
		t.Fatal("no Resume button after Stop")
	}
	r := b.report()
	t.Logf("stopped after %d epochs: %s", len(r.History), b.text("#progress-text"))
	if r.Status != "stopped" || len(r.History) < 2 || len(r.History) >= epochs {
		t.Errorf("after Stop: status %q, %d epochs", r.Status, len(r.History))
	}
	b.screenshot("stopped.png")
	b.click("#resume")
	b.waitFinished("done", 5*time.Minute)
	r = b.report()
	if r.Status != "done" || len(r.History) != epochs || r.Test.Accuracy < 0.97 {
		t.Errorf("after Resume: status %q, %d epochs, test accuracy %.4f", r.Status, len(r.History), r.Test.Accuracy)
	}
	for i, h := range r.History {
		if h.Epoch != i+1 {
			t.Errorf("history row %d is epoch %d", i, h.Epoch)
		}
	}
	b.checkResponsive()
	b.checkClean()
}

// TestPanicRecovered makes the first run panic (debug=panic): the page must
// show the error state, not die, and train normally afterwards.
func TestPanicRecovered(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?backend=cpu&epochs=3&train=2000&autostart=1&debug=panic")
	b.waitFinished("error", time.Minute)
	if msg := b.text("#notice"); !strings.Contains(msg, "internal error") || !strings.Contains(msg, "deliberate panic") {
		t.Errorf("notice %q", msg)
	}
	b.screenshot("panic-recovered.png")
	b.click("#train")
	b.waitFinished("done", time.Minute)
	if r := b.report(); r.Status != "done" || len(r.History) != 3 {
		t.Errorf("after the panic: status %q, %d epochs", r.Status, len(r.History))
	}
	// The panic's stack goes to the console as an error; anything else is
	// a failure.
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if m.IsException() || (m.Type == "error" && !strings.Contains(m.Text, "deliberate panic")) {
			t.Errorf("console %s: %s", m.Type, m.Text)
		}
	}
}

// TestDemoTabs switches demos with the tabs: each shows its own controls and
// defaults, and the address bar follows.
func TestDemoTabs(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep")
	b.screenshot("idle.png")
	if got := eval[string](b, `document.getElementById('f-loss').value + ' ' + document.getElementById('f-lambda').value`); got != "dnll 0.01" {
		t.Errorf("the deep demo shows loss and lambda %q, want DNLL's", got)
	}
	b.click(`#tabs a[data-demo="classical"]`)
	b.waitFor(`location.search === '?demo=classical'`, 10*time.Second)
	if got := eval[string](b, `['encoder', 'loss', 'batch', 'lr', 'epochs'].map(n => document.getElementById('f-' + n).value).join(' ')`); got != "none nll 20000 0.1 300" {
		t.Errorf("classical defaults %q", got)
	}
	b.click(`#tabs a[data-demo="sweep"]`)
	b.waitFor(`location.search === '?demo=sweep'`, 10*time.Second)
	visible := eval[[]bool](b, `['lambdas', 'loss', 'compare'].map(n => !document.querySelector('[data-field="' + n + '"]').hidden)`)
	if len(visible) != 3 || !visible[0] || visible[1] || visible[2] {
		t.Errorf("sweep controls shown (lambdas, loss, compare): %v", visible)
	}
	b.typeInto("#f-epochs", "7")
	b.waitFor(`location.search === '?demo=sweep&epochs=7'`, 10*time.Second)
	b.click(`#tabs a[data-demo="images"]`)
	b.waitFor(`location.search === '?demo=images'`, 10*time.Second)
	// The images demo trains (see images_test.go): its own controls and the
	// data panel, none of the toy data's.
	shown := eval[[]bool](b, `['data', 'head', 'limit-train', 'loss', 'encoder', 'train'].map(n => !document.querySelector('[data-field="' + n + '"]').hidden)
		.concat([!document.getElementById('data-box').hidden, document.getElementById('later').hidden])`)
	if want := []bool{true, true, true, true, false, false, true, true}; !slices.Equal(shown, want) {
		t.Errorf("images controls shown (data, head, limit-train, loss, encoder, train, data box, no placeholder): %v, want %v", shown, want)
	}
	b.checkClean()
}

// TestBoundedSizes checks that sizes beyond the settings' bounds or the
// page's memory get the one-line notice and start nothing, in the form
// (with autostart=1) and in the benchmark (bench=1).
func TestBoundedSizes(t *testing.T) {
	b := newBrowser(t, options{})
	for _, c := range []struct{ query, field, want string }{
		{"?demo=images&backend=cpu&batch=60000&autostart=1", "batch", "batch 60000 needs about 114.0 GiB for the ConvNet's step on fashion-mnist, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"?demo=images&backend=cpu&epochs=1000000&autostart=1", "epochs", "epochs must be at most 100000, got 1000000"},
		{"?backend=cpu&train=2000000000&autostart=1", "train", "train must be at most 1000000 in the browser, got 2000000000"},
	} {
		b.open(c.query)
		if s := b.state(); s != "idle" {
			t.Errorf("%s: state %q, want idle", c.query, s)
		}
		if msg := b.text("#e-" + c.field); msg != c.want {
			t.Errorf("%s: the %s field says %q, want %q", c.query, c.field, msg, c.want)
		}
	}
	for _, c := range []struct{ query, want string }{
		{"?bench=1&backend=cpu&sizes=100000&steps=2000000000", "steps must be at most 10000 in the browser, got 2000000000"},
		{"?bench=1&backend=cpu&sizes=100000", "size must be at most 32768, got 100000"},
		{"?bench=1&backend=cpu&sizes=20000&autostart=1", "size 20000 needs about 4.5 GiB for three float32 matrices, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"?bench=1&backend=cpu&batches=60000&autostart=1", "batch 60000 needs about 114.0 GiB for the ConvNet's step, more than the 3.0 GiB of the page's WebAssembly memory"},
	} {
		b.open(c.query)
		if s := b.state(); s != "error" {
			t.Errorf("%s: state %q, want error", c.query, s)
		}
		if msg := b.text("#notice"); !strings.Contains(msg, c.want) {
			t.Errorf("%s: notice %q, want %q", c.query, msg, c.want)
		}
	}
	b.checkClean()
}

// TestBenchStartsOnClick checks that the page's benchmark waits for the
// Train button unless autostart=1, and that Stop ends it with the table
// of the benchmarks that finished.
func TestBenchStartsOnClick(t *testing.T) {
	b := newBrowser(t, options{})
	// 20 steps: a browser's clock may not tick during one 32x32 product.
	b.open("?bench=1&backend=cpu&sizes=64&batches=1&steps=20")
	if s := b.state(); s != "idle" {
		t.Fatalf("bench=1 without autostart: state %q, want idle", s)
	}
	if r := b.text("#report"); r != "" {
		t.Fatalf("bench=1 without autostart wrote a report: %.200s", r)
	}
	b.click("#train")
	b.waitFinished("done", 5*time.Minute)
	var r benchResult
	if err := json.Unmarshal([]byte(b.text("#report")), &r); err != nil || len(r.Results) != 3 || r.Stopped {
		t.Fatalf("after Run: %v, %d results, stopped %v; want 3 results", err, len(r.Results), r.Stopped)
	}

	b.open("?bench=1&autostart=1&backend=cpu&sizes=64&batches=8&steps=10000")
	b.waitFor(`document.getElementById('progress-text').textContent.includes('1 of 3')`, 2*time.Minute)
	b.click("#stop")
	b.waitFinished("idle", 2*time.Minute)
	r = benchResult{}
	if err := json.Unmarshal([]byte(b.text("#report")), &r); err != nil || !r.Stopped || len(r.Results) != 1 {
		t.Fatalf("after Stop: %v, %d results, stopped %v; want the matmul's result and stopped", err, len(r.Results), r.Stopped)
	}
	if !strings.Contains(r.Table, "| matmul 64 |") {
		t.Errorf("the stopped benchmark's table lacks the matmul: %q", r.Table)
	}
	b.checkClean()
}
