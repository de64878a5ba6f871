package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// runNodeEngine builds browsertest/nodeengine for js/wasm and runs it
// under Node.js on the site in dir with the page's query: the report.json
// of the session's first run, as the engine computes it outside the page.
func runNodeEngine(t *testing.T, dir, query string) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no node: %v", err)
		}
		t.Skipf("SKIPPED: no Node.js (%v)", err)
	}
	bin := filepath.Join(t.TempDir(), "nodeengine.wasm")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./nodeengine")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building ./nodeengine: %v\n%s", err, out)
	}
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--stack-size=8192"}
	if exec.Command(node, "--experimental-wasm-relaxed-simd", "-e", "0").Run() == nil {
		args = append(args, "--experimental-wasm-relaxed-simd") // as Chromium runs it; on by default in later Node.js
	}
	args = append(args, filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec_node.js"), bin, dir, query)
	cmd := exec.Command(node, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the engine under Node.js: %v\n%s", err, stderr.String())
	}
	return out
}

// reportNumbers returns a report.json without what depends on the clock
// and the host (timings, the backend's description).
func reportNumbers(t *testing.T, rep []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rep, &m); err != nil {
		t.Fatalf("report: %v\n%.300s", err, rep)
	}
	for _, k := range []string{"seconds", "backend", "status"} {
		delete(m, k)
	}
	if h, ok := m["history"].([]any); ok {
		for _, row := range h {
			delete(row.(map[string]any), "seconds")
		}
	}
	return m
}

// nodeSite returns a folder of the site's files that hosts Fashion-MNIST
// for the engine under Node.js: the built site when it hosts it, else a
// temporary one over the shared data sets.
func nodeSite(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(siteDir, "site", "data", "fashion-mnist")); err == nil {
		return siteDir
	}
	src := os.Getenv("DEEPLDA_DATA")
	if src == "" {
		src = filepath.Join("..", "..", "shared", "datasets")
	}
	abs, err := filepath.Abs(filepath.Join(src, "fashion-mnist"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "site", "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(data, "fashion-mnist")); err != nil {
		t.Fatal(err)
	}
	index := `{"fashion-mnist": ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]}`
	if err := os.WriteFile(filepath.Join(data, "index.json"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPageMatchesNode trains a toy run and a short image run in the page
// on the CPU backend and the same sessions with the same engine compiled
// to WebAssembly under Node.js: the reports must have the same numbers,
// bit for bit (the page computes exactly what the engine computes outside
// it). The toy run must also agree with the native CPU backend within
// 1e-3 (relative) on its losses and accuracies.
func TestPageMatchesNode(t *testing.T) {
	b := newBrowser(t, options{})
	for _, tc := range []struct {
		name, query string
		site        func() (url, dir string)
	}{
		{"toy", "demo=deep&backend=cpu&epochs=3&train=1000&test=500", func() (string, string) { return baseURL, siteDir }},
		{"images", "demo=images&data=fashion-mnist&backend=cpu&limit-train=64&limit-test=64&epochs=1&batch=32", func() (string, string) {
			return fashionSite(t), nodeSite(t)
		}},
	} {
		u, dir := tc.site()
		b.openURL(u + "?" + tc.query + "&autostart=1")
		b.waitFinished("done", 8*time.Minute)
		inPage := []byte(b.text("#report"))
		outside := runNodeEngine(t, dir, tc.query)
		got, _ := json.Marshal(reportNumbers(t, inPage))
		want, _ := json.Marshal(reportNumbers(t, outside))
		if string(got) != string(want) {
			t.Errorf("%s: the page's report differs from the engine's under Node.js:\n page %.600s\n node %.600s", tc.name, got, want)
		} else {
			t.Logf("%s: the page's report and the engine's under Node.js have the same numbers (%d bytes of JSON)", tc.name, len(got))
		}
		if tc.name == "toy" {
			compareNative(t, inPage)
		}
	}
	b.checkClean()
}

// compareNative trains the page's toy run natively and compares the
// history's losses and accuracies and the test split's with the page's
// report.
func compareNative(t *testing.T, inPage []byte) {
	t.Helper()
	c := experiment.DefaultSynth()
	c.Epochs, c.Train, c.Test = 3, 1000, 500
	run, err := experiment.NewSynth(cpu.New(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := (experiment.Driver{}).Drive(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	var page struct {
		report
		History []struct {
			Epoch        int     `json:"epoch"`
			Loss         float64 `json:"loss"`
			TestAccuracy float64 `json:"test_accuracy"`
		} `json:"history"`
	}
	if err := json.Unmarshal(inPage, &page); err != nil {
		t.Fatal(err)
	}
	nat := run.Report
	if len(page.History) != len(nat.History) {
		t.Fatalf("page: %d epochs, native %d", len(page.History), len(nat.History))
	}
	worst := 0.0
	check := func(what string, got, want float64) {
		d := math.Abs(got-want) / math.Max(math.Abs(want), 1e-3)
		worst = math.Max(worst, d)
		if d > 1e-3 {
			t.Errorf("%s: page %.7g, native %.7g", what, got, want)
		}
	}
	for i, h := range page.History {
		check(fmt.Sprintf("loss of epoch %d", h.Epoch), h.Loss, float64(nat.History[i].Loss))
		check(fmt.Sprintf("test accuracy of epoch %d", h.Epoch), h.TestAccuracy, float64(nat.History[i].TestAccuracy))
	}
	check("test accuracy", page.Test.Accuracy, float64(nat.Test.Accuracy))
	check("test ECE", page.Test.ECE, float64(nat.Test.ECE))
	t.Logf("toy: the page and the native CPU backend differ by at most %.2g (relative)", worst)
}
