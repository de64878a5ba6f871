//go:build js && wasm

// Command golden is the page program of the browser's golden check
// (browsertest/golden_test.go): it fetches the PyTorch golden files from
// the server, opens the WebGPU backend through navigator.gpu and runs the
// same checks as the native tests (train/traintest: the head cases and the
// MLP model case: forward, loss, every gradient, Adam steps, eval delta),
// then writes a JSON summary into <pre id="result"> and sets
// document.body.dataset.state to "done" (the checks ran; the summary lists
// any failures) or "error" (they could not run).
//
// The query string selects what runs:
//
//	golden=URL       where the golden files are (default "golden/")
//	backend=webgpu   the backend: webgpu (default) or cpu
//	cases=a,b        the model cases of traintest.Cases (default mlp_synthetic)
//
// With toy=1 it instead times the toy DNLL training run on the CPU backend
// in a bare loop, for the benchmark of browsertest/bench_test.go:
//
//	epochs, train    the run's size (default experiment.DefaultSynth)
//	report=N         steps between progress reports (0: the trainer's default)
//	yield=MS         hand the thread back to the browser (sleep 1 ms) when
//	                 MS milliseconds have passed since the last time, from
//	                 the progress callback, as the trainer page does
//
// and writes {"seconds": ...} (the trainer's training time) as the result.
//
// With bench=matmul,convnet it instead times those on WebGPU as "deeplda
// bench" does (bench.go), for browsertest/gpubench_test.go; with bench=1,
// the whole GPU table, as "deeplda bench -suite" does.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
	"github.com/deeplda/deeplda/train/traintest"
)

// Tolerances of the native tests: kernels/webgpu/conformance_test.go and
// kernels/cpu/golden_test.go.
var (
	gpuTol = traintest.Tolerance{RTol: 1e-3, ATol: 1e-4}
	cpuTol = traintest.Tolerance{RTol: 1e-4, ATol: 1e-4}
)

func main() {
	body := js.Global().Get("document").Get("body")
	body.Get("dataset").Set("ready", "1")
	q := js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search"))
	param := func(name, def string) string {
		if v := q.Call("get", name); v.Type() == js.TypeString {
			return v.String()
		}
		return def
	}
	var (
		out   any
		state = "done"
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				out, state = map[string]string{"error": fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}, "error"
			}
		}()
		if models := param("bench", ""); models != "" {
			out, state = bench(models, param)
			return
		}
		if param("toy", "") == "1" {
			res, err := toy(param)
			out = res
			if err != nil {
				out, state = map[string]string{"error": err.Error()}, "error"
			}
			return
		}
		s := golden(param)
		out = s
		if s.Error != "" {
			state = "error"
		}
	}()
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		b, state = []byte(`{"error": "cannot encode the result"}`), "error"
	}
	js.Global().Get("document").Call("getElementById", "result").Set("textContent", string(b))
	body.Get("dataset").Set("state", state)
	// Stay alive: callbacks of the WebGPU binding may still arrive, and a
	// Go program that has exited answers them with an exception.
	select {}
}

// failure is a failed check.
type failure struct {
	Section string `json:"section"`
	Message string `json:"message"`
}

