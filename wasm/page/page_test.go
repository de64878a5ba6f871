package page

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/engine/enginetest"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/train"
	"github.com/deeplda/deeplda/wasm/config"
)

// record trains the session the page plans for query (the URL's
// parameters) on the native engine and returns the session and the
// engine's events up to the session's end.
func record(t *testing.T, query string) (*Session, []protocol.Event) {
	t.Helper()
	q := config.Query{}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		q[k] = append(q[k], v)
	}
	s, _, errs := config.FromQuery(q)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", query, errs.Err())
	}
	sess, err := NewSession(1, s)
	if err != nil {
		t.Fatal(err)
	}
	r := enginetest.New("")
	e := engine.New(r)
	e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: s.Backend}}, nil)
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: sess.ID, Start: sess.Start()}, nil)
	evs, _ := r.Wait(t, 0, protocol.EvDone, protocol.EvFailed, protocol.EvStopped, protocol.EvRefused)
	return sess, evs
}

// replay applies the events of session s to it, as the page does, and
// returns the statuses.
func replay(s *Session, evs []protocol.Event) []Status {
	var out []Status
	for _, ev := range evs {
		if ev.Session != s.ID {
			continue
		}
		out = append(out, s.Apply(ev))
	}
	return out
}

// final returns the state, the bar's line and the notice the statuses
// leave.
func final(sts []Status) (state, text, notice string) {
	for _, st := range sts {
		if st.State != "" {
			state = st.State
		}
		if st.Text != nil {
			text = *st.Text
		}
		if st.Backend != nil {
			notice = st.Backend.Why
		}
	}
	return state, text, notice
}

// TestDemoSession replays a toy run of the deep demo: progress lines, the
// done state, every figure of its layout, and a summary without gaps.
func TestDemoSession(t *testing.T) {
	s, evs := record(t, "demo=deep&backend=cpu&epochs=3&train=600&test=300")
	sts := replay(s, evs)
	state, text, _ := final(sts)
	if state != "done" || !strings.HasPrefix(text, "Done: 1 run in ") || !strings.Contains(text, "on CPU · ") {
		t.Errorf("after the session: state %q, line %q", state, text)
	}
	progress := 0
	for _, st := range sts {
		if st.Text != nil && strings.HasPrefix(*st.Text, "epoch ") {
			progress++
		}
	}
	if progress == 0 {
		t.Error("no progress line")
	}
	overview, detail := Layout(s)
	if len(overview) != 0 {
		t.Errorf("one run shows an overview: %v", overview)
	}
	run := s.Runs[s.Shown()]
	for _, sl := range detail {
		if !strings.HasPrefix(run.Figs[sl.Name], "<svg") {
			t.Errorf("no figure %s", sl.Name)
		}
	}
	cells := SummaryCells(run)
	if cells[0] != "done" || strings.Contains(strings.Join(cells[1:5], ""), "–") {
		t.Errorf("summary cells %q", cells)
	}
	if x := Extras(run.Rep); x == nil || len(x.Rows) != 1 || x.Rows[0][0] != "Test set" {
		t.Errorf("extras %+v", x)
	}
	if !run.Checkpoint {
		t.Error("no checkpoint came with the run")
	}
	html := SummaryHTML(s)
	for _, want := range []string{`<tr class="shown"><td><button type="button" class="link" data-run="0"`, `id="extras"`, "<td>done</td>", "Test set"} {
		if !strings.Contains(html, want) {
			t.Errorf("the summary has no %q:\n%s", want, html)
		}
	}
	s.Runs[0].Label = `<b>&`
	if html := SummaryHTML(s); !strings.Contains(html, ">&lt;b&gt;&amp;</button>") {
		t.Errorf("the summary does not escape a run's label:\n%.300s", html)
	}
}

