package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/engine/enginetest"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/protocol"
)

// toyJob is a small toy run.
func toyJob() protocol.Job {
	c := experiment.DefaultSynth()
	c.Train, c.Test, c.Epochs, c.Batch = 512, 256, 3, 64
	return protocol.Job{Label: "DNLL", Synth: &c}
}

// started returns an engine past hello.
func started(t *testing.T, h *enginetest.Recorder) *Engine {
	t.Helper()
	e := New(h)
	e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: experiment.BackendCPU}}, nil)
	_, ev := h.Wait(t, 0, protocol.EvReady)
	if ev.Backend == nil || ev.Backend.Kind != experiment.BackendCPU {
		t.Fatalf("ready: backend %+v, want the CPU", ev.Backend)
	}
	return e
}

// lastReport returns the report of the last run event of run i in evs.
func lastReport(t *testing.T, evs []protocol.Event, i int) []byte {
	t.Helper()
	var rep []byte
	for _, ev := range evs {
		if ev.Kind == protocol.EvRun && ev.Run == i && ev.RunState.Report != nil {
			rep = ev.RunState.Report
		}
	}
	if rep == nil {
		t.Fatalf("no report of run %d", i)
	}
	return rep
}

// numbers returns a report without its timings.
func numbers(t *testing.T, rep []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rep, &m); err != nil {
		t.Fatalf("report: %v", err)
	}
	delete(m, "seconds")
	delete(m, "backend")
	delete(m, "steps_per_second")
	if h, ok := m["history"].([]any); ok {
		for _, row := range h {
			delete(row.(map[string]any), "seconds")
		}
	}
	return m
}

// TestSessionMatchesDriver trains a toy session through the engine and
// checks the events' order and that its report has the numbers of the
// same run driven directly.
func TestSessionMatchesDriver(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	from := h.Len()
	job := toyJob()
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 7, Start: &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendCPU}}, nil)
	evs, done := h.Wait(t, from, protocol.EvDone, protocol.EvFailed)
	if done.Kind != protocol.EvDone {
		t.Fatalf("session failed: %s", done.Error)
	}
	if evs[0].Kind != protocol.EvSession || evs[0].Session != 7 || len(evs[0].Runs) != 1 {
		t.Fatalf("first event %+v, want the session", evs[0])
	}
	seq, progress := evs[0].Seq, 0
	for _, ev := range evs[1:] {
		if ev.Seq != seq+1 || ev.Session != 7 {
			t.Fatalf("event %s: seq %d after %d, session %d", ev.Kind, ev.Seq, seq, ev.Session)
		}
		seq = ev.Seq
		if ev.Kind == protocol.EvProgress {
			progress++
		}
	}
	if progress == 0 {
		t.Error("no progress events")
	}
	run, err := experiment.NewSynth(cpu.New(), *job.Synth)
	if err != nil {
		t.Fatal(err)
	}
	if err := (experiment.Driver{}).Drive(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(numbers(t, reportJSON(run)))
	got, _ := json.Marshal(numbers(t, lastReport(t, evs, 0)))
	if !bytes.Equal(got, want) {
		t.Errorf("the engine's report differs from the driver's:\n got %.400s\nwant %.400s", got, want)
	}
}

// TestStopResume stops a session in its first epoch and resumes it: the
// result is the uninterrupted run's.
func TestStopResume(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	job := toyJob()
	job.Synth.Epochs = 20
	from := h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendCPU}}, nil)
	h.Wait(t, from, protocol.EvProgress)
	e.Handle(protocol.Command{Kind: protocol.CmdStop, Session: 1}, nil)
	_, ev := h.Wait(t, from, protocol.EvStopped, protocol.EvDone)
	if ev.Kind != protocol.EvStopped {
		t.Fatalf("got %s, want stopped", ev.Kind)
	}
	from = h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdResume, Session: 1}, nil)
	evs, ev := h.Wait(t, from, protocol.EvDone, protocol.EvFailed, protocol.EvRefused)
	if ev.Kind != protocol.EvDone {
		t.Fatalf("after resume: %s %s", ev.Kind, ev.Error)
	}
	got, _ := json.Marshal(numbers(t, lastReport(t, evs, 0)))

	h2 := enginetest.New("")
	e2 := started(t, h2)
	from = h2.Len()
	e2.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendCPU}}, nil)
	evs, _ = h2.Wait(t, from, protocol.EvDone)
	want, _ := json.Marshal(numbers(t, lastReport(t, evs, 0)))
	if !bytes.Equal(got, want) {
		t.Errorf("stopped and resumed differs from uninterrupted:\n got %.400s\nwant %.400s", got, want)
	}
}

// TestRefusals checks the commands the engine cannot take.
func TestRefusals(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	for _, c := range []protocol.Command{
		{Kind: "train-faster"},
		{Kind: protocol.CmdResume, Session: 3},
		{Kind: protocol.CmdStart, Session: 4, Start: &protocol.Start{}},
		{Kind: protocol.CmdContinue, Session: 5, Start: &protocol.Start{Jobs: []protocol.Job{toyJob()}}},
	} {
		from := h.Len()
		e.Handle(c, nil)
		_, ev := h.Wait(t, from, protocol.EvRefused)
		if ev.Error == "" {
			t.Errorf("%s: refused without a reason", c.Kind)
		}
	}
}

