//go:build js && wasm

package main

import (
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// pageBench is the page's benchmark, bench=1 in the URL (page.Bench): it
// starts on the Train button, or at once with autostart=1, and Stop ends
// it after the step in progress.
type pageBench struct {
	page.Bench
	running bool
}

// benchMode readies the benchmark of the URL: bad settings end in the
// error state with the one-line notice; else the engine starts on
// backend (hello) and, once it is ready, the Train button runs the suite,
// or autostart runs it at once.
func (a *app) benchMode(q config.Query, backend experiment.BackendKind, hello *protocol.Hello, autostart bool) {
	suite, err := page.ParseBench(q)
	if err != nil {
		a.showError("The benchmark's settings: " + err.Error())
		a.writeBench(page.BenchResult{Error: err.Error()})
		setState("error")
		body().SetAttribute("data-ready", "1")
		return
	}
	a.bench = &pageBench{Bench: page.Bench{Suite: suite, Backend: backend}}
	a.onReady = func() {
		a.bench.Name = ui.Attr("#backend", "data-backend")
		a.trainBtn.SetTextContent("Run the benchmark")
		a.setProgressText(a.bench.ReadyText())
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
	if a.bench.running {
		return
	}
	a.bench.running = true
	cmd, text := a.bench.Start()
	a.hideError()
	a.setTraining()
	a.setProgressText(text)
	a.engine.send(cmd, nil)
}

// onBench shows an event of the engine's benchmark (EvBench, EvBenchDone).
func (a *app) onBench(ev protocol.Event) {
	if a.bench == nil || !a.bench.running {
		return
	}
	v, ok := a.bench.Apply(ev)
	if !ok {
		return
	}
	if v.Result == nil {
		a.setProgress(v.Progress)
		a.setProgressText(v.Text)
		return
	}
	a.bench.running = false
	a.writeBench(*v.Result)
	a.setIdle(false)
	if v.Notice != "" {
		a.showError(v.Notice)
	} else {
		a.setProgressText(v.Text)
	}
	setState(v.State)
}

// writeBench shows res: its table in the summary and the whole of it in
// #report.
func (a *app) writeBench(res page.BenchResult) {
	v := a.view
	removeChildren(v.summary)
	if res.Table != "" {
		v.summary.AppendChild(el("pre", "", res.Table))
	}
	v.rep.SetTextContent(res.JSON())
	show(v.results, true)
}
