package browsertest

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// loadedWasm returns which of site/app.wasm and site/app-threads.wasm the
// tab requested.
func (b *browser) loadedWasm() (plain, threads bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.requests {
		u, _, _ = strings.Cut(u, "?")
		plain = plain || strings.HasSuffix(u, "/site/app.wasm")
		threads = threads || strings.HasSuffix(u, "/site/app-threads.wasm")
	}
	return plain, threads
}

// TestSharedMemoryPage serves the site with the cross-origin isolation
// headers, so that the page runs site/app-threads.wasm on a shared memory
// from its first load, and trains the toy demo (Deep LDA with DNLL) there
// on the CPU backend.
func TestSharedMemoryPage(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	srv := httptest.NewServer(NewIsolatedHandler(siteDir, prefix))
	defer srv.Close()
	b := newBrowser(t, options{})
	b.openURL(srv.URL + prefix + "?demo=deep&loss=dnll&backend=cpu&epochs=3&autostart=1")
	if !eval[bool](b, `self.crossOriginIsolated`) {
		t.Fatal("the page is not cross-origin isolated with COOP and COEP sent")
	}
	if m := eval[string](b, `document.body.dataset.memory || ''`); m != "shared" {
		t.Fatalf("the page runs on a %q memory, want shared", m)
	}
	if !eval[bool](b, `globalThis.wasm.instance.exports.mem.buffer instanceof SharedArrayBuffer`) {
		t.Error("globalThis.wasm's memory is not a SharedArrayBuffer")
	}
	if plain, threads := b.loadedWasm(); plain || !threads {
		t.Errorf("loaded app.wasm %v, app-threads.wasm %v; want only app-threads.wasm", plain, threads)
	}
	b.waitFinished("done", 3*time.Minute)
	r := b.report()
	t.Logf("shared memory, 3 epochs: test accuracy %.4f", r.Test.Accuracy)
	if r.Status != "done" || r.Backend.Name != "cpu" || len(r.History) != 3 || r.Config["loss"] != "dnll" {
		t.Errorf("report: status %q, backend %q, %d epochs, loss %v", r.Status, r.Backend.Name, len(r.History), r.Config["loss"])
	}
	if r.Test.Accuracy < 0.9 {
		t.Errorf("test accuracy %.4f after 3 epochs, want >= 0.9", r.Test.Accuracy)
	}
	b.checkClean()
}

// TestServiceWorkerIsolates serves the site without the isolation headers,
// as GitHub Pages does: the first visit runs app.wasm on a plain memory;
// once the service worker controls the page, a reload is cross-origin
// isolated (the worker adds the headers) and runs on a shared memory.
func TestServiceWorkerIsolates(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?backend=cpu")
	if eval[bool](b, `self.crossOriginIsolated`) {
		t.Fatal("the first visit is cross-origin isolated without a service worker")
	}
	if m := eval[string](b, `document.body.dataset.memory || ''`); m != "plain" {
		t.Errorf("the first visit runs on a %q memory, want plain", m)
	}
	b.waitFor(`navigator.serviceWorker.controller !== null`, time.Minute)
	b.open("?backend=cpu")
	if !eval[bool](b, `navigator.serviceWorker.controller !== null`) {
		t.Fatal("the reloaded page is not controlled by the service worker")
	}
	if !eval[bool](b, `self.crossOriginIsolated`) {
		t.Fatal("the page controlled by the service worker is not cross-origin isolated")
	}
	if s := b.state(); s == "error" {
		t.Fatalf("the isolated page failed to start: %s", b.text("#notice"))
	}
	if m := eval[string](b, `document.body.dataset.memory || ''`); m != "shared" {
		t.Errorf("the isolated page runs on a %q memory, want shared", m)
	}
	if _, threads := b.loadedWasm(); !threads {
		t.Error("the isolated page did not load app-threads.wasm")
	}
	b.checkClean()
}

// TestWebGPUSharedMemory trains the toy demo on WebGPU in the page served
// as a first visit (a plain memory) and with the cross-origin isolation
// headers (a shared memory, from whose views the WebGPU binding then
// uploads: the visits after the service worker took control run so), and
// checks that both runs report the same numbers, bit for bit, but for
// timings. Without a WebGPU device it fails in CI and is skipped loudly
// elsewhere.
func TestWebGPUSharedMemory(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	srv := httptest.NewServer(NewIsolatedHandler(siteDir, prefix))
	defer srv.Close()
	var reports [2]map[string]float64
	for i, page := range []string{baseURL, srv.URL + prefix} {
		b := newBrowser(t, options{})
		b.openURL(page + "?backend=webgpu&epochs=5&train=2000&autostart=1")
		if m, want := eval[string](b, `document.body.dataset.memory || ''`), []string{"plain", "shared"}[i]; m != want {
			t.Fatalf("the page runs on a %q memory, want %s", m, want)
		}
		b.waitFor(`document.body.dataset.state !== 'training' || document.getElementById('backend').dataset.backend`, time.Minute)
		if eval[string](b, `document.getElementById('backend').dataset.backend || ''`) != "webgpu" {
			noWebGPU(t, b.text("#notice"))
		}
		b.waitFinished("done", 8*time.Minute)
		r := b.report()
		t.Logf("%s memory: backend %s (%s), test accuracy %.4f", []string{"plain", "shared"}[i], r.Backend.Name, r.Backend.Adapter, r.Test.Accuracy)
		if r.Backend.Name != "webgpu" {
			t.Fatalf("trained on %q, want webgpu", r.Backend.Name)
		}
		var raw any
		if err := json.Unmarshal([]byte(eval[string](b, `document.getElementById('report').textContent`)), &raw); err != nil {
			t.Fatal(err)
		}
		reports[i] = map[string]float64{}
		numbers("", raw, reports[i])
		b.checkClean()
	}
	sameNumbers(t, reports[0], reports[1])
}
