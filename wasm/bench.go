//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
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
// training, the engine times the GPU table of "deeplda bench -suite"
// (experiment.RunSuite, CmdBench) on the backend the page chose
// (backend=webgpu to insist on the GPU), in its Worker like a session;
// the page shows the table in Markdown and writes {"results": [...],
// "table": "..."} into #report. sizes=, batches= and steps= (default 2)
// change the suite as the command's flags do, within the settings' bounds
// and the page's memory. It starts on the Train button, or at once with
// autostart=1, and Stop ends it after the step in progress.
type pageBench struct {
	suite   experiment.SuiteConfig
	backend experiment.BackendKind
	name    string // the engine's backend's
	running bool
	results []experiment.BenchResult
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

// benchMode readies the benchmark of the URL: bad settings end in the
// error state with the one-line notice; else the engine starts on
// backend (hello) and, once it is ready, the Train button runs the suite,
// or autostart runs it at once.
func (a *app) benchMode(q config.Query, backend experiment.BackendKind, hello *protocol.Hello, autostart bool) {
	suite, err := parseBench(q)
	if err != nil {
		a.showError("The benchmark's settings: " + err.Error())
		a.writeBench(benchResult{Results: []experiment.BenchResult{}, Error: err.Error()})
		setState("error")
		body().SetAttribute("data-ready", "1")
		return
	}
	a.bench = &pageBench{suite: suite, backend: backend}
	a.onReady = func() {
		a.trainBtn.SetTextContent("Run the benchmark")
		a.setProgressText(fmt.Sprintf("The GPU table on %s: %d benchmarks, ready to run.", a.bench.name, len(suite.Configs())))
		show(a.progressBox, true)
		if autostart {
			a.runBench()
		}
	}
	a.engine = startEngine(a)
	a.engine.send(protocol.Command{Kind: protocol.CmdHello, Hello: hello}, nil)
}

// runBench has the engine time the suite, unless it is running.
func (a *app) runBench() {
	b := a.bench
	if b.running {
		return
	}
	b.running, b.results = true, nil
	a.hideError()
	a.setTraining()
	a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: 0 of %d benchmarks…", b.name, len(b.suite.Configs())))
	a.engine.send(protocol.Command{Kind: protocol.CmdBench, Bench: &protocol.Bench{Suite: b.suite, Backend: b.backend}}, nil)
}

// onBench shows an event of the engine's benchmark (EvBench, EvBenchDone).
func (a *app) onBench(ev protocol.Event) {
	b := a.bench
	if b == nil || !b.running {
		return
	}
	st := ev.Bench
	if ev.Kind == protocol.EvBench {
		if st != nil && st.Result != nil {
			b.results = append(b.results, *st.Result)
			a.setProgress(float64(st.Done) / float64(max(st.Total, 1)))
			a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: %d of %d benchmarks…", b.name, st.Done, st.Total))
		}
		return
	}
	b.running = false
	res := benchResult{Results: b.results, Error: ev.Error}
	if res.Results == nil {
		res.Results = []experiment.BenchResult{}
	}
	if st != nil {
		res.Table, res.Stopped = st.Table, st.Stopped
	}
	a.writeBench(res)
	a.setIdle(false)
	switch {
	case res.Error != "":
		a.showError("The benchmark failed: " + res.Error)
		setState("error")
	case res.Stopped:
		a.setProgressText(fmt.Sprintf("Stopped after %d of %d benchmarks; the table of those:", st.Done, st.Total))
		setState("idle")
	default:
		a.setProgressText("The GPU table, in Markdown for BENCHMARKS.md:")
		setState("done")
	}
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
