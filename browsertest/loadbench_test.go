package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// loadMarksJS records, in every document, when the page paints its form
// (body's data-state first set, by the view's start) and when it is ready
// to train (data-ready), in milliseconds from the navigation's start.
const loadMarksJS = `new MutationObserver(() => {
  const b = document.body;
  if (!b) return;
  if (!window.__formAt && b.dataset.state) window.__formAt = performance.now();
  if (!window.__readyAt && b.dataset.ready === '1') window.__readyAt = performance.now();
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state', 'data-ready'] });`

// gzipHandler serves h's responses gzip-compressed (as GitHub Pages does)
// to clients that accept it, compressing each file once.
func gzipHandler(h http.Handler) http.Handler {
	var mu sync.Mutex
	cache := map[string][]byte{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") || r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		mu.Lock()
		z, ok := cache[r.URL.Path]
		if !ok {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			zw.Write(rec.Body.Bytes())
			zw.Close()
			z = b.Bytes()
			cache[r.URL.Path] = z
		}
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(z)
	})
}

// loadTimes are the marks of one page load, in ms from the navigation's
// start.
type loadTimes struct {
	Paint float64 `json:"paint"` // first contentful paint
	Form  float64 `json:"form"`  // the form is built
	Ready float64 `json:"ready"` // ready to train (data-ready)
}

// loadPage opens u in b and returns its load marks.
func loadPage(b *browser, u string) loadTimes {
	b.t.Helper()
	b.openURL(u)
	b.waitFor(`document.body.dataset.ready === '1'`, 2*time.Minute)
	return eval[loadTimes](b, `({
  paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0,
  form: window.__formAt || 0,
  ready: window.__readyAt || 0,
})`)
}

// BenchmarkFirstLoad loads the built site (DEEPLDA_SITE), and the site of
// DEEPLDA_SITE_BEFORE when set (another commit's build, to compare), served
// gzip-compressed over a connection throttled to 20 Mbit/s with 40 ms of
// latency: cold (a fresh profile) and warm (the same tab loading the page
// again, with the service worker's cache), and prints the first
// contentful paint, the form's and the ready (trainable) marks as a
// Markdown table for BENCHMARKS.md. One pass takes about a minute:
//
//	./build.sh site
//	DEEPLDA_SITE=$PWD/out/site go test -run '^$' -bench FirstLoad -benchtime 3x -v ./browsertest
func BenchmarkFirstLoad(b *testing.B) {
	if noBrowser != "" {
		b.Skip("SKIPPED: " + noBrowser)
	}
	sites := []struct{ name, dir string }{{"this commit", siteDir}}
	if d := os.Getenv("DEEPLDA_SITE_BEFORE"); d != "" {
		sites = append([]struct{ name, dir string }{{"before (" + filepath.Base(d) + ")", d}}, sites...)
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "| site | load | first paint (ms) | form (ms) | ready to train (ms) |\n| --- | --- | --- | --- | --- |\n")
	for _, s := range sites {
		mux := http.NewServeMux()
		mux.Handle(prefix, gzipHandler(NewHandler(s.dir, prefix)))
		srv := httptest.NewServer(mux)
		var cold, warm loadTimes
		for i := 0; i < b.N; i++ {
			br := newBrowser(b, options{})
			br.onNewDocument("the load marks", loadMarksJS)
			throttle := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
				if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
					return chromedp.Void{}, err
				}
				_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
					MatchedNetworkConditions: []*network.Conditions{{Latency: 40, DownloadThroughput: 20e6 / 8, UploadThroughput: 20e6 / 8}},
				})
				return chromedp.Void{}, err
			}
			if err := chromedp.Do(br.ctx, throttle); err != nil {
				b.Fatalf("throttling: %v", err)
			}
			c := loadPage(br, srv.URL+path.Clean(prefix)+"/")
			time.Sleep(2 * time.Second) // let the service worker install
			w := loadPage(br, srv.URL+path.Clean(prefix)+"/")
			cold.Paint, cold.Form, cold.Ready = cold.Paint+c.Paint, cold.Form+c.Form, cold.Ready+c.Ready
			warm.Paint, warm.Form, warm.Ready = warm.Paint+w.Paint, warm.Form+w.Form, warm.Ready+w.Ready
		}
		srv.Close()
		n := float64(b.N)
		for _, l := range []struct {
			name string
			t    loadTimes
		}{{"cold", cold}, {"warm", warm}} {
			fmt.Fprintf(&tab, "| %s | %s | %.0f | %.0f | %.0f |\n", s.name, l.name, l.t.Paint/n, l.t.Form/n, l.t.Ready/n)
		}
	}
	b.ReportMetric(0, "ns/op")
	b.Logf("page loads over 20 Mbit/s with 40 ms latency, gzip, mean of %d:\n%s", b.N, tab.String())
}
