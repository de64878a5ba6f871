package goldenpage

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/train"
)

// ToyResult is the result of the toy mode.
type ToyResult struct {
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

// Toy is the toy mode (toy=1): it times the toy DNLL run on the CPU
// backend in a bare loop, for the benchmark of browsertest/bench_test.go,
// with the parameters
//
//	epochs, train    the run's size (default experiment.DefaultSynth)
//	report=N         steps between progress reports (0: the trainer's default)
//	yield=MS         hand the thread back to the browser (sleep 1 ms) when
//	                 MS milliseconds have passed since the last time, from
//	                 the progress callback, as the trainer page does
//
// and a sleep of 1 ms (not timed) between epochs for the test's polling.
func Toy(param func(name, def string) string) (*ToyResult, error) {
	c := experiment.DefaultSynth()
	res := &ToyResult{}
	for _, p := range []struct {
		name string
		v    *int
		def  int
	}{{"epochs", &c.Epochs, c.Epochs}, {"train", &c.Train, c.Train}, {"report", &res.ReportEvery, 0}, {"yield", &res.YieldMS, 0}} {
		v, err := strconv.Atoi(param(p.name, strconv.Itoa(p.def)))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s must be a non-negative integer", p.name)
		}
		*p.v = v
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
		time.Sleep(time.Millisecond)
		last = time.Now()
	}
	res.Seconds = run.Trainer.Elapsed().Seconds()
	res.YieldSeconds = yielded.Seconds()
	res.TestAccuracy = float64(run.Report.Test.Accuracy)
	return res, nil
}