// section is one group of checks (one golden file).
type section struct {
	Name    string  `json:"name"`
	Checks  int     `json:"checks"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
}

// summary is the result of the golden checks.
type summary struct {
	Backend   string    `json:"backend"`
	Adapter   string    `json:"adapter"`
	Tolerance string    `json:"tolerance"`
	Checks    int       `json:"checks"`
	Sections  []section `json:"sections"`
	Failures  []failure `json:"failures"`
	Logs      []string  `json:"logs"`
	Error     string    `json:"error,omitempty"`
}

// fatal unwinds a section after Fatalf.
type fatal struct{}

// reporter is the traintest.TB (and traintest.Counter) of the page: it
// collects failures and counts the checks of the section it runs.
type reporter struct {
	s   *summary
	cur *section
}

func (r *reporter) Helper() {}

func (r *reporter) Count(string) {
	r.s.Checks++
	r.cur.Checks++
}

func (r *reporter) Errorf(format string, args ...any) {
	r.s.Failures = append(r.s.Failures, failure{r.cur.Name, fmt.Sprintf(format, args...)})
	r.cur.Failed++
}

func (r *reporter) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

func (r *reporter) Logf(format string, args ...any) {
	r.s.Logs = append(r.s.Logs, r.cur.Name+": "+fmt.Sprintf(format, args...))
}

// run runs f as the section name: a Fatalf or a panic ends the section
// (a panic as a failure).
func (r *reporter) run(name string, f func()) {
	r.s.Sections = append(r.s.Sections, section{Name: name})
	r.cur = &r.s.Sections[len(r.s.Sections)-1]
	start := time.Now()
	defer func() {
		r.cur.Seconds = time.Since(start).Seconds()
		if p := recover(); p != nil {
			if _, ok := p.(fatal); !ok {
				r.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}
	}()
	f()
}

// golden runs the checks.
func golden(param func(name, def string) string) *summary {
	s := &summary{Failures: []failure{}, Logs: []string{}}
	base := param("golden", "golden/")
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	var be kernels.Backend
	tol := gpuTol
	switch name := param("backend", "webgpu"); name {
	case "webgpu":
		b, err := webgpu.New()
		if err != nil {
			s.Error = "opening WebGPU: " + err.Error()
			return s
		}
		be = b
	case "cpu":
		be, tol = cpu.New(), cpuTol
	default:
		s.Error = fmt.Sprintf("unknown backend %q", name)
		return s
	}
	defer be.Close()
	s.Backend, s.Adapter, s.Tolerance = be.Info().Name, be.Info().Adapter, tol.String()

	open := func(name string) (*safetensors.File, error) {
		b, err := fetchBytes(base + name + ".safetensors")
		if err != nil {
			return nil, err
		}
		f, err := safetensors.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s.safetensors: %w", name, err)
		}
		return f, nil
	}
	r := &reporter{s: s}
	heads, err := open("head_cases")
	if err != nil {
		s.Error = err.Error()
		return s
	}
	r.run("head_cases", func() { traintest.CheckHeadCases(r, be, heads, tol) })
	for _, name := range strings.Split(param("cases", "mlp_synthetic"), ",") {
		c, ok := traintest.CaseNamed(name)
		if !ok {
			s.Error = fmt.Sprintf("no golden model case %q", name)
			return s
		}
		f, err := open(name)
		if err != nil {
			s.Error = err.Error()
			return s
		}
		r.run(name, func() { traintest.CheckCase(r, be, c, f, tol) })
	}
	if err := be.Sync(); err != nil {
		s.Error = "the backend failed: " + err.Error()
	}
	return s
}

// await waits for a promise (from the main goroutine, never from inside a
// js.FuncOf callback).
func await(p js.Value) (js.Value, error) {
	done := make(chan struct{})
	var v js.Value
	var err error
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		v = args[0]
		close(done)
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		err = errors.New(args[0].Call("toString").String())
		close(done)
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	<-done
	return v, err
}

// fetchBytes fetches url (relative to the page).
func fetchBytes(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	if !resp.Get("ok").Bool() {
		return nil, fmt.Errorf("fetching %s: HTTP %d", url, resp.Get("status").Int())
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b, nil
}

// toyResult is the result of the toy timing.
type toyResult struct {
	Epochs       int     `json:"epochs"`
	Train        int     `json:"train"`
	Batch        int     `json:"batch"`
	ReportEvery  int     `json:"report_every"`
	YieldMS      int     `json:"yield_ms"`
	Yields       int     `json:"yields"`
	Seconds      float64 `json:"seconds"`       // training time (train.Trainer.Elapsed)
	YieldSeconds float64 `json:"yield_seconds"` // of which in the yields
	TestAccuracy float64 `json:"test_accuracy"`
}

// toy times the toy DNLL run on the CPU backend.
func toy(param func(name, def string) string) (*toyResult, error) {
	c := experiment.DefaultSynth()
	atoi := func(name string, def int) (int, error) {
		v, err := strconv.Atoi(param(name, strconv.Itoa(def)))
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%s must be a non-negative integer", name)
		}
		return v, nil
	}
	var err error
	res := &toyResult{}
	for _, p := range []struct {
		name string
		v    *int
		def  int
	}{{"epochs", &c.Epochs, c.Epochs}, {"train", &c.Train, c.Train}, {"report", &res.ReportEvery, 0}, {"yield", &res.YieldMS, 0}} {
		if *p.v, err = atoi(p.name, p.def); err != nil {
			return nil, err
		}
	}
	run, err := experiment.NewSynth(cpu.New(), c)
	if err != nil {
		return nil, err
	}
	if res.ReportEvery > 0 {
		run.Trainer.Cfg.ReportEvery = res.ReportEvery
	}
	res.Epochs, res.Train, res.Batch, res.ReportEvery = c.Epochs, c.Train, c.Batch, run.Trainer.Cfg.ReportEvery
	every := time.Duration(res.YieldMS) * time.Millisecond
	last := time.Now()
	var yielded time.Duration
	onProgress := func(train.Progress) {
		if every > 0 && time.Since(last) >= every {
			t := time.Now()
			time.Sleep(time.Millisecond)
			last = time.Now()
			yielded += last.Sub(t)
			res.Yields++
		}
	}
	for !run.Done() {
		if err := run.Epoch(context.Background(), onProgress); err != nil {
			return nil, err
		}
		// Let the test's polling in between epochs (not timed).
		time.Sleep(time.Millisecond)
		last = time.Now()
	}
	res.Seconds = run.Trainer.Elapsed().Seconds()
	res.YieldSeconds = yielded.Seconds()
	res.TestAccuracy = float64(run.Report.Test.Accuracy)
	return res, nil
}
