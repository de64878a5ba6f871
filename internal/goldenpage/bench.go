package goldenpage

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// BenchResult is the result of the bench mode.
type BenchResult struct {
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table,omitempty"` // bench=1: the Markdown table
	Error   string                   `json:"error,omitempty"`
}

// Bench is the bench mode (bench=matmul,convnet): it opens the WebGPU
// backend once and times each listed model in turn as "deeplda bench"
// does (experiment.RunBenches; a model may repeat, and model:N times N
// steps of it), with the parameters
//
//	size=S    the matmul's size (default 1024)
//	batch=N   the ConvNet's (or MLP's) batch (default 64)
//	steps=N   timed steps of each, after one untimed warm-up (default 2)
//
// bench=1 times the GPU table instead, as "deeplda bench -suite" does, and
// adds it in Markdown to the result (experiment.SuiteTable), with
//
//	sizes=S,S   the matmuls' sizes (default 1024,2048,4096)
//	batches=N,N the ConvNet's batches (default 64,256)
//
// It returns the page's result and state; the results of the benchmarks
// that ran before one failed stay in it.
func Bench(p Page, models string) (*BenchResult, string) {
	res := &BenchResult{Results: []experiment.BenchResult{}}
	fail := func(msg string) (*BenchResult, string) {
		res.Error = msg
		return res, "error"
	}
	suite := models == "1"
	var cfgs []experiment.BenchConfig
	if suite {
		steps, err := strconv.Atoi(p.Param("steps", "2"))
		if err != nil {
			return fail("steps must be an integer")
		}
		c, err := experiment.ParseSuite(p.Param("sizes", ""), p.Param("batches", ""), steps)
		if err != nil {
			return fail(err.Error())
		}
		cfgs = c.Configs()
	} else {
		var err error
		if cfgs, err = ParseBenches(models, p.Param); err != nil {
			return fail(err.Error())
		}
	}
	be, err := p.WebGPU()
	if err != nil {
		return fail("opening WebGPU: " + err.Error())
	}
	defer be.Close()
	rs, err := experiment.RunBenches(context.Background(), be, cfgs, experiment.SuiteHooks{})
	res.Results = append(res.Results, rs...)
	if err != nil {
		return fail(err.Error())
	}
	if suite {
		res.Table = experiment.SuiteTable(rs)
	}
	return res, "done"
}

// ParseBenches returns the benchmarks of the list models
// ("matmul:5,convnet:2") with the size, batch and steps of the query (see
// Bench).
func ParseBenches(models string, param func(name, def string) string) ([]experiment.BenchConfig, error) {
	cfg := experiment.BenchConfig{}
	for _, p := range []struct {
		name, def string
		v         *int
	}{{"size", "1024", &cfg.Size}, {"batch", "64", &cfg.Batch}, {"steps", "2", &cfg.Steps}} {
		n, err := strconv.Atoi(param(p.name, p.def))
		if err != nil {
			return nil, errors.New(p.name + " must be an integer")
		}
		*p.v = n
	}
	var cfgs []experiment.BenchConfig
	for _, m := range strings.Split(models, ",") {
		c := cfg
		c.Model = m
		if name, n, ok := strings.Cut(m, ":"); ok {
			steps, err := strconv.Atoi(n)
			if err != nil {
				return nil, errors.New("the steps of " + name + " must be an integer")
			}
			c.Model, c.Steps = name, steps
		}
		cfgs = append(cfgs, c)
	}
	return cfgs, nil
}
