package page

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/engine/enginetest"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// TestParseBench: the defaults but for two steps, the URL's lists, and
// settings beyond the page's bounds and memory refused as the page says.
func TestParseBench(t *testing.T) {
	c, err := ParseBench(config.Query{})
	if d := experiment.DefaultSuite(); err != nil || c.Steps != 2 || len(c.Sizes) != len(d.Sizes) || c.Batches[1] != 256 {
		t.Errorf("no settings: %+v, %v", c, err)
	}
	c, err = ParseBench(config.Query{"sizes": {"64,128"}, "batches": {"8"}, "steps": {"5"}})
	if err != nil || len(c.Sizes) != 2 || c.Sizes[1] != 128 || c.Batches[0] != 8 || c.Steps != 5 {
		t.Errorf("sizes=64,128&batches=8&steps=5: %+v, %v", c, err)
	}
	for q, want := range map[string]string{
		"steps=2000000000": "steps must be at most 10000 in the browser, got 2000000000",
		"sizes=100000":     "size must be at most 32768, got 100000",
		"sizes=20000":      "size 20000 needs about 4.5 GiB for three float32 matrices, more than the 3.0 GiB of the page's WebAssembly memory",
		"batches=x":        `batches must list positive whole numbers, got "x"`,
	} {
		k, v, _ := strings.Cut(q, "=")
		if _, err := ParseBench(config.Query{k: {v}}); err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", q, err, want)
		}
	}
}

// benchRun has the native engine time b's suite, as the page's Worker
// does, stopping it after the first benchmark when stop is set, and
// returns the views of its events.
func benchRun(t *testing.T, b *Bench, stop bool) []BenchView {
	t.Helper()
	h := enginetest.New("")
	e := engine.New(h)
	e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: b.Backend}}, nil)
	h.Wait(t, 0, protocol.EvReady)
	cmd, text := b.Start()
	if cmd.Kind != protocol.CmdBench || cmd.Bench.Backend != b.Backend || cmd.Bench.Suite.Steps != b.Suite.Steps || text != "Timing the GPU table on cpu: 0 of 3 benchmarks…" {
		t.Fatalf("Start: %+v, %q", cmd, text)
	}
	from := h.Len()
	e.Handle(cmd, nil)
	if stop {
		h.Wait(t, from, protocol.EvBench)
		e.Handle(protocol.Command{Kind: protocol.CmdStop}, nil)
	}
	evs, _ := h.Wait(t, from, protocol.EvBenchDone)
	var vs []BenchView
	for _, ev := range append(evs, protocol.Event{Kind: protocol.EvBench}) {
		if v, ok := b.Apply(ev); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// TestBenchStream replays the engine's events of a small suite on the CPU:
// a progress line a benchmark, then the table and every result; stopped,
// the results so far in the idle state; failed, the notice and the error
// state.
func TestBenchStream(t *testing.T) {
	suite, err := ParseBench(config.Query{"sizes": {"32"}, "batches": {"1"}, "steps": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	b := &Bench{Suite: suite, Backend: experiment.BackendCPU, Name: "cpu"}
	if s := b.ReadyText(); s != "The GPU table on cpu: 3 benchmarks, ready to run." {
		t.Errorf("ready: %q", s)
	}
	vs := benchRun(t, b, false)
	if len(vs) != 4 || vs[1].Progress != 2.0/3 || vs[1].Text != "Timing the GPU table on cpu: 2 of 3 benchmarks…" || vs[1].Result != nil {
		t.Fatalf("views %+v", vs)
	}
	end := vs[3]
	if r := end.Result; r == nil || len(r.Results) != 3 || r.Results[2].Model != "mlp" || !strings.Contains(r.Table, "| matmul 32 |") || r.Stopped || r.Error != "" ||
		end.State != "done" || end.Text != "The GPU table, in Markdown for BENCHMARKS.md:" || end.Notice != "" {
		t.Fatalf("end %+v", end)
	}
	var back BenchResult
	if err := json.Unmarshal([]byte(end.Result.JSON()), &back); err != nil || back.Table != end.Result.Table || len(back.Results) != 3 {
		t.Errorf("#report: %v\n%s", err, end.Result.JSON())
	}

	b.Suite.Steps = 10000
	vs = benchRun(t, b, true)
	end = vs[len(vs)-1]
	if r := end.Result; r == nil || !r.Stopped || len(r.Results) != len(vs)-1 || len(r.Results) == 0 || len(r.Results) >= 3 || end.State != "idle" ||
		!strings.HasPrefix(end.Text, "Stopped after ") || !strings.HasSuffix(end.Text, " of 3 benchmarks; the table of those:") {
		t.Fatalf("stopped: %+v", end)
	}

	b.Start()
	v, ok := b.Apply(protocol.Event{Kind: protocol.EvBenchDone, Error: "the device was lost"})
	if !ok || v.State != "error" || v.Notice != "The benchmark failed: the device was lost" || v.Text != "" || len(v.Result.Results) != 0 {
		t.Fatalf("failed: %+v", v)
	}
	if s := v.Result.JSON(); !strings.Contains(s, `"results": []`) || !strings.Contains(s, `"table": ""`) || !strings.Contains(s, `"error": "the device was lost"`) || strings.Contains(s, "stopped") {
		t.Errorf("#report of a failure:\n%s", s)
	}
}