// TestSideBySideOverview trains two toy runs side by side and checks that
// the overview figures come with the run events, accuracy in percent.
func TestSideBySideOverview(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	a, b := toyJob(), toyJob()
	b.Synth.Loss, b.Label = "nll", "NLL"
	from := h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{a, b}, Backend: experiment.BackendCPU, Overview: protocol.OverviewRuns}}, nil)
	evs, _ := h.Wait(t, from, protocol.EvDone)
	seen := map[string]string{}
	for _, ev := range evs {
		for name, svg := range ev.Overview {
			if !strings.HasPrefix(svg, "<svg") {
				t.Errorf("%s is not SVG", name)
			}
			seen[name] = svg
		}
	}
	for _, name := range []string{"run1-embedding.svg", "run2-embedding.svg", "compare-logdet.svg", "compare-accuracy.svg"} {
		if seen[name] == "" {
			t.Errorf("no overview figure %s", name)
		}
	}
	if !strings.Contains(seen["compare-accuracy.svg"], ">test accuracy (%)<") {
		t.Errorf("compare-accuracy.svg does not give accuracy in percent:\n%.600s", seen["compare-accuracy.svg"])
	}
}

// TestSweepOverview trains a small lambda sweep and checks its figures.
func TestSweepOverview(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	var jobs []protocol.Job
	for _, l := range []float64{0.01, 1} {
		j := toyJob()
		j.Synth.Cov, j.Synth.Lambda = "spherical", l
		jobs = append(jobs, j)
	}
	from := h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: jobs, Backend: experiment.BackendCPU, Overview: protocol.OverviewSweep}}, nil)
	evs, _ := h.Wait(t, from, protocol.EvDone)
	last := map[string]string{}
	for _, ev := range evs {
		for name, svg := range ev.Overview {
			last[name] = svg
		}
	}
	for _, name := range []string{"sweep_accuracy.svg", "sweep_ece.svg", "sweep_sigma.svg"} {
		if !strings.Contains(last[name], "toy data") {
			t.Errorf("%s: missing or untitled", name)
		}
	}
}

// TestStopWhileQueued stops a start that waits behind another command: it
// starts stopped, so that nothing trains once the stop has been handled.
func TestStopWhileQueued(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	from := h.Len()
	job := toyJob()
	job.Synth.Epochs = 100000
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendCPU}}, nil)
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 2, Start: &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendCPU}}, nil)
	e.Handle(protocol.Command{Kind: protocol.CmdStop}, nil)
	for _, want := range []int{1, 2} {
		evs, ended := h.Wait(t, from, protocol.EvStopped, protocol.EvDone, protocol.EvFailed)
		if ended.Kind != protocol.EvStopped || ended.Session != want {
			t.Fatalf("session %d ended as %+v", want, ended)
		}
		from += len(evs)
	}
	for e.Training() {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBench times a small suite through the engine (the page's bench=1):
// an event per benchmark, then the table; and stop ends a long suite
// after the step in progress, with the table of what finished.
func TestBench(t *testing.T) {
	h := enginetest.New("")
	e := started(t, h)
	suite, err := experiment.ParseSuite("32", "1", 1)
	if err != nil {
		t.Fatal(err)
	}
	total := len(suite.Configs())
	from := h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdBench, Bench: &protocol.Bench{Suite: suite, Backend: experiment.BackendCPU}}, nil)
	evs, done := h.Wait(t, from, protocol.EvBenchDone)
	if done.Error != "" || done.Bench == nil || done.Bench.Stopped || done.Bench.Done != total || done.Bench.Total != total {
		t.Fatalf("bench-done: error %q, state %+v; want %d of %d benchmarks", done.Error, done.Bench, total, total)
	}
	var n int
	for _, ev := range evs {
		if ev.Kind == protocol.EvBench {
			n++
			if ev.Bench == nil || ev.Bench.Result == nil || ev.Bench.Done != n || ev.Bench.Result.Backend.Name != "cpu" {
				t.Fatalf("bench event %d: %+v", n, ev.Bench)
			}
		}
	}
	if n != total || !strings.Contains(done.Bench.Table, "| matmul 32 |") {
		t.Fatalf("%d bench events, table %q; want %d and the matmul's row", n, done.Bench.Table, total)
	}

	long, err := experiment.ParseSuite("32", "1", 10000)
	if err != nil {
		t.Fatal(err)
	}
	from = h.Len()
	e.Handle(protocol.Command{Kind: protocol.CmdBench, Bench: &protocol.Bench{Suite: long, Backend: experiment.BackendCPU}}, nil)
	h.Wait(t, from, protocol.EvBench)
	e.Handle(protocol.Command{Kind: protocol.CmdStop}, nil)
	_, done = h.Wait(t, from, protocol.EvBenchDone)
	if done.Error != "" || done.Bench == nil || !done.Bench.Stopped || done.Bench.Done < 1 || done.Bench.Done >= total || !strings.Contains(done.Bench.Table, "| matmul 32 |") {
		t.Fatalf("after stop: error %q, state %+v; want stopped with the matmul's row", done.Error, done.Bench)
	}
}
