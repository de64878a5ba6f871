package browsertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train/traintest"
)

// buildGoldenPage compiles the page program of browsertest/golden to
// WebAssembly and lays it out in a temporary folder with wasm_exec.js and
// its index.html. With $DEEPLDA_GOLDEN_PAGE set it returns that folder
// instead, laid out so before (bench/page_gpu.sh carries it to a machine
// without Go).
func buildGoldenPage(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("DEEPLDA_GOLDEN_PAGE"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "golden.wasm")); err != nil {
			t.Fatalf("DEEPLDA_GOLDEN_PAGE: %v", err)
		}
		return dir
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the page program: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(gocmd, "build", "-trimpath", "-o", filepath.Join(dir, "golden.wasm"), "./golden")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building ./golden for js/wasm: %v\n%s", err, out)
	}
	root, err := exec.Command(gocmd, "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	for src, dst := range map[string]string{
		filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"): "wasm_exec.js",
		filepath.Join("golden", "index.html"):                                         "index.html",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// serveGoldenPage serves the page folder under /golden-page/ and, when
// goldenDir is not empty, the golden files under /golden-page/golden/ (the
// page's default place for them). It returns the page's URL.
func serveGoldenPage(t testing.TB, pageDir, goldenDir string) string {
	t.Helper()
	const at = "/golden-page/"
	mux := http.NewServeMux()
	mux.Handle(at, NewHandler(pageDir, at))
	if goldenDir != "" {
		mux.Handle(at+"golden/", http.StripPrefix(at+"golden/", http.FileServer(http.Dir(goldenDir))))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + at
}

// TestGoldenInBrowser runs the golden checks of train/traintest (the head
// cases and the model cases: forward, loss, every gradient, Adam steps,
// eval delta) inside Chromium: on WebGPU (SwiftShader in headless
// Chromium) with the GPU tolerance of the native WebGPU tests, the MLP's
// and the Fashion-MNIST ConvNet's, and on the CPU backend compiled to
// WebAssembly with the CPU tolerance, the MLP's. Every check
// must pass, and as many checks must run as natively.
func TestGoldenInBrowser(t *testing.T) {
	if noBrowser != "" {
		t.Skip("SKIPPED: " + noBrowser)
	}
	goldenDir := sharedtest.Dir(t, "golden")
	// The model cases of each backend: WebGPU also runs the ConvNet's,
	// whose GEMMs take both tiles of tile.wgsl (64 and 128 channels) as
	// Chromium compiles them.
	cases := map[string]string{"webgpu": "mlp_synthetic,convnet_fmnist", "cpu": "mlp_synthetic"}
	// The number of checks of each section, from the same checks run
	// natively on the CPU.
	native := traintest.Check(cpu.New(), traintest.CPUTolerance, strings.Split(cases["webgpu"], ","), func(name string) (*safetensors.File, error) {
		return traintest.Open(t, name), nil
	})
	if native.Error != "" || len(native.Failures) > 0 {
		t.Fatalf("the native checks: error %q, failures %v", native.Error, native.Failures)
	}
	checks := map[string]int{}
	for _, s := range native.Sections {
		checks[s.Name] = s.Checks
	}
	start := time.Now()
	page := serveGoldenPage(t, buildGoldenPage(t), goldenDir)
	t.Logf("built the page program in %v; native checks per section: %v", time.Since(start).Round(100*time.Millisecond), checks)

	for _, backend := range []string{"webgpu", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			want := map[string]int{"head_cases": checks["head_cases"]}
			for _, c := range strings.Split(cases[backend], ",") {
				want[c] = checks[c]
			}
			b := newBrowser(t, options{})
			b.openURL(page + "?backend=" + backend + "&cases=" + cases[backend])
			b.waitFor(`document.body.dataset.state === 'done' || document.body.dataset.state === 'error'`, 10*time.Minute)
			raw := eval[string](b, `document.getElementById('result').textContent`)
			var r traintest.Summary
			if err := json.Unmarshal([]byte(raw), &r); err != nil {
				t.Fatalf("#result is not the summary: %v\n%.500s", err, raw)
			}
			if b.state() == "error" || r.Error != "" {
				if backend == "webgpu" && strings.Contains(r.Error, "no WebGPU adapter") && os.Getenv("CI") == "" {
					t.Skipf("SKIPPED: this Chromium offers no WebGPU adapter: %s", r.Error)
				}
				t.Fatalf("the checks did not run: %s", r.Error)
			}
			t.Logf("backend %s, adapter %q, %s: %d checks", r.Backend, r.Adapter, r.Tolerance, r.Checks)
			for _, s := range r.Sections {
				t.Logf("  %s: %d checks, %d failed, %.2f s", s.Name, s.Checks, s.Failed, s.Seconds)
				if s.Checks != want[s.Name] {
					t.Errorf("%s: %d checks ran in the browser, %d natively", s.Name, s.Checks, want[s.Name])
				}
			}
			for _, l := range r.Logs {
				t.Logf("  log: %s", l)
			}
			for _, f := range r.Failures {
				t.Errorf("%s: %s", f.Section, f.Message)
			}
			if len(r.Sections) != len(want) {
				t.Errorf("%d sections ran, want %d", len(r.Sections), len(want))
			}
			if r.Backend != backend {
				t.Errorf("the checks ran on %q, want %q", r.Backend, backend)
			}
			if backend == "webgpu" && (r.Adapter == "" || r.Adapter == "unknown") {
				t.Errorf("adapter %q: not a WebGPU adapter that navigator.gpu describes", r.Adapter)
			}
			b.checkClean()
		})
	}
}
