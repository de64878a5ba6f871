package browsertest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// appGzipBudget is the most site/app.wasm may weigh compressed by
// compress/gzip at level 9, as a compressing server (GitHub Pages) sends
// it. Issue 15 asked for 1.6 MB, which the app misses: it weighed 2.37 MB
// (BENCHMARKS.md, "First load", says what makes up the rest and what the
// design's DOM binding and linear algebra library cost), and 2.47 MB once
// the page computed every score of experiment.Scores (Brier, adaptive and
// classwise ECE, MCE and six out-of-distribution scores), bounded every
// size by memory and capped decompression, 2.51 MB once the same
// program held both the engine of the run protocol (which it runs in its
// Web Worker) and the view of its events, and 2.54 MB once the view could
// also drive deeplda ui's native engine (its link, sessions adopted after
// a reload, the runs folder's list), and 2.62 MB once it parsed the runs
// folder's figures to draw them without their script (encoding/xml) and
// gained its first screen, its layouts and the runs folder's sortable
// table, and 2.66 MB once it wrote its tables as CSV (encoding/csv) and a
// run's files as a zip (archive/zip, with compress/flate's compressor)
// and drew a live loss curve; the budget, about 1% above that, keeps it
// from growing unnoticed.
const appGzipBudget = 2_690_000

// gzipSize returns the size of data compressed by compress/gzip at level 9.
func gzipSize(t *testing.T, data []byte) int {
	t.Helper()
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// TestAppSize fails when the built site's app.wasm, gzip-compressed,
// exceeds appGzipBudget. It needs the site, not the browser.
func TestAppSize(t *testing.T) {
	if siteDir == "" {
		t.Skip("SKIPPED: no built site (set DEEPLDA_SITE, as ./build.sh test does)")
	}
	raw, err := os.ReadFile(filepath.Join(siteDir, "site", "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipSize(t, raw)
	t.Logf("site/app.wasm: %d bytes, %d gzip-compressed (level 9); budget %d", len(raw), gz, appGzipBudget)
	if gz > appGzipBudget {
		t.Errorf("site/app.wasm is %d bytes gzip-compressed, over its budget of %d: see what grew with BENCHMARKS.md's \"First load\" method", gz, appGzipBudget)
	}
}

// readyJS records, in every document, when the page sets its ready marker
// (body's data-ready), in milliseconds from the navigation's start.
const readyJS = `new MutationObserver((_, obs) => {
  if (document.body && document.body.dataset.ready === '1') { window.__readyAt = performance.now(); obs.disconnect(); }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });`

// resource is one file the page loaded, from the Resource Timing and
// Navigation Timing entries.
type resource struct {
	Name     string  `json:"name"`
	Transfer float64 `json:"transfer"` // bytes over the network, headers included (0 from a cache)
	Decoded  float64 `json:"decoded"`  // bytes of the body, uncompressed
	End      float64 `json:"end"`      // ms from the navigation's start to its last byte
}

// maxOtherBytes bounds what the first load may fetch besides app.wasm:
// index.html, the style sheet, the scripts and the two indexes of the
// hosted data and models.
const maxOtherBytes = 200_000

// TestFirstLoad opens the page in a fresh browser (empty cache, no service
// worker yet) and measures the first visit: the time from the navigation's
// start to the ready marker (data-ready: the app started, its backend
// warmed up, the form usable), which is the page's time to interactive,
// and the bytes of every file it loaded. Besides app.wasm it may load only
// small files (maxOtherBytes in all): no data set and no model before the
// user asks for one.
func TestFirstLoad(t *testing.T) {
	b := newBrowser(t, options{})
	b.onNewDocument("the ready clock", readyJS)
	start := time.Now()
	b.open("")
	wall := time.Since(start)
	type load struct {
		Ready     float64    `json:"ready"`
		Resources []resource `json:"resources"`
	}
	l := eval[load](b, `({
  ready: window.__readyAt || 0,
  resources: performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map(e =>
    ({ name: e.name, transfer: e.transferSize, decoded: e.decodedBodySize, end: e.responseEnd })),
})`)
	if b.state() == "error" {
		t.Fatalf("the page failed to start: %s", b.text("#notice"))
	}
	if l.Ready <= 0 {
		t.Fatal("the ready clock did not see data-ready being set")
	}
	wasm, err := os.Stat(filepath.Join(siteDir, "site", "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var total, transferred, other float64
	var gz int
	wasmEnd := 0.0
	for _, r := range l.Resources {
		u, err := url.Parse(r.Name)
		if err != nil || !strings.HasPrefix(u.Path, prefix) {
			t.Errorf("loaded %s, outside the site", r.Name)
			continue
		}
		rel := strings.TrimPrefix(u.Path, prefix)
		file := rel
		if file == "" {
			file = "index.html"
		}
		data, err := os.ReadFile(filepath.Join(siteDir, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("loaded %s: %v", r.Name, err)
			continue
		}
		z := gzipSize(t, data)
		gz += z
		total += r.Decoded
		transferred += r.Transfer
		t.Logf("  %-28s %9.0f bytes, %8d gzip-compressed, done at %6.0f ms", "/"+rel, r.Decoded, z, r.End)
		switch {
		case rel == "site/app.wasm":
			wasmEnd = r.End
			if int64(r.Decoded) != wasm.Size() {
				t.Errorf("site/app.wasm: loaded %.0f bytes, the file has %d", r.Decoded, wasm.Size())
			}
		case (strings.HasPrefix(rel, "site/data/") || strings.HasPrefix(rel, "site/models/")) && !strings.HasSuffix(rel, "/index.json"):
			t.Errorf("the first load fetched %s before anyone asked for it", rel)
		default:
			other += r.Decoded
		}
	}
	if wasmEnd == 0 {
		t.Fatal("the page did not load site/app.wasm")
	}
	t.Logf("first load on %s: %d files, %.0f bytes (%.0f transferred; %d gzip-compressed, as a compressing server sends them); app.wasm loaded at %.0f ms, ready (time to interactive) at %.0f ms from the navigation's start (%v by the test's clock)",
		eval[string](b, `document.getElementById('backend').dataset.backend || ''`), len(l.Resources), total, transferred, gz, wasmEnd, l.Ready, wall.Round(time.Millisecond))
	if other > maxOtherBytes {
		t.Errorf("besides app.wasm the first load fetched %.0f bytes, over %d", other, maxOtherBytes)
	}
	b.checkClean()
}

// TestNoHostedData opens the images demo on a site that hosts no image
// data (site/data/index.json is {}, as ./build.sh site -no-data writes it):
// the page says so and asks for the user's files.
func TestNoHostedData(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(prefix+"site/data/index.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}\n")
	})
	mux.Handle("/", NewHandler(siteDir, prefix))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b := newBrowser(t, options{})
	b.openURL(srv.URL + prefix + "?demo=images&backend=cpu")
	b.waitFor(`document.getElementById('data-box').dataset.hosted === 'false'`, 30*time.Second)
	const want = "This site hosts no image data: choose the data set's files below, or drop them here (nothing leaves this page)."
	if got := b.text("#data-status"); got != want {
		t.Errorf("data status %q, want %q", got, want)
	}
	b.checkClean()
}
