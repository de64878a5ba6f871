//go:build js && wasm

package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

// benchPage is the result of the bench mode.
type benchPage struct {
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table,omitempty"` // bench=1: the Markdown table
	Error   string                   `json:"error,omitempty"`
}

// bench is the bench mode (bench=matmul,convnet): it opens the WebGPU
// backend once and runs experiment.Bench, as "deeplda bench" does, for each
// listed model in turn (a model may repeat; model:N times N steps of it),
// with the parameters
//
//	size=S    the matmul's size (default 1024)
//	batch=N   the ConvNet's (or MLP's) batch (default 64)
//	steps=N   timed steps of each, after one untimed warm-up (default 2)
//
// bench=1 runs the GPU table instead, as "deeplda bench -suite" does
// (experiment.RunSuite), and adds it in Markdown to the result, with
//
//	sizes=S,S   the matmuls' sizes (default 1024,2048,4096)
//	batches=N,N the ConvNet's batches (default 64,256)
//
// It returns the page's result and state.
func bench(models string, param func(name, def string) string) (*benchPage, string) {
	res := &benchPage{Results: []experiment.BenchResult{}}
	fail := func(msg string) (*benchPage, string) {
		res.Error = msg
		return res, "error"
	}
	if models == "1" {
		return benchSuite(res, param, fail)
	}
	cfg := experiment.BenchConfig{}
	for _, p := range []struct {
		name, def string
		v         *int
	}{{"size", "1024", &cfg.Size}, {"batch", "64", &cfg.Batch}, {"steps", "2", &cfg.Steps}} {
		n, err := strconv.Atoi(param(p.name, p.def))
		if err != nil {
			return fail(p.name + " must be an integer")
		}
		*p.v = n
	}
	be, err := webgpu.New()
	if err != nil {
		return fail("opening WebGPU: " + err.Error())
	}
	defer be.Close()
	steps := cfg.Steps
	for _, m := range strings.Split(models, ",") {
		cfg.Model, cfg.Steps = m, steps
		if name, n, ok := strings.Cut(m, ":"); ok {
			if cfg.Steps, err = strconv.Atoi(n); err != nil {
				return fail("the steps of " + name + " must be an integer")
			}
			cfg.Model, m = name, name
		}
		b, err := experiment.NewBench(be, cfg)
		if err != nil {
			return fail(err.Error())
		}
		if err := b.WarmUp(); err != nil {
			return fail(m + " warm-up: " + err.Error())
		}
		r, err := b.Time(context.Background())
		if err != nil {
			return fail(m + ": " + err.Error())
		}
		res.Results = append(res.Results, r)
	}
	return res, "done"
}

// benchSuite is bench=1: the GPU table on WebGPU.
func benchSuite(res *benchPage, param func(name, def string) string, fail func(string) (*benchPage, string)) (*benchPage, string) {
	steps, err := strconv.Atoi(param("steps", "2"))
	if err != nil {
		return fail("steps must be an integer")
	}
	c, err := experiment.ParseSuite(param("sizes", ""), param("batches", ""), steps)
	if err != nil {
		return fail(err.Error())
	}
	be, err := webgpu.New()
	if err != nil {
		return fail("opening WebGPU: " + err.Error())
	}
	defer be.Close()
	rs, err := experiment.RunSuite(context.Background(), be, c, experiment.SuiteHooks{})
	res.Results = append(res.Results, rs...)
	if err != nil {
		return fail(err.Error())
	}
	res.Table = experiment.SuiteTable(rs)
	return res, "done"
}
