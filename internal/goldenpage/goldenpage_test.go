package goldenpage_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/goldenpage"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/train/traintest"
)

// page is a Page of the query q whose files are those of dir under
// "golden/" and whose WebGPU is webgpu.
func page(t *testing.T, q, dir string, webgpu func() (kernels.Backend, error)) goldenpage.Page {
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return goldenpage.Page{
		Param: func(name, def string) string {
			if v.Has(name) {
				return v.Get(name)
			}
			return def
		},
		Fetch: func(u string) ([]byte, error) {
			name, ok := strings.CutPrefix(u, "golden/")
			if !ok || dir == "" {
				return nil, errors.New("fetching " + u + ": HTTP 404")
			}
			return os.ReadFile(filepath.Join(dir, name))
		},
		WebGPU: webgpu,
	}
}

// cpuGPU stands in for WebGPU with the CPU backend.
func cpuGPU() (kernels.Backend, error) { return cpu.New(), nil }

// noGPU is a browser without WebGPU.
func noGPU() (kernels.Backend, error) { return nil, errors.New("no WebGPU adapter") }

// run runs the page of q and decodes its result into out; it returns the
// page's state.
func run(t *testing.T, p goldenpage.Page, out any) string {
	t.Helper()
	raw, state := goldenpage.Run(p)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("the result is not JSON: %v\n%s", err, raw)
	}
	if !strings.Contains(string(raw), "\n  ") {
		t.Errorf("the result is not indented:\n%s", raw)
	}
	return state
}

// TestGolden runs the golden checks on the CPU backend, and on "WebGPU"
// with its tolerance, from the files of ../shared/golden: every check
// passes, in one section a file.
func TestGolden(t *testing.T) {
	dir := sharedtest.Dir(t, "golden")
	for _, tc := range []struct{ query, backend, tol string }{
		{"backend=cpu", "cpu", traintest.CPUTolerance.String()},
		{"", "cpu", traintest.GPUTolerance.String()},
	} {
		var s traintest.Summary
		if st := run(t, page(t, tc.query, dir, cpuGPU), &s); st != "done" || s.Error != "" || len(s.Failures) > 0 {
			t.Fatalf("%s: state %s, error %q, failures %v", tc.query, st, s.Error, s.Failures)
		}
		if len(s.Sections) != 2 || s.Sections[1].Name != "mlp_synthetic" || s.Checks == 0 || s.Backend != tc.backend || s.Tolerance != tc.tol {
			t.Errorf("%s: %+v", tc.query, s)
		}
	}
}

// TestGoldenErrors: what keeps the checks from running ends in the error
// state and says why.
func TestGoldenErrors(t *testing.T) {
	dir := sharedtest.Dir(t, "golden")
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "head_cases.safetensors"), []byte("not a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query, dir string
		gpu        func() (kernels.Backend, error)
		want       string
	}{
		{"", dir, noGPU, "opening WebGPU: no WebGPU adapter"},
		{"backend=tpu", dir, cpuGPU, `unknown backend "tpu"`},
		{"backend=cpu&golden=elsewhere", dir, cpuGPU, "fetching elsewhere/head_cases.safetensors: HTTP 404"},
		{"backend=cpu", bad, cpuGPU, "head_cases.safetensors: "},
		{"backend=cpu&cases=mlp_synthetic,convnet_svhn", dir, cpuGPU, `no golden model case "convnet_svhn"`},
	} {
		var s traintest.Summary
		st := run(t, page(t, tc.query, tc.dir, tc.gpu), &s)
		if st != "error" || !strings.HasPrefix(s.Error, tc.want) || s.Failures == nil || s.Logs == nil {
			t.Errorf("%s: state %s, %+v; want the error %q", tc.query, st, s, tc.want)
		}
	}
}

