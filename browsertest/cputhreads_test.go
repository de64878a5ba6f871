package browsertest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestThreadsSameBits trains the paper's ConvNet on the CPU backend for one
// epoch of 256 Fashion-MNIST images twice, on the page served as GitHub
// Pages serves a first visit (one thread) and with the cross-origin
// isolation headers (a shared memory: the matrix products split between
// the main thread and a Web Worker, threads=2), and checks that the second run used
// more than one thread and that the two reports hold the same numbers, bit
// for bit, but for timings: each thread computes whole tiles of C exactly
// as one thread does.
func TestThreadsSameBits(t *testing.T) {
	site := fashionSite(t)
	if site != baseURL {
		t.Skip("SKIPPED: the built site hosts no Fashion-MNIST (build it with ../shared/datasets beside the repository)")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("SKIPPED: one core: the page would start no worker")
	}
	iso := httptest.NewServer(NewIsolatedHandler(siteDir, prefix))
	defer iso.Close()
	// threads=2: by default the page leaves one core to the browser, which
	// on two cores means one thread.
	const query = "?demo=images&data=fashion-mnist&backend=cpu&limit-train=256&limit-test=256&epochs=1&batch=64&seed=3&threads=2&autostart=1"
	var reports [2]map[string]float64
	var adapters [2]string
	for i, page := range []string{baseURL, iso.URL + prefix} {
		b := newBrowser(t, options{noWebGPU: true})
		b.openURL(page + query)
		b.waitFinished("done", 8*time.Minute)
		raw := eval[string](b, `document.getElementById('report').textContent`)
		var r any
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatalf("#report: %v\n%.300s", err, raw)
		}
		reports[i] = map[string]float64{}
		numbers("", r, reports[i])
		adapters[i] = b.report().Backend.Adapter
		t.Logf("%s: memory %s, %s, test accuracy %v", page, eval[string](b, `document.body.dataset.memory`), adapters[i], reports[i]["test.accuracy"])
	}
	if !strings.Contains(adapters[0], " 1 thread") || strings.Contains(adapters[1], " 1 thread") {
		t.Fatalf("backends %q and %q: want one thread, then several", adapters[0], adapters[1])
	}
	sameNumbers(t, reports[0], reports[1])
}

// sameNumbers fails the test for each number of the first report (see
// numbers) that the second does not hold, bit for bit; the WebGPU device
// counters per step may differ by 5%.
func sameNumbers(t *testing.T, first, second map[string]float64) {
	t.Helper()
	var keys []string
	for k := range first {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) < 20 || len(first) != len(second) {
		t.Fatalf("%d and %d numbers in the reports", len(first), len(second))
	}
	for _, k := range keys {
		v, ok := second[k]
		switch {
		case !ok:
			t.Errorf("%s: %v, then none", k, first[k])
		case strings.HasPrefix(k, "webgpu_per_step.") && math.Abs(v-first[k]) <= 0.05*math.Abs(first[k]):
			// The uniform ring submits when it wraps, and where it wraps
			// depends on the dispatches between epochs, which the clock
			// decides (the page's figures every second, its save
			// points): a submission, a pass and an upload more or less
			// over the run.
			if v != first[k] {
				t.Logf("%s: %v, then %v", k, first[k], v)
			}
		case v != first[k]:
			t.Errorf("%s: %v, then %v", k, first[k], v)
		}
	}
}

// numbers collects the numbers of the decoded JSON value v under their
// dotted paths into out, leaving out timings (keys that name seconds,
// times or rates) and the backend's description.
func numbers(path string, v any, out map[string]float64) {
	switch x := v.(type) {
	case float64:
		out[path] = x
	case []any:
		for i, e := range x {
			numbers(fmt.Sprintf("%s[%d]", path, i), e, out)
		}
	case map[string]any:
		for k, e := range x {
			if k == "backend" || strings.Contains(k, "second") || strings.Contains(k, "time") || strings.HasSuffix(k, "_per_s") || strings.HasSuffix(k, "per_second") {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			numbers(p, e, out)
		}
	}
}

// TestThreadsParamInvalid opens the page with a threads= value that is not
// a whole number of at least 1: the page says so and keeps working.
func TestThreadsParamInvalid(t *testing.T) {
	b := newBrowser(t, options{noWebGPU: true})
	b.open("?backend=cpu&threads=two")
	b.waitFor(`document.body.dataset.ready === '1'`, time.Minute)
	if n := b.text("#notice"); !strings.Contains(n, `threads must be a whole number of at least 1, got "two"`) {
		t.Errorf("notice %q", n)
	}
	if s := b.state(); s == "error" {
		t.Errorf("state %q", s)
	}
}