// TestSideBySideSession replays the classical demo's losses side by side:
// the overview shows every run's embedding and the comparison figures.
func TestSideBySideSession(t *testing.T) {
	s, evs := record(t, "demo=classical&backend=cpu&epochs=2&train=600&test=300&compare=1")
	state, _, _ := final(replay(s, evs))
	if state != "done" || len(s.Runs) < 2 {
		t.Fatalf("state %q, %d runs", state, len(s.Runs))
	}
	overview, detail := Layout(s)
	for _, sl := range overview {
		if !strings.HasPrefix(s.Overview[sl.Name], "<svg") {
			t.Errorf("overview: no figure %s", sl.Name)
		}
	}
	for _, sl := range detail {
		if sl.Name == "embedding.svg" {
			t.Error("side by side, the detail repeats the embedding")
		}
	}
	for i, r := range s.Runs {
		if r.Status != "done" || r.Rep == nil {
			t.Errorf("run %d: status %q", i, r.Status)
		}
		// The figures below say whose they are.
		s.Picked = i
		if title := FiguresTitle(s); !strings.HasPrefix(title, "Figures of "+r.Label+" (") {
			t.Errorf("run %d shown: the figures' heading %q", i, title)
		}
		for _, sl := range detailOf(s) {
			if !strings.HasPrefix(sl.Caption, r.Label+": ") {
				t.Errorf("run %d shown: caption %q", i, sl.Caption)
			}
		}
	}
	s.Runs = s.Runs[:1]
	if title := FiguresTitle(s); title != "" {
		t.Errorf("one run: the figures' heading %q, want none", title)
	}
}

// detailOf returns the figures of the run shown in session s (Layout).
func detailOf(s *Session) []Slot {
	_, detail := Layout(s)
	return detail
}

// TestSweepSession replays a small lambda sweep: its three figures.
func TestSweepSession(t *testing.T) {
	s, evs := record(t, "demo=sweep&backend=cpu&epochs=2&train=600&test=300&lambdas=0.01,1")
	replay(s, evs)
	overview, _ := Layout(s)
	if len(overview) != 3 {
		t.Fatalf("sweep overview %v", overview)
	}
	for _, sl := range overview {
		if !strings.HasPrefix(s.Overview[sl.Name], "<svg") {
			t.Errorf("no figure %s", sl.Name)
		}
	}
}

