package browsertest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestOffline loads the page once, takes the server away, and checks that
// the page still loads (from the service worker's cache) and trains. The
// worker makes the offline page cross-origin isolated, but the first
// visit, which was not, never loaded app-threads.wasm, so the page falls
// back to app.wasm on a plain memory.
func TestOffline(t *testing.T) {
	srv := httptest.NewServer(NewHandler(siteDir, prefix))
	defer srv.Close()
	b := newBrowser(t, options{})
	b.openURL(srv.URL + prefix + "?backend=cpu")
	// Wait until the service worker controls the page and holds the wasm.
	b.waitFor(`navigator.serviceWorker.controller !== null`, time.Minute)
	cached, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(async () => {
		for (const k of await caches.keys()) {
			if (await (await caches.open(k)).match('site/app.wasm')) return true;
		}
		return false;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil || !cached {
		t.Fatalf("site/app.wasm is not cached (%v)", err)
	}
	srv.Close()
	b.openURL(srv.URL + prefix + "?backend=cpu&epochs=3&train=2000&autostart=1")
	b.waitFinished("done", 3*time.Minute)
	if r := b.report(); r.Status != "done" {
		t.Errorf("offline run: status %q", r.Status)
	}
	if iso, m := eval[bool](b, `self.crossOriginIsolated`), eval[string](b, `document.body.dataset.memory || ''`); !iso || m != "plain" {
		t.Errorf("offline: cross-origin isolated %v, memory %q; want true and plain (app-threads.wasm is not cached)", iso, m)
	}
	b.screenshot("offline.png")
}
