//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/wasm/config"
)

// benchResult is what the page's benchmark writes into #report.
type benchResult struct {
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table"`
	Error   string                   `json:"error,omitempty"`
	Stopped bool                     `json:"stopped,omitempty"` // Stop ended it; Results hold what finished
}

// pageBench is the page's benchmark, bench=1 in the URL: instead of
// training, it times the GPU table of "deeplda bench -suite"
// (experiment.RunSuite) on the backend the page chose (backend=webgpu to
// insist on the GPU), shows the table in Markdown and writes {"results":
// [...], "table": "..."} into #report; sizes=, batches= and steps=
// (default 2) change the suite as the command's flags do, within the
// settings' bounds and the page's memory. It starts on the Train button,
// or at once with autostart=1, and Stop ends it after the step in
// progress.
type pageBench struct {
	suite  experiment.SuiteConfig
	be     kernels.Backend
	cancel context.CancelFunc // of the benchmark running, or nil
}

// parseBench reads the benchmark's settings from the URL and checks them.
func parseBench(q config.Query) (experiment.SuiteConfig, error) {
	steps := 2
	if v := q.Get("steps"); v != "" {
		if err := config.ParseValue("steps", v, &steps); err != nil {
			return experiment.SuiteConfig{}, err
		}
	}
	c, err := experiment.ParseSuite(q.Get("sizes"), q.Get("batches"), steps)
	if err == nil {
		err = c.CheckMemory(config.PageMemory)
	}
	return c, err
}

// prepareBench readies the benchmark of the URL on be: the Train button
// runs it, autostart runs it now. Bad settings end in the error state with
// the one-line notice.
func (a *app) prepareBench(q config.Query, be kernels.Backend, autostart bool) {
	body := doc.(dom.HTMLDocument).Body()
	suite, err := parseBench(q)
	if err != nil {
		a.showError("The benchmark's settings: " + err.Error())
		a.writeBench(benchResult{Results: []experiment.BenchResult{}, Error: err.Error()})
		setState("error")
		body.SetAttribute("data-ready", "1")
		return
	}
	a.bench = &pageBench{suite: suite, be: be}
	a.trainBtn.SetTextContent("Run the benchmark")
	a.ready = true
	a.setIdle(false)
	a.setProgressText(fmt.Sprintf("The GPU table on %s: %d benchmarks, ready to run.", be.Info().Name, len(suite.Configs())))
	show(a.progressBox, true)
	setState("idle")
	body.SetAttribute("data-ready", "1")
	if autostart {
		a.runBench()
	}
}

// runBench times the suite, unless it is running.
func (a *app) runBench() {
	b := a.bench
	if b.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	a.hideError()
	a.setTraining()
	go func() {
		defer a.guard()
		defer func() { b.cancel = nil }()
		res := benchResult{Results: []experiment.BenchResult{}}
		n := len(b.suite.Configs())
		name := b.be.Info().Name
		a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: 0 of %d benchmarks…", name, n))
		rs, err := experiment.RunSuite(ctx, b.be, b.suite, experiment.SuiteHooks{
			Each: func(r experiment.BenchResult) {
				res.Results = append(res.Results, r)
				a.setProgress(float64(len(res.Results)) / float64(n))
				a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: %d of %d benchmarks…", name, len(res.Results), n))
			},
			Between: a.yield.maybe,
		})
		res.Stopped = errors.Is(err, context.Canceled)
		if err == nil || res.Stopped {
			res.Table = experiment.SuiteTable(rs)
		} else {
			res.Error = err.Error()
		}
		a.writeBench(res)
		switch {
		case res.Stopped:
			a.setProgressText(fmt.Sprintf("Stopped after %d of %d benchmarks; the table of those:", len(rs), n))
			a.setIdle(false)
			setState("idle")
		case err != nil:
			a.showError("The benchmark failed: " + res.Error)
			a.setIdle(false)
			setState("error")
		default:
			a.setProgressText("The GPU table, in Markdown for BENCHMARKS.md:")
			a.setIdle(false)
			setState("done")
		}
	}()
}

// writeBench shows res: its table in the summary and the whole of it in
// #report.
func (a *app) writeBench(res benchResult) {
	v := a.view
	removeChildren(v.summary)
	if res.Table != "" {
		v.summary.AppendChild(el("pre", "", res.Table))
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		raw, _ = json.Marshal(benchResult{Results: []experiment.BenchResult{}, Error: "encoding the results: " + err.Error()})
	}
	v.rep.SetTextContent(string(raw))
	show(v.results, true)
}