// readStream reads a recorded event stream (JSON lines).
func readStream(t *testing.T, path string) []protocol.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []protocol.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		ev, err := protocol.DecodeEvent(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestDeviceLostStream replays a WebGPU run whose device was lost with
// backend=webgpu: the notice, the body's marks and the stopped line say
// where the CPU takes over. The stream (testdata/device-lost.jsonl) is
// written by hand in the engine's format, as a native engine has no
// WebGPU device to lose; the browser tests lose a real one.
func TestDeviceLostStream(t *testing.T) {
	s, err := NewSession(3, config.Defaults(config.Deep))
	if err != nil {
		t.Fatal(err)
	}
	sts := replay(s, readStream(t, "testdata/device-lost.jsonl"))
	state, text, notice := final(sts)
	marks := map[string]string{}
	resumable := false
	for _, st := range sts {
		for k, v := range st.Marks {
			marks[k] = v
		}
		resumable = resumable || st.State == "idle" && st.Resumable
	}
	if state != "idle" || !resumable {
		t.Errorf("state %q, resumable %v; want idle with Resume", state, resumable)
	}
	if want := "Stopped: WebGPU failed. Resume continues on the CPU after step 12 of epoch 2 (the 1 epochs trained on WebGPU stay in the history)."; text != want {
		t.Errorf("line %q, want %q", text, want)
	}
	if !strings.HasPrefix(notice, "The WebGPU device was lost at step 15 of epoch 2 (") || !strings.Contains(notice, "Resume continues it on the CPU backend") {
		t.Errorf("notice %q", notice)
	}
	if marks["data-lost-step"] != "35" || marks["data-resume-step"] != "32" || marks["data-kept-epochs"] != "1" {
		t.Errorf("marks %v", marks)
	}
}

// TestNoDataStream replays an image session whose data could not load: no
// results, the message for the data panel, idle.
func TestNoDataStream(t *testing.T) {
	s, err := NewSession(4, config.Defaults(config.Images))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Apply(protocol.Event{Kind: protocol.EvNoData, Session: 4, Error: "no fashion-mnist data: this site does not host it"})
	if !st.Gone || st.State != "idle" || st.DataError == "" || st.Text == nil || !strings.HasPrefix(*st.Text, "Not started: ") {
		t.Errorf("status %+v", st)
	}
}

// TestPhaseKeepsEpoch checks that an evaluation's line during training
// still says which epoch it is (a toy epoch is mostly its evaluation), and
// that an evaluation before any step says only what it evaluates.
func TestPhaseKeepsEpoch(t *testing.T) {
	s, err := NewSession(5, config.Defaults(config.Deep))
	if err != nil {
		t.Fatal(err)
	}
	phase := protocol.Event{Kind: protocol.EvPhase, Session: 5, Phase: &protocol.Phase{Name: experiment.PhaseTest, Done: 2000, Total: 4000}}
	if st := s.Apply(phase); st.Text == nil || *st.Text != "Evaluating the test set: 2000 / 4000 images" {
		t.Errorf("before training: %v", st.Text)
	}
	s.Apply(protocol.Event{Kind: protocol.EvProgress, Session: 5, Progress: &protocol.Progress{Progress: train.Progress{Epoch: 3, Epochs: 300, Step: 1, Steps: 1, TotalStep: 3}}})
	if st := s.Apply(phase); st.Text == nil || *st.Text != "epoch 3 / 300 · Evaluating the test set: 2000 / 4000 images" {
		t.Errorf("during training: %v", st.Text)
	}
}

// TestAdopt checks that a session started by one view is planned alike by
// another from the engine's EvSession.
func TestAdopt(t *testing.T) {
	s, evs := record(t, "demo=classical&backend=cpu&epochs=2&train=300&test=100")
	i := slices.IndexFunc(evs, func(ev protocol.Event) bool { return ev.Kind == protocol.EvSession })
	if i < 0 {
		t.Fatal("no session event")
	}
	a, err := Adopt(evs[i])
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != s.ID || len(a.Runs) != 2 || a.Settings.Demo != config.Classical || a.Settings.Synth.Epochs != 2 {
		t.Errorf("adopted session %d: %d runs, demo %s, %d epochs", a.ID, len(a.Runs), a.Settings.Demo, a.Settings.Synth.Epochs)
	}
	sts := replay(a, evs)
	if state, text, _ := final(sts); state != "done" || !strings.HasPrefix(text, "Done: 2 runs") {
		t.Errorf("after the adopted session: state %q, line %q", state, text)
	}
	evs[i].Start.View, evs[i].Start.Jobs = nil, nil
	if _, err := Adopt(evs[i]); err == nil {
		t.Error("a session without a view or a job was adopted")
	}
}

// TestFolderSession shows a finished toy run from its report and figures
// as a run of the runs folder, and lists it.
func TestFolderSession(t *testing.T) {
	live, evs := record(t, "demo=deep&backend=cpu&epochs=2&train=300&test=100")
	replay(live, evs)
	run := live.Runs[0]
	f := protocol.RunFolder{Name: "20261127-041723-s1-r1-DNLL-0.01", Path: "runs/20261127-041723-s1-r1-DNLL-0.01/", Label: "DNLL-0.01", Status: "done", Report: true, Epochs: 2, Trained: 2, TestAccuracy: 0.5}
	s, err := FolderSession(9, []Folder{{f, run.Report, run.Figs}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Settings.Synth.Epochs != 2 || len(s.Runs) != 1 || !s.Runs[0].Opened || s.Runs[0].Rep == nil {
		t.Fatalf("session %+v", s)
	}
	_, detail := Layout(s)
	for _, sl := range detail {
		if !strings.HasPrefix(s.Runs[0].Figs[sl.Name], "<svg") {
			t.Errorf("no figure %s", sl.Name)
		}
	}
	f.Label = "<b>"
	html := FoldersHTML([]protocol.RunFolder{f, {Name: "x", Label: "x", Status: "unfinished"}}, []string{f.Name}, FolderSort{})
	for _, want := range []string{`data-folder="20261127-041723-s1-r1-DNLL-0.01"`, "&lt;b&gt;", "2 / 2", "50.00%", `data-file="runs/20261127-041723-s1-r1-DNLL-0.01/report.json"`, "<td>unfinished</td>",
		`data-pick="20261127-041723-s1-r1-DNLL-0.01" title="pick for the side-by-side view" checked>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the list has no %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, `data-pick="x"`) {
		t.Error("a run without a report can be picked")
	}
	if strings.Contains(html, "data-resume") {
		t.Error("a run that cannot be resumed has a Resume button")
	}
	// A run killed before it wrote a report still resumes.
	killed := protocol.RunFolder{Name: "k", Label: "k", Status: "unfinished", Resumable: true}
	if html := FoldersHTML([]protocol.RunFolder{killed}, nil, FolderSort{}); !strings.Contains(html, `<button type="button" class="link" data-resume="k" title="train this run on from its last whole epoch">Resume</button>`) {
		t.Errorf("a resumable run has no Resume button:\n%s", html)
	}
	if _, err := FolderSession(9, []Folder{{f, []byte(`{"kind": "eval"}`), nil}}); err == nil {
		t.Error("an eval report was shown as a run")
	}
}

// TestFoldersSideBySide shows two finished toy runs of the runs folder side
// by side: both runs opened with their own settings, the overview drawn
// from their histories, and a toy run refused beside an image run.
func TestFoldersSideBySide(t *testing.T) {
	var folders []Folder
	for i, q := range []string{"demo=deep&backend=cpu&epochs=2&train=300&test=100&lambda=0.01", "demo=deep&backend=cpu&epochs=3&train=300&test=100&lambda=1"} {
		live, evs := record(t, q)
		replay(live, evs)
		run := live.Runs[0]
		name := fmt.Sprintf("20261127-041723-s%d-r1-DNLL", i+1)
		folders = append(folders, Folder{protocol.RunFolder{Name: name, Label: name, Status: "done", Report: true}, run.Report, run.Figs})
	}
	s, err := FolderSession(3, folders)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || len(s.Jobs) != 2 || !s.Folders || s.Jobs[0].Synth.Lambda != 0.01 || s.Jobs[1].Synth.Lambda != 1 || s.Jobs[1].Synth.Epochs != 3 {
		t.Fatalf("session %+v, jobs %+v", s, s.Jobs)
	}
	if s.Runs[0].Label != "DNLL, λ = 0.01" || s.Runs[1].Label != "DNLL, λ = 1" {
		t.Errorf("labels %q, %q", s.Runs[0].Label, s.Runs[1].Label)
	}
	same, err := FolderSession(4, []Folder{folders[0], folders[0]})
	if err != nil || same.Runs[1].Label != "DNLL, λ = 0.01 ("+folders[0].Name+")" {
		t.Errorf("two runs of the same settings: %v %q", err, same.Runs[1].Label)
	}
	overview, detail := Layout(s)
	if len(overview) != 3 {
		t.Errorf("overview %v", overview)
	}
	for _, sl := range overview {
		svg := s.Overview[sl.Name]
		if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "λ = 1<") {
			t.Errorf("overview figure %s is not drawn with both runs:\n%.300s", sl.Name, svg)
		}
	}
	if !slices.ContainsFunc(detail, func(sl Slot) bool { return sl.Name == "embedding.svg" }) {
		t.Error("side by side, a run's own embedding is not shown")
	}
	if html := SummaryHTML(s); strings.Count(html, "data-run=") != 2 {
		t.Errorf("the summary has not both runs:\n%s", html)
	}
	checkRunColors(t, s)
	// Picked the other way round, the second run is the first side by
	// side: its row's marker and its lines have the first colour.
	list := []protocol.RunFolder{folders[0].RunFolder, folders[1].RunFolder}
	picked := []string{folders[1].Name, folders[0].Name}
	marks := map[string]string{}
	for _, m := range regexp.MustCompile(`<span class="run-mark" style="background:(#[0-9a-f]{6})"[^>]*></span><button type="button" class="link" data-folder="([^"]*)"`).FindAllStringSubmatch(FoldersHTML(list, picked, FolderSort{}), -1) {
		marks[m[2]] = m[1]
	}
	swapped, err := FolderSession(5, []Folder{folders[1], folders[0]})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range picked {
		if got, want := marks[name], experiment.RunColor(i); got != want {
			t.Errorf("run %s, picked %d-th: its row's marker %q, want %q", name, i+1, got, want)
		}
	}
	if got := svgColors(t, swapped.Overview[experiment.CompareAccuracyFigure]); got.series[0] != marks[folders[1].Name] || got.legend[swapped.Runs[0].Label] != marks[folders[1].Name] {
		t.Errorf("the first picked run's marker %s, its line %v", marks[folders[1].Name], got)
	}
	if html := FoldersHTML(list, nil, FolderSort{}); strings.Contains(html, "background:") || strings.Count(html, `class="run-mark"`) != 2 {
		t.Errorf("runs not picked have coloured markers, or no empty place for them:\n%s", html)
	}
	img := folders[1]
	img.ReportJSON = []byte(`{"kind": "train", "config": {"data": "fashion-mnist", "head": "lda", "epochs": 1}}`)
	if _, err := FolderSession(3, []Folder{folders[0], img}); err == nil || !strings.Contains(err.Error(), "not of the kind") {
		t.Errorf("a toy run beside an image run: %v", err)
	}
	many := slices.Repeat(folders[:1], MaxSideBySide+1)
	if _, err := FolderSession(3, many); err == nil {
		t.Errorf("%d runs side by side were shown", MaxSideBySide+1)
	}
}

// TestRunColors replays the deep demo's losses side by side: each run's
// marker in the table of runs has the colour of its lines and legend
// swatches in the figures of the runs side by side; a single run and a
// sweep have no markers.
func TestRunColors(t *testing.T) {
	s, evs := record(t, "demo=deep&backend=cpu&epochs=2&train=300&test=100&compare=1")
	replay(s, evs)
	if len(s.Runs) != 3 || !s.RunColors() {
		t.Fatalf("%d runs, colours %v", len(s.Runs), s.RunColors())
	}
	checkRunColors(t, s)
	one := *s
	one.Runs = s.Runs[:1]
	sweep := *s
	sweep.Settings.Demo = config.Sweep
	for _, o := range []*Session{&one, &sweep} {
		if o.RunColors() || strings.Contains(SummaryHTML(o), "run-mark") {
			t.Errorf("%d runs of demo %s have colours", len(o.Runs), o.Settings.Demo)
		}
	}
}

// checkRunColors checks that run i's row of session s's table of runs
// has a marker of colour experiment.RunColor(i), and that every figure of
// s's overview that draws a line per run draws run i's line and legend
// swatch in that colour.
func checkRunColors(t *testing.T, s *Session) {
	t.Helper()
	marks := regexp.MustCompile(`<span class="run-mark" style="background:(#[0-9a-f]{6})"[^>]*></span><button type="button" class="link" data-run="(\d+)"[^>]*>([^<]*)</button>`).FindAllStringSubmatch(SummaryHTML(s), -1)
	if len(marks) != len(s.Runs) {
		t.Fatalf("%d markers for %d runs", len(marks), len(s.Runs))
	}
	lines := 0
	for name, svg := range s.Overview {
		got := svgColors(t, svg)
		if len(got.series) != len(s.Runs) {
			continue // not a line per run
		}
		lines++
		for i, m := range marks {
			if m[2] != strconv.Itoa(i) || m[1] != experiment.RunColor(i) {
				t.Errorf("row %d: run %s's marker %s, want run %d's %s", i, m[2], m[1], i, experiment.RunColor(i))
			}
			if got.series[i] != m[1] || got.legend[m[3]] != m[1] {
				t.Errorf("%s: run %d (%s) has the marker %s, the line %s and the legend swatch %s", name, i, m[3], m[1], got.series[i], got.legend[m[3]])
			}
		}
	}
	if lines < 2 {
		t.Errorf("%d figures of the overview draw a line per run, want 2 or more", lines)
	}
}

// lineColors are the colours of a Lines figure: its curves' in order,
// and its legend swatches' by label.
type lineColors struct {
	series []string
	legend map[string]string
}

var (
	seriesGroup = regexp.MustCompile(`(?s)<g class="series"[^>]*>(.*?)</g>`)
	legendGroup = regexp.MustCompile(`(?s)<g class="legend"[^>]*>(.*?)</g>`)
	stroke      = regexp.MustCompile(`<path [^>]*stroke="(#[0-9a-f]{6})"`)
	swatch      = regexp.MustCompile(`<line [^>]*stroke="(#[0-9a-f]{6})"[^\n]*\n(?:<circle[^\n]*\n)?<text[^>]*>([^<]*)</text>`)
)

// svgColors returns the colours of the figure svg (none for a figure
// without curves).
func svgColors(t *testing.T, svg string) lineColors {
	t.Helper()
	c := lineColors{legend: map[string]string{}}
	for _, g := range seriesGroup.FindAllStringSubmatch(svg, -1) {
		for _, m := range stroke.FindAllStringSubmatch(g[1], -1) {
			c.series = append(c.series, m[1])
		}
	}
	for _, g := range legendGroup.FindAllStringSubmatch(svg, -1) {
		for _, m := range swatch.FindAllStringSubmatch(g[1], -1) {
			c.legend[m[2]] = m[1]
		}
	}
	return c
}

// TestSafeSVG checks that a hostile figure of the runs folder keeps its
// drawing but nothing that runs or loads.
func TestSafeSVG(t *testing.T) {
	hostile := `<?xml version="1.0"?><!-- x --><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" onload="alert(1)">` +
		`<script>fetch('engine/command',{method:'POST',body:'{"kind":"bench"}'})</script>` +
		`<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="alert(2)"/></foreignObject>` +
		`<a href="javascript:alert(3)"><rect width="1" height="1"/></a>` +
		`<set attributeName="href" to="javascript:alert(4)"/><use href="https://evil.example/x.svg#a"/>` +
		`<image href="https://evil.example/beacon.png"/><image xlink:href="data:image/png;base64,AAAA"/>` +
		`<rect style="fill: url(https://evil.example/x)" clip-path="url(#c)" ONCLICK="alert(5)"/>` +
		`<text x="1">&lt;img src=x onerror=alert(6)&gt;</text><circle cx="1" cy="2" r="3" fill="#ff0000"/></svg>`
	got := SafeSVG(hostile)
	want := `<svg xmlns="http://www.w3.org/2000/svg" width="10"><image></image><image href="data:image/png;base64,AAAA"></image>` +
		`<rect clip-path="url(#c)"></rect><text x="1">&lt;img src=x onerror=alert(6)&gt;</text><circle cx="1" cy="2" r="3" fill="#ff0000"></circle></svg>`
	if got != want {
		t.Errorf("SafeSVG:\n got %s\nwant %s", got, want)
	}
	if got := SafeSVG(`<html><script>alert(1)</script></html>`); got != "" {
		t.Errorf("not SVG: %q", got)
	}
	if got := SafeSVG(`<svg><rect/>`); got != "" {
		t.Errorf("malformed: %q", got)
	}
}

// TestOffer checks the button that offers an ended session of the native
// engine, and that a live one is not offered but shown.
func TestOffer(t *testing.T) {
	ev := protocol.Event{Kind: protocol.EvSession, Session: 3, Runs: []string{"LDA, DNLL", "softmax, CE"}, Ended: true}
	if got := Offer(ev); got != "Show the native engine's last 2 runs: LDA, DNLL, softmax, CE" {
		t.Errorf("Offer = %q", got)
	}
	ev.Runs = ev.Runs[:1]
	if got := Offer(ev); got != "Show the native engine's last run: LDA, DNLL" {
		t.Errorf("Offer = %q", got)
	}
	ev.Ended = false
	if got := Offer(ev); got != "" {
		t.Errorf("a live session offered: %q", got)
	}
}

// TestFoldersTable checks the runs folder's table: the settings that tell
// runs of a kind apart, the order of each sortable column both ways, and
// the sorting header's state.
func TestFoldersTable(t *testing.T) {
	list := []protocol.RunFolder{
		{Name: "c", Label: "DNLL", Kind: "synth", Status: "done", Report: true, Date: "2026-11-28 10:00", Trained: 3, Epochs: 3, TestAccuracy: 0.9, TestECE: 0.02,
			Settings: map[string]string{"loss": "dnll", "lambda": "0.01", "seed": "2", "epochs": "3", "cov": "full"}},
		{Name: "b", Label: "DNLL", Kind: "synth", Status: "done", Report: true, Date: "2026-11-28 09:00", Trained: 5, Epochs: 5, TestAccuracy: 0.95, TestECE: 0.01,
			Settings: map[string]string{"loss": "dnll", "lambda": "1", "seed": "10", "epochs": "5", "cov": "full"}},
		{Name: "a", Label: "LDA", Kind: "train", Status: "stopped", Report: true, Date: "2026-11-27 12:00", Trained: 1, Epochs: 2, TestAccuracy: 0.5, TestECE: 0.2,
			Settings: map[string]string{"head": "lda", "seed": "1"}},
	}
	if got := fmt.Sprint(Differing(list)); got != "[[lambda=0.01] [lambda=1] []]" {
		t.Errorf("Differing = %s", got)
	}
	for _, c := range []struct {
		key  string
		want string
	}{{"run", "cba"}, {"date", "abc"}, {"seed", "acb"}, {"status", "cba"}, {"epochs", "acb"}, {"accuracy", "acb"}, {"ece", "bca"}} {
		for _, desc := range []bool{false, true} {
			var got string
			for _, r := range SortFolders(list, FolderSort{c.key, desc}) {
				got += r.Name
			}
			want := c.want
			if desc {
				// Ties keep the server's order both ways.
				want = ""
				for i := len(c.want) - 1; i >= 0; i-- {
					want += c.want[i : i+1]
				}
				if c.key == "run" || c.key == "status" {
					want = map[string]string{"run": "acb", "status": "acb"}[c.key]
				}
			}
			if got != want {
				t.Errorf("sorted by %s (desc %v): %s, want %s", c.key, desc, got, want)
			}
		}
	}
	o := FolderSort{}.Toggle("ece")
	if o != (FolderSort{"ece", false}) || o.Toggle("ece") != (FolderSort{"ece", true}) || o.Toggle("seed") != (FolderSort{"seed", false}) {
		t.Errorf("Toggle: %v, %v, %v", o, o.Toggle("ece"), o.Toggle("seed"))
	}
	html := FoldersHTML(list, nil, FolderSort{"ece", true})
	for _, want := range []string{`<th aria-sort="descending"><button type="button" class="link" data-sort="ece"`, `<th aria-sort="none"><button type="button" class="link" data-sort="seed"`,
		"<td>lambda=0.01</td>", "<td>10</td>", "<td>2026-11-27 12:00</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("the table has no %q:\n%s", want, html)
		}
	}
	if strings.Count(html, "data-file=") != 3 || strings.Contains(html, "folder-files") || !strings.HasSuffix(html, "</table>") {
		t.Error("the files are not in the table's rows, once each")
	}
	if !strings.Contains(html, `data-csv="folders-table"`) {
		t.Error("the table has no CSV button")
	}
	list[2].Figures = []string{"curves.svg"}
	rows := readCSV(t, FoldersTable(list, FolderSort{"ece", true}).CSV())
	want := [][]string{
		{"Run", "Date", "Seed", "Settings that differ", "Status", "Epochs", "Test accuracy", "ECE", "Files"},
		{"LDA", "2026-11-27 12:00", "1", "", "stopped", "1 / 2", "50.00%", "20.00%", "report.json curves.svg"},
		{"DNLL", "2026-11-28 10:00", "2", "lambda=0.01", "done", "3 / 3", "90.00%", "2.00%", "report.json"},
		{"DNLL", "2026-11-28 09:00", "10", "lambda=1", "done", "5 / 5", "95.00%", "1.00%", "report.json"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("runs.csv:\n%q\nwant\n%q", rows, want)
	}
}

// TestTablesInPercent checks the units of an image run's tables: accuracy
// and the calibration errors in percent, Brier's score and NLL as numbers,
// and the out-of-distribution scores as a table of percentages, a row per
// score.
func TestTablesInPercent(t *testing.T) {
	var full Report
	raw := `{"kind": "train", "test": {"examples": 64, "accuracy": 0.5, "ece": 0.0982, "ece15": 0.1, "nll": 1.25,
		"mce": 0.3, "brier": 0.61},
		"ood": {"dataset": "mnist", "n_in": 64, "n_out": 64,
		"max_softmax": {"auroc": 0.75, "aupr": 0.7, "fpr_at_95_tpr": 0.9},
		"density": {"auroc": 0.8125, "aupr": 0.8, "fpr_at_95_tpr": 0.5}}}`
	if err := json.Unmarshal([]byte(raw), &full); err != nil {
		t.Fatal(err)
	}
	x := Extras(&full)
	if x == nil || len(x.Rows) != 1 {
		t.Fatalf("extras %+v", x)
	}
	cells := map[string]string{}
	for i, h := range x.Header {
		cells[h] = x.Rows[0][i]
	}
	for h, want := range map[string]string{"Accuracy": "50.00%", "ECE (10 bins)": "9.82%", "ECE (15 bins)": "10.00%", "MCE (15 bins)": "30.00%", "Brier score": "0.6100", "NLL": "1.2500"} {
		if cells[h] != want {
			t.Errorf("extras: %s is %q, want %q (all: %v)", h, cells[h], want, cells)
		}
	}
	o := OOD(&full)
	if o == nil || !strings.Contains(o.Caption, "against mnist (64 test images against 64)") {
		t.Fatalf("ood table %+v", o)
	}
	want := [][]string{{"largest softmax probability", "75.00%", "70.00%", "90.00%"}, {"density", "81.25%", "80.00%", "50.00%"}}
	if !reflect.DeepEqual(o.Rows, want) {
		t.Errorf("ood rows %q, want %q", o.Rows, want)
	}
	html := SummaryHTML(&Session{Runs: []*Run{{Label: "run", Rep: &full}}, Picked: 0, Jobs: []config.Job{{Label: "run"}}})
	for _, id := range []string{`id="extras"`, `id="ood"`} {
		if !strings.Contains(html, id) {
			t.Errorf("the summary has no table %s:\n%s", id, html)
		}
	}
}

// TestOpenedTrainTime checks the summary's training time: a run trained
// here gives its own, an opened model the one its report recorded (a
// hosted model's report.json), and a dash when nothing recorded it (a
// dropped checkpoint), not 0.00 s.
func TestOpenedTrainTime(t *testing.T) {
	for _, tc := range []struct {
		opened  bool
		seconds float64
		want    string
	}{
		{false, 3.25, "3.25 s"},
		{true, 16360.68, "16360.7 s"},
		{true, 0, "–"},
	} {
		var rep Report
		if err := json.Unmarshal([]byte(fmt.Sprintf(`{"kind": "eval", "test": {"examples": 64, "accuracy": 0.5}, "seconds": %v}`, tc.seconds)), &rep); err != nil {
			t.Fatal(err)
		}
		cells := SummaryCells(&Run{Status: "opened: m", Opened: tc.opened, Rep: &rep})
		if got := cells[len(cells)-1]; got != tc.want || len(cells) != len(SummaryHeader)-1 {
			t.Errorf("opened %v, %v s: train time %q of %d cells, want %q", tc.opened, tc.seconds, got, len(cells), tc.want)
		}
	}
}

// TestBadgeTitle: the badge's tooltip names the backend and, on WebGPU,
// the limits its device was granted, in alphabetical order.
func TestBadgeTitle(t *testing.T) {
	gpu := &protocol.Backend{Info: kernels.Info{Name: "webgpu", Adapter: "google swiftshader"}, Kind: experiment.BackendWebGPU,
		Limits: map[string]uint64{"maxStorageBufferBindingSize": 134217728, "maxBufferSize": 268435456}}
	want := "WebGPU · google swiftshader; granted limits: maxBufferSize=268435456, maxStorageBufferBindingSize=134217728"
	if got := BadgeTitle(gpu); got != want {
		t.Errorf("BadgeTitle = %q, want %q", got, want)
	}
	cpu := &protocol.Backend{Info: kernels.Info{Name: "cpu", Adapter: "Go"}, Kind: experiment.BackendCPU}
	if got := BadgeTitle(cpu); got != "CPU · Go" || GrantedLimits(cpu) != "" || GrantedLimits(nil) != "" {
		t.Errorf("BadgeTitle on the CPU = %q, GrantedLimits %q", got, GrantedLimits(cpu))
	}
}