// TestToy times a short toy run, bare and paced, and refuses bad sizes.
func TestToy(t *testing.T) {
	for _, q := range []string{"toy=1&epochs=2&train=300", "toy=1&epochs=1&train=300&report=1&yield=0"} {
		var r goldenpage.ToyResult
		if st := run(t, page(t, q, "", noGPU), &r); st != "done" || r.Train != 300 || r.Batch == 0 || r.Seconds <= 0 || r.TestAccuracy <= 0 {
			t.Errorf("%s: state %s, %+v", q, st, r)
		}
		if strings.Contains(q, "report=1") && r.ReportEvery != 1 || !strings.Contains(q, "report=1") && (r.Epochs != 2 || r.ReportEvery <= 1) {
			t.Errorf("%s: %+v", q, r)
		}
	}
	var e struct{ Error string }
	if st := run(t, page(t, "toy=1&epochs=-1", "", noGPU), &e); st != "error" || e.Error != "epochs must be a non-negative integer" {
		t.Errorf("epochs=-1: state %s, error %q", st, e.Error)
	}
}

// TestBench times a list of benchmarks and the GPU table (on the CPU
// backend in WebGPU's place): each listed model with its steps, the table
// only for bench=1.
func TestBench(t *testing.T) {
	var r goldenpage.BenchResult
	raw, st := goldenpage.Run(page(t, "bench=matmul:3,mlp,matmul&size=16&batch=4&steps=1", "", cpuGPU))
	if err := json.Unmarshal(raw, &r); err != nil || st != "done" || strings.Contains(string(raw), `"table"`) || strings.Contains(string(raw), `"error"`) {
		t.Fatalf("state %s, %v:\n%s", st, err, raw)
	}
	if len(r.Results) != 3 || r.Results[0].Steps != 3 || r.Results[0].Size != 16 || r.Results[1].Model != "mlp" || r.Results[1].Batch != 4 || r.Results[2].Steps != 1 {
		t.Errorf("results %+v", r.Results)
	}
	r = goldenpage.BenchResult{}
	if st := run(t, page(t, "bench=1&sizes=16&batches=2&steps=1", "", cpuGPU), &r); st != "done" || len(r.Results) != 3 || r.Table != experiment.SuiteTable(r.Results) {
		t.Errorf("bench=1: state %s, %+v", st, r)
	}
}

// TestBenchErrors: bad settings end in the error state before anything
// runs; a benchmark that fails keeps the results before it.
func TestBenchErrors(t *testing.T) {
	for _, tc := range []struct {
		query string
		gpu   func() (kernels.Backend, error)
		want  string
		n     int
	}{
		{"bench=matmul&size=big", cpuGPU, "size must be an integer", 0},
		{"bench=matmul,convnet:x", cpuGPU, "the steps of convnet must be an integer", 0},
		{"bench=1&steps=x", cpuGPU, "steps must be an integer", 0},
		{"bench=1&sizes=0", cpuGPU, `sizes must list positive whole numbers, got "0"`, 0},
		{"bench=matmul", noGPU, "opening WebGPU: no WebGPU adapter", 0},
		{"bench=matmul,resnet&size=8&steps=1", cpuGPU, "", 1},
	} {
		var r goldenpage.BenchResult
		st := run(t, page(t, tc.query, "", tc.gpu), &r)
		if st != "error" || r.Error == "" || !strings.HasPrefix(r.Error, tc.want) || len(r.Results) != tc.n || r.Results == nil {
			t.Errorf("%s: state %s, %+v; want %d results and the error %q", tc.query, st, r, tc.n, tc.want)
		}
	}
}

// TestRunPanic: a panic ends in the error state with its stack.
func TestRunPanic(t *testing.T) {
	var e struct{ Error string }
	st := run(t, page(t, "", "", func() (kernels.Backend, error) { panic("lost the device") }), &e)
	if st != "error" || !strings.HasPrefix(e.Error, "panic: lost the device\n") || !strings.Contains(e.Error, "goroutine") {
		t.Errorf("state %s, error %q", st, e.Error)
	}
}
