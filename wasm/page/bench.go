package page

import (
	"encoding/json"
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// BenchResult is what the page's benchmark writes into #report.
type BenchResult struct {
	Results []experiment.BenchResult `json:"results"`
	Table   string                   `json:"table"`
	Error   string                   `json:"error,omitempty"`
	Stopped bool                     `json:"stopped,omitempty"` // Stop ended it; Results hold what finished
}

// JSON returns r as #report shows it: indented JSON.
func (r BenchResult) JSON() string {
	if r.Results == nil {
		r.Results = []experiment.BenchResult{}
	}
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		raw, _ = json.Marshal(BenchResult{Results: []experiment.BenchResult{}, Error: "encoding the results: " + err.Error()})
	}
	return string(raw)
}

// ParseBench reads the benchmark's settings from the URL and checks them:
// sizes=, batches= and steps= (default 2) change the suite as "deeplda
// bench -suite"'s flags do, within the settings' bounds and the page's
// memory.
func ParseBench(q config.Query) (experiment.SuiteConfig, error) {
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

// Bench is the page's benchmark, bench=1 in the URL: instead of training,
// the engine times the GPU table of "deeplda bench -suite"
// (experiment.RunSuite, CmdBench) on the backend the page chose
// (backend=webgpu to insist on the GPU), in its Worker like a session;
// the page shows the table in Markdown and writes BenchResult into
// #report.
type Bench struct {
	Suite   experiment.SuiteConfig
	Backend experiment.BackendKind
	Name    string // the engine's backend's
	results []experiment.BenchResult
}

// ReadyText is the progress line once the engine is ready.
func (b *Bench) ReadyText() string {
	return fmt.Sprintf("The GPU table on %s: %d benchmarks, ready to run.", b.Name, len(b.Suite.Configs()))
}

// Start begins a run of the suite: it returns the command that has the
// engine time it and the progress line.
func (b *Bench) Start() (protocol.Command, string) {
	b.results = nil
	return protocol.Command{Kind: protocol.CmdBench, Bench: &protocol.Bench{Suite: b.Suite, Backend: b.Backend}},
		fmt.Sprintf("Timing the GPU table on %s: 0 of %d benchmarks…", b.Name, len(b.Suite.Configs()))
}

// BenchView is what the page shows of an event of the benchmark.
type BenchView struct {
	Progress float64      // the fraction of the benchmarks done
	Text     string       // the progress line, "" with Notice
	Result   *BenchResult // at the end (EvBenchDone): for the summary and #report
	Notice   string       // at the end, when the suite failed: the error notice
	State    string       // at the end: the page's state (done, idle when stopped, error)
}

// Apply takes an event of the running benchmark (EvBench, EvBenchDone)
// and returns what the page shows; show is false for an EvBench without a
// result.
func (b *Bench) Apply(ev protocol.Event) (v BenchView, show bool) {
	st := ev.Bench
	if ev.Kind == protocol.EvBench {
		if st == nil || st.Result == nil {
			return v, false
		}
		b.results = append(b.results, *st.Result)
		v.Progress = float64(st.Done) / float64(max(st.Total, 1))
		v.Text = fmt.Sprintf("Timing the GPU table on %s: %d of %d benchmarks…", b.Name, st.Done, st.Total)
		return v, true
	}
	res := &BenchResult{Results: b.results, Error: ev.Error}
	if res.Results == nil {
		res.Results = []experiment.BenchResult{}
	}
	if st != nil {
		res.Table, res.Stopped = st.Table, st.Stopped
	}
	v.Result = res
	switch {
	case res.Error != "":
		v.Notice, v.State = "The benchmark failed: "+res.Error, "error"
	case res.Stopped:
		v.Text, v.State = fmt.Sprintf("Stopped after %d of %d benchmarks; the table of those:", st.Done, st.Total), "idle"
	default:
		v.Text, v.State = "The GPU table, in Markdown for BENCHMARKS.md:", "done"
	}
	return v, true
}
