package browsertest

import (
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
	b.open("")
	b.screenshot("idle.png")
	if got := eval[string](b, `document.getElementById('f-loss').value + ' ' + document.getElementById('f-lambda').value`); got != "dnll 0.01" {
		t.Errorf("the default page shows loss and lambda %q, want the DNLL demo", got)
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
