package browsertest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestGrantedLimits opens the page on WebGPU (SwiftShader): the device must
// have been granted the adapter's own limits, not WebGPU's defaults, and
// the page must say which: in the badge's tooltip and in the console.
func TestGrantedLimits(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep&backend=webgpu")
	if eval[string](b, `document.getElementById('backend').dataset.backend || ''`) != "webgpu" {
		noWebGPU(t, b.text("#notice"))
	}
	title := eval[string](b, `document.getElementById('backend').title`)
	t.Logf("badge title: %s", title)
	_, list, ok := strings.Cut(title, "; granted limits: ")
	if !ok {
		t.Fatalf("the badge's title names no granted limits: %q", title)
	}
	granted := map[string]float64{}
	for _, kv := range strings.Split(list, ", ") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("limit %q in %q: %v", kv, title, err)
		}
		granted[k] = n
	}
	adapter, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]float64](`(async () => {
		const a = await navigator.gpu.requestAdapter();
		const out = {};
		for (const k in a.limits) out[k] = a.limits[k];
		return out;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("asking for the adapter's limits: %v", err)
	}
	for _, n := range []string{"maxBufferSize", "maxStorageBufferBindingSize", "maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup"} {
		if v, ok := granted[n]; !ok || v != adapter[n] {
			t.Errorf("%s: granted %v (listed %v), the adapter's %v", n, v, ok, adapter[n])
		}
	}
	for n, v := range granted {
		if v != adapter[n] {
			t.Errorf("%s: granted %v, the adapter's %v", n, v, adapter[n])
		}
	}
	if !b.logged("deeplda: the WebGPU device was granted maxBufferSize=") {
		t.Error("the console does not list the granted limits")
	}
	b.checkClean()
}

// TestGPUFaults provokes a fault on the WebGPU device (SwiftShader) while
// the engine warms up, with backend auto: a shader that does not compile
// (debug=bad-shader) and a buffer over the granted maxBufferSize
// (debug=big-buffer). Each must reach the page as a notice that says what
// the GPU reported, and the run must train on the CPU backend, without
// console errors.
func TestGPUFaults(t *testing.T) {
	for _, c := range []struct{ debug, says string }{
		{"bad-shader", "compiling matmul.wgsl: line "},
		{"big-buffer", "the GPU rejected an operation: "},
	} {
		t.Run(c.debug, func(t *testing.T) {
			b := newBrowser(t, options{})
			b.open("?backend=auto&debug=" + c.debug + "&epochs=5&train=2000&autostart=1")
			notice := b.text("#notice")
			t.Logf("notice: %s", notice)
			if !strings.Contains(notice, "WebGPU failed") {
				noWebGPU(t, notice)
			}
			for _, want := range []string{"WebGPU failed while preparing (", c.says, "), so training runs on the CPU backend."} {
				if !strings.Contains(notice, want) {
					t.Errorf("the notice does not say %q: %q", want, notice)
				}
			}
			if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "cpu" {
				t.Errorf("badge backend %q after the fault, want cpu", got)
			}
			b.waitFinished("done", 5*time.Minute)
			if r := b.report(); r.Backend.Name != "cpu" || r.Status != "done" {
				t.Errorf("after the fault: backend %q, status %q; want a run done on the CPU", r.Backend.Name, r.Status)
			}
			b.checkClean()
		})
	}
}

// logged reports whether the page logged a console message that starts
// with prefix.
func (b *browser) logged(prefix string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		if strings.HasPrefix(m.Text, prefix) {
			return true
		}
	}
	return false
}
