// Package goldenpage is what the golden page program (browsertest/golden)
// runs, apart from the browser: it reads the page's query, runs the mode
// the query names and returns the result that the program writes into
// <pre id="result">, with the page's state.
//
// The query string selects what runs:
//
//	golden=URL       where the golden files are (default "golden/")
//	backend=webgpu   the backend: webgpu (default) or cpu
//	cases=a,b        the model cases of traintest.Cases (default mlp_synthetic)
//
// runs the golden checks of train/traintest (the head cases and the model
// cases: forward, loss, every gradient, Adam steps, eval delta) with the
// tolerance of the backend's native tests, and the result is their
// traintest.Summary (Golden). With toy=1 it instead times the toy DNLL
// training run on the CPU backend in a bare loop (Toy); with
// bench=matmul,convnet it times those on WebGPU as "deeplda bench" does,
// and with bench=1 the whole GPU table, as "deeplda bench -suite" does
// (Bench).
package goldenpage

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train/traintest"
)

// Page is what the program gives the modes: the page's query and its ways
// into the browser.
type Page struct {
	Param  func(name, def string) string    // a parameter of the query, or def when it is absent
	Fetch  func(url string) ([]byte, error) // a file, by its URL relative to the page
	WebGPU func() (kernels.Backend, error)  // opens the WebGPU backend
}

// Run runs the mode of the query and returns its result in indented JSON
// and the page's state: "done" (the mode ran; the result says how it went)
// or "error" (it could not run; the result holds the error). A panic ends
// in the error state, with its stack.
func Run(p Page) ([]byte, string) {
	var (
		out   any
		state = "done"
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				out, state = errorResult(fmt.Sprintf("panic: %v\n%s", r, debug.Stack())), "error"
			}
		}()
		if models := p.Param("bench", ""); models != "" {
			out, state = Bench(p, models)
			return
		}
		if p.Param("toy", "") == "1" {
			res, err := Toy(p.Param)
			out = res
			if err != nil {
				out, state = errorResult(err.Error()), "error"
			}
			return
		}
		s := Golden(p)
		out = s
		if s.Error != "" {
			state = "error"
		}
	}()
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		b, state = []byte(`{"error": "cannot encode the result"}`), "error"
	}
	return b, state
}

// errorResult is the result of a mode that could not run.
func errorResult(msg string) map[string]string { return map[string]string{"error": msg} }

// Golden runs the golden checks on the query's backend with the tolerance
// of its native tests, reading the golden files from the query's folder.
func Golden(p Page) *traintest.Summary {
	base := p.Param("golden", "golden/")
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	fail := func(msg string) *traintest.Summary {
		return &traintest.Summary{Failures: []traintest.Failure{}, Logs: []string{}, Error: msg}
	}
	var be kernels.Backend
	tol := traintest.GPUTolerance
	switch name := p.Param("backend", "webgpu"); name {
	case "webgpu":
		b, err := p.WebGPU()
		if err != nil {
			return fail("opening WebGPU: " + err.Error())
		}
		be = b
	case "cpu":
		be, tol = cpu.New(), traintest.CPUTolerance
	default:
		return fail(fmt.Sprintf("unknown backend %q", name))
	}
	defer be.Close()
	open := func(name string) (*safetensors.File, error) {
		b, err := p.Fetch(base + name + ".safetensors")
		if err != nil {
			return nil, err
		}
		f, err := safetensors.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s.safetensors: %w", name, err)
		}
		return f, nil
	}
	return traintest.Check(be, tol, strings.Split(p.Param("cases", "mlp_synthetic"), ","), open)
}
