// Package bench holds the tests of the benchmark scripts of this folder
// that CI runs.
package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deeplda/deeplda/internal/gpurecord"
	"github.com/deeplda/deeplda/internal/gpurecord/gpurecordtest"
)

// TestPageGPUScript runs bench/page_gpu.sh check: the pack built (Chromium
// and its libraries, the site, the browser tests compiled), unpacked and
// run end to end in its short mode, the page on SwiftShader, and checks
// the record it writes.
func TestPageGPUScript(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short mode: bench/page_gpu.sh check builds and runs for minutes")
	}
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium in /usr/lib/chromium: .ci/run installs Debian's chromium")
		}
		t.Skip("SKIPPED: no Debian chromium in /usr/lib/chromium (apt-get install chromium); bench/page_gpu.sh check did not run")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "page_gpu.sh", "check")
	cmd.Env = append(os.Environ(), "OUT="+out)
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("bench/page_gpu.sh check: %v\n%s", err, log)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "gpu-*-page.json"))
	if len(paths) != 1 {
		t.Fatalf("records %v, want one\n%s", paths, log)
	}
	var r gpurecord.PageRecord
	b, _ := os.ReadFile(paths[0])
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	c := r.Conformance
	if !r.Short || !r.Page.Adapter.Software || r.NativeAdapter == "" || len(r.Page.Adapter.DeviceLimits) == 0 ||
		len(r.MatmulGFLOPS["page"]) != 2 || len(r.MatmulGFLOPS["native"]) != 2 || r.ConvNetGoal.Batch != 1 || r.ConvNetGoal.Ratio <= 0 {
		t.Errorf("record %+v", r)
	}
	if c.Failed != 0 || c.Passed < 3 {
		t.Errorf("browser tests: %d passed, %d failed: %v", c.Passed, c.Failed, c.Failures)
		gpurecordtest.LogFailures(t, c, filepath.Join(out, "page.jsonl"), filepath.Join(out, "conformance.jsonl"))
	}
	t.Logf("page on %s, native on %s: %d browser tests passed; ConvNet step at batch %d %.2fx native", r.Adapter, r.NativeAdapter, c.Passed, r.ConvNetGoal.Batch, r.ConvNetGoal.Ratio)
}
