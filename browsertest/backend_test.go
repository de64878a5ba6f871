package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCPUFallback runs the default demo in a browser without WebGPU: the
// page must say why it uses the CPU, and train there.
func TestCPUFallback(t *testing.T) {
	b := newBrowser(t, options{noWebGPU: true})
	b.open("?epochs=20&train=4000&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	notice := b.text("#notice")
	t.Logf("notice: %s", notice)
	if !strings.Contains(notice, "CPU backend") || eval[bool](b, `document.getElementById('notice').hidden`) {
		t.Errorf("no visible notice about the CPU fallback: %q", notice)
	}
	if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "cpu" {
		t.Errorf("badge backend %q", got)
	}
	r := b.report()
	if r.Backend.Name != "cpu" || r.Test.Accuracy < 0.97 {
		t.Errorf("backend %q, test accuracy %.4f", r.Backend.Name, r.Test.Accuracy)
	}
	b.screenshot("cpu-fallback.png")
	b.checkClean()
}

// TestWebGPU trains the default demo on WebGPU (SwiftShader in headless
// Chromium: slow, so the sizes are small). Without a WebGPU device it fails
// in CI and is skipped loudly elsewhere.
func TestWebGPU(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?backend=webgpu&epochs=20&train=4000&autostart=1")
	b.waitFor(`document.body.dataset.state !== 'training' || document.getElementById('backend').dataset.backend`, time.Minute)
	notice := b.text("#notice")
	if eval[string](b, `document.getElementById('backend').dataset.backend || ''`) != "webgpu" {
		noWebGPU(t, notice)
	}
	b.waitFinished("done", 8*time.Minute)
	r := b.report()
	t.Logf("backend %s (%s), test accuracy %.4f; %s", r.Backend.Name, r.Backend.Adapter, r.Test.Accuracy, b.text("#progress-text"))
	if r.Backend.Name != "webgpu" {
		t.Fatalf("trained on %q, not WebGPU; notice %q", r.Backend.Name, notice)
	}
	if r.Test.Accuracy < 0.97 {
		t.Errorf("test accuracy %.4f, want >= 0.97", r.Test.Accuracy)
	}
	b.checkFigures("#figures", 7, 3000)
	b.checkResponsive()
	b.screenshot("deep-dnll-webgpu.png")
	b.checkClean()
}

// TestAutoSoftwareAdapter opens the page with backend auto in a browser
// whose only WebGPU adapter is SwiftShader (headless Chromium's): the page
// must report the CPU backend with the native command's notice, and
// backend=webgpu must still take the adapter.
func TestAutoSoftwareAdapter(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep")
	b.waitFor(`document.body.dataset.ready === '1'`, time.Minute)
	adapter, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const a = navigator.gpu && await navigator.gpu.requestAdapter();
		if (!a) return '';
		return [a.info.vendor, a.info.architecture, a.info.device, a.info.description, a.isFallbackAdapter || a.info.isFallbackAdapter ? 'fallback' : ''].join(' ');
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("asking for the adapter: %v", err)
	}
	t.Logf("adapter: %q", adapter)
	if !strings.Contains(strings.ToLower(adapter), "swiftshader") && !strings.Contains(adapter, "fallback") {
		noWebGPU(t, "no SwiftShader adapter: "+adapter)
	}
	notice := b.text("#notice")
	if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "cpu" {
		t.Errorf("backend auto on %q: badge backend %q, want cpu", adapter, got)
	}
	if !strings.Contains(notice, "The WebGPU adapter is a CPU implementation") || !strings.Contains(notice, "using the faster CPU backend") {
		t.Errorf("notice %q does not say the adapter is a CPU implementation", notice)
	}
	b.open("?demo=deep&backend=webgpu")
	b.waitFor(`document.body.dataset.ready === '1'`, time.Minute)
	if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "webgpu" {
		t.Errorf("backend=webgpu on %q: badge backend %q, want webgpu", adapter, got)
	}
	b.checkClean()
}
