//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

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
}

// bench is the page's benchmark, bench=1 in the URL: instead of training,
// it times the GPU table of "deeplda bench -suite" (experiment.RunSuite)
// on the backend the page chose (backend=webgpu to insist on the GPU),
// shows the table in Markdown and writes {"results": [...], "table": "..."}
// into #report; sizes=, batches= and steps= (default 2) change the suite
// as the command's flags do.
func (a *app) bench(q config.Query, be kernels.Backend) {
	setState("training")
	doc.(dom.HTMLDocument).Body().SetAttribute("data-ready", "1")
	res := benchResult{Results: []experiment.BenchResult{}}
	err := func() error {
		steps := 2
		if v := q.Get("steps"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("steps must be a whole number, got %q", v)
			}
			steps = n
		}
		c, err := experiment.ParseSuite(q.Get("sizes"), q.Get("batches"), steps)
		if err != nil {
			return err
		}
		n := len(c.Configs())
		a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: 0 of %d benchmarks…", be.Info().Name, n))
		rs, err := experiment.RunSuite(context.Background(), be, c, func(r experiment.BenchResult) {
			res.Results = append(res.Results, r)
			a.setProgressText(fmt.Sprintf("Timing the GPU table on %s: %d of %d benchmarks…", be.Info().Name, len(res.Results), n))
		})
		if err != nil {
			return err
		}
		res.Table = experiment.SuiteTable(rs)
		return nil
	}()
	v := a.view
	removeChildren(v.summary)
	if err != nil {
		res.Error = err.Error()
		a.showError("The benchmark failed: " + res.Error)
	} else {
		v.summary.AppendChild(el("pre", "", res.Table))
		a.setProgressText("The GPU table, in Markdown for BENCHMARKS.md:")
	}
	raw, _ := json.MarshalIndent(res, "", "  ")
	v.rep.SetTextContent(string(raw))
	show(v.results, true)
	if err != nil {
		setState("error")
	} else {
		setState("done")
	}
}
