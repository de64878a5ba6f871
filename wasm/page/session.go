// Package page is what the browser page decides, apart from the DOM that
// shows it: what the page does as it loads (Start) and on an edit, the
// form's HTML, messages and locks, the controls' states written through
// a Doc (the DOM by CSS selector; package main implements it), the state
// of a session as the engine's events (package protocol) build it and
// the sessions' routing, the status each event leaves (the automation's
// data-state, the progress bar and its line, the notice, the body's
// marks), which figures go where and their cards, the summary's cells
// and tables, the runs folder's list, the trained-model panel and the
// texts of the data and model panels, and App: the page as a whole, on
// each control and each event, through a Doc and a Host (the engine, the
// files, the address bar, the event loop). Package main (wasm/, js only)
// binds it; this package builds everywhere, so go test checks the page's
// decisions and flows, by replaying event streams, on a fake Doc and with
// a fake Host that runs the native engine.
//
// The page's automation contracts (kept by the browser tests):
// document.body's data-state is idle, training, done or error; #report holds the latest
// report.json; data-ready="1" once the engine is ready (for the images
// demo with autostart, once its hosted data set is loaded); data-model
// names the trained model the images demo shows once it is evaluated (the
// site's name or the dropped file's); data-memory says which WebAssembly
// memory the program runs on, data-engine-memory the size in bytes of the
// engine's (its high-water mark, from its progress events). For the
// tests, debug=panic in the URL makes the first run panic once, and
// debug=lose-device destroys the WebGPU device halfway through a run
// (once it has a save point); body's data-lost-step, data-resume-step and
// data-kept-epochs then say where the device was lost, after which step
// the CPU took over and how many epochs of the history it kept;
// debug=bad-shader and debug=big-buffer make the WebGPU device fail while
// the engine warms up (an invalid shader, a buffer over its
// maxBufferSize), and the page says so and runs on the CPU. With bench=1
// the engine times the GPU table instead of training.
package page

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/wasm/config"
)

// Session is what one press of Train (or Open) shows: its runs as the
// engine reports them.
type Session struct {
	ID       int
	Settings config.Settings
	Jobs     []config.Job
	Runs     []*Run
	Cur      int               // the run in progress
	Picked   int               // the run whose figures are shown; -1 follows Cur
	Overview map[string]string // the overview's figures (SVG) by file name
	// Folders: the runs are run folders of deeplda ui shown side by
	// side (FolderSession).
	Folders bool
	// Moved is the engine's last move to the CPU in this session, nil
	// when none.
	Moved *protocol.Moved
	// at says where training is ("epoch 3 / 300", after the run's name
	// when there are several), "" before the first step.
	at string
}

// Run is one run of a session as the page shows it.
type Run struct {
	Label  string
	Status string
	Report []byte            // report.json
	Rep    *Report           // Report, decoded; nil before the first
	Figs   map[string]string // the run's figures (SVG) by file name
	Opened bool
	// Checkpoint: the engine sent the run's checkpoint.
	Checkpoint bool
	// loss is the live loss curve of an image run (LossStepsFigure).
	loss lossCurve
}

// Report is report.json of a run: the report and, for an image run, its
// extra evaluations.
type Report struct {
	report.Report
	experiment.ImageExtras
}

// NewSession plans the runs of s as session id.
func NewSession(id int, s config.Settings) (*Session, error) {
	jobs, err := s.Jobs()
	if err != nil {
		return nil, err
	}
	ss := &Session{ID: id, Settings: s, Jobs: jobs, Picked: -1, Overview: map[string]string{}}
	for _, j := range jobs {
		ss.Runs = append(ss.Runs, &Run{Label: j.Label, Status: "waiting", Figs: map[string]string{}})
	}
	return ss, nil
}

// Adopt returns the session of an EvSession that another view started
// (or this page before a reload), planned from the view's account of it
// (Start.View), or without one (a run that deeplda ui resumed) from its
// one job on the native engine; an error when there is neither or it
// does not plan the engine's runs.
func Adopt(ev protocol.Event) (*Session, error) {
	settings, err := adopted(ev)
	if err != nil {
		return nil, fmt.Errorf("session %d: %w", ev.Session, err)
	}
	s, err := NewSession(ev.Session, settings)
	if err != nil {
		return nil, err
	}
	if len(s.Runs) != len(ev.Runs) {
		return nil, fmt.Errorf("session %d: the view plans %d runs, the engine trains %d", ev.Session, len(s.Runs), len(ev.Runs))
	}
	for i, label := range ev.Runs {
		s.Runs[i].Label = label
	}
	return s, nil
}

// adopted returns the settings of the session that ev starts.
func adopted(ev protocol.Event) (config.Settings, error) {
	st := ev.Start
	switch {
	case st == nil:
		return config.Settings{}, fmt.Errorf("no start to show it with")
	case len(st.View) > 0:
		settings, _, errs := config.FromQuery(config.Query(st.View))
		return settings, errs.Err()
	case len(st.Jobs) != 1 || st.Jobs[0].Synth == nil && st.Jobs[0].Image == nil:
		return config.Settings{}, fmt.Errorf("no view to show its runs with")
	}
	job := st.Jobs[0]
	var s config.Settings
	if job.Image != nil {
		s = config.Defaults(config.Images)
		s.Image = *job.Image
	} else {
		s = config.Defaults(config.Deep)
		s.Synth = *job.Synth
	}
	s.Native, s.Density = true, st.Density
	return s, nil
}

// Shown returns the index of the run whose figures are shown.
func (s *Session) Shown() int {
	if s.Picked >= 0 {
		return s.Picked
	}
	return min(s.Cur, len(s.Runs)-1)
}

// RunColors says whether the runs of s have colours: whether its overview
// lays them side by side with a line for each (not a sweep, whose
// figures go by λ), run i's in experiment.RunColor(i), so that its row of
// the table of runs has a marker of that colour.
func (s *Session) RunColors() bool {
	return len(s.Runs) > 1 && (s.Folders || s.Settings.Demo != config.Sweep)
}

// Start returns the protocol's start of s's runs.
func (s *Session) Start() *protocol.Start {
	st := &protocol.Start{Backend: s.Settings.Backend, Density: s.Settings.Density, View: s.Settings.Query()}
	for _, j := range s.Jobs {
		job := protocol.Job{Label: j.Label, Image: j.Image}
		if j.Image == nil {
			c := j.Synth
			job.Synth = &c
		}
		st.Jobs = append(st.Jobs, job)
	}
	if len(s.Jobs) > 1 {
		switch s.Settings.Demo {
		case config.Sweep:
			st.Overview = protocol.OverviewSweep
		case config.Images:
			st.Overview = protocol.OverviewHeads
		default:
			st.Overview = protocol.OverviewRuns
		}
	}
	return st
}

// Status is what an event changes on the page beside the results.
type Status struct {
	// Redraw: the results (summary, figures, report) changed.
	Redraw bool
	// Live: the shown run's live loss curve (LossStepsFigure) changed,
	// and nothing else of the results.
	Live bool
	// State is the automation's data-state to set ("" keeps it):
	// training, idle, done or error.
	State string
	// Resumable: with State idle, Resume shows.
	Resumable bool
	// Progress is the bar's fraction of the session (negative keeps it).
	Progress float64
	// Text is the line under the bar (nil keeps it).
	Text *string
	// Backend is the badge and the notice (its Why), nil keeps them.
	Backend *protocol.Backend
	// Error is an error for the notice bar ("" for none).
	Error string
	// Marks are attributes of the page's body to set (MoveMarks).
	Marks map[string]string
	// DataError is a problem with the data, for the data panel.
	DataError string
	// Gone: the session ended without results (no data): the page
	// shows none.
	Gone bool
}

// text returns a Status's Text field for s.
func text(s string) *string { return &s }

// MoveMarks are the attributes of the page's body that say, for scripts,
// where the last move to the CPU happened: the step at which WebGPU failed,
// the step after which the CPU took over and the epochs of history it kept.
var MoveMarks = []string{"data-lost-step", "data-resume-step", "data-kept-epochs"}

// Apply takes an event of the session and returns what changes on the
// page.
func (s *Session) Apply(ev protocol.Event) Status {
	st := Status{Progress: -1}
	switch ev.Kind {
	case protocol.EvLoading:
		st.Text = text(ev.Text)
	case protocol.EvProgress:
		s.Cur = ev.Run
		st.Progress, st.Text = s.progress(ev.Progress)
		if r := s.Runs[ev.Run]; s.Settings.Demo == config.Images && r.loss.add(ev.Progress.Progress) && r.loss.due(ev.Progress.Progress) {
			r.Figs[LossStepsFigure] = string(r.loss.figure())
			st.Live = ev.Run == s.Shown()
		}
	case protocol.EvPhase:
		p := ev.Phase
		st.Progress = float64(p.Done) / float64(max(1, p.Total))
		st.Text = text(PhaseText(p))
		if s.at != "" && ev.Run == s.Cur {
			// Most epochs of a small run are their evaluation: the line
			// still says which epoch it is.
			st.Text = text(s.at + " · " + *st.Text)
		}
	case protocol.EvRun:
		s.runChanged(ev)
		st.Redraw = true
	case protocol.EvMoved:
		m := ev.Moved
		s.Moved = m
		b := *ev.Backend
		b.Why = MovedNotice(m)
		st.Backend = &b
		st.Marks = map[string]string{}
		for i, v := range []int{m.LostStep, m.ResumeStep, m.KeptEpochs} {
			st.Marks[MoveMarks[i]] = strconv.Itoa(v)
		}
	case protocol.EvDone:
		s.Cur = len(s.Runs) - 1
		runs := "1 run"
		if len(s.Runs) > 1 {
			runs = fmt.Sprintf("%d runs", len(s.Runs))
		}
		st.Redraw, st.State, st.Progress = true, "done", 1
		st.Text = text(fmt.Sprintf("Done: %s in %.1f s on %s.", runs, ev.Seconds, Badge(ev.Backend)))
	case protocol.EvStopped:
		s.Cur = ev.Run
		st.Redraw, st.State, st.Resumable = true, "idle", true
		if m := s.Moved; m != nil && m.Stopped {
			st.Text = text(fmt.Sprintf("Stopped: WebGPU failed. Resume continues on the CPU %s.", movedFrom(m)))
		} else {
			st.Text = text(fmt.Sprintf("Stopped during run %d of %d (%s). Resume continues at the same step.", ev.Run+1, len(s.Runs), s.Runs[ev.Run].Label))
		}
	case protocol.EvFailed, protocol.EvRefused:
		st.Redraw, st.State, st.Error = true, "error", ev.Error
		st.Text = text("Training failed: " + ev.Error)
	case protocol.EvNoData:
		st.Gone, st.State, st.DataError = true, "idle", ev.Error
		st.Text = text("Not started: " + ev.Error)
	}
	return st
}

// runChanged takes a run's new state.
func (s *Session) runChanged(ev protocol.Event) {
	if ev.Run < 0 || ev.Run >= len(s.Runs) {
		return
	}
	r, st := s.Runs[ev.Run], ev.RunState
	if !st.Opened {
		if s.Cur != ev.Run {
			s.at = ""
		}
		s.Cur = ev.Run
	}
	r.Status, r.Opened = st.Status, st.Opened
	if st.Report != nil {
		r.Report = st.Report
		var rep Report
		if err := json.Unmarshal(st.Report, &rep); err == nil {
			r.Rep = &rep
		}
	}
	for name, svg := range st.Figures {
		r.Figs[name] = svg
	}
	for name, svg := range ev.Overview {
		s.Overview[name] = svg
	}
	r.Checkpoint = r.Checkpoint || st.Checkpoint
}

// progress returns the bar's fraction and line for a training step.
func (s *Session) progress(pp *protocol.Progress) (float64, *string) {
	p := pp.Progress
	runFrac := float64(p.TotalStep) / float64(max(1, p.Epochs*p.Steps))
	f := (float64(s.Cur) + runFrac) / float64(len(s.Runs))
	var b strings.Builder
	if len(s.Runs) > 1 {
		fmt.Fprintf(&b, "Run %d of %d (%s) · ", s.Cur+1, len(s.Runs), s.Runs[s.Cur].Label)
	}
	fmt.Fprintf(&b, "epoch %d / %d", p.Epoch, p.Epochs)
	s.at = b.String()
	fmt.Fprintf(&b, " · step %d / %d · %s examples/s · loss %.4g · accuracy %.2f%%",
		p.Step, p.Steps, Thousands(p.ExamplesPerSecond), p.Loss, 100*p.Accuracy)
	if f > 0.005 {
		left := time.Duration(pp.Seconds * float64(time.Second) * (1 - f) / f)
		fmt.Fprintf(&b, " · %s left", roundDuration(left))
	}
	return f, text(b.String())
}

// PhaseText says how far an evaluation is.
func PhaseText(p *protocol.Phase) string {
	return fmt.Sprintf("%s%s: %d / %d images", strings.ToUpper(p.Name[:1]), p.Name[1:], p.Done, p.Total)
}

// MovedNotice says where the engine moved a session from WebGPU to the
// CPU, and what comes next.
func MovedNotice(m *protocol.Moved) string {
	what := "WebGPU failed"
	if m.DeviceLost {
		what = "The WebGPU device was lost"
	}
	lost := "before the first step"
	if m.LostStep > 0 {
		lost = "at " + position(m.LostAt[0], m.LostAt[1])
	}
	notice := fmt.Sprintf("%s %s (%s). ", what, lost, m.Error)
	state := "the last state kept on the host: same weights, BatchNorm statistics, Adam moments and data order"
	if m.Stopped {
		return notice + fmt.Sprintf("The run stopped; Resume continues it on the CPU backend (Go compiled to WebAssembly) %s, %s.", movedFrom(m), state)
	}
	return notice + fmt.Sprintf("Training continues on the CPU backend (Go compiled to WebAssembly) %s, %s.", movedFrom(m), state)
}

// movedFrom says where the CPU took a moved run over.
func movedFrom(m *protocol.Moved) string {
	if m.ResumeStep == 0 && m.KeptEpochs == 0 && m.ResumeAt == [2]int{} {
		return "from the start"
	}
	from := "after " + position(m.ResumeAt[0], m.ResumeAt[1])
	if m.KeptEpochs > 0 {
		from += fmt.Sprintf(" (the %d epochs trained on WebGPU stay in the history)", m.KeptEpochs)
	}
	return from
}

// position names the place after step step of the epoch after done
// completed epochs.
func position(done, step int) string {
	if step == 0 {
		if done == 0 {
			return "the start"
		}
		return fmt.Sprintf("epoch %d", done)
	}
	return fmt.Sprintf("step %d of epoch %d", step, done+1)
}

// Badge names a backend for the page's badge.
func Badge(b *protocol.Backend) string {
	if b == nil {
		return "?"
	}
	if b.Kind == experiment.BackendWebGPU {
		return "WebGPU · " + b.Info.Adapter
	}
	return "CPU · " + b.Info.Adapter
}

// GrantedLimits lists the limits a WebGPU device was granted, by name in
// alphabetical order ("maxBufferSize=268435456, ..."): "" for none.
func GrantedLimits(b *protocol.Backend) string {
	if b == nil {
		return ""
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(b.Limits)) {
		out = append(out, fmt.Sprintf("%s=%d", n, b.Limits[n]))
	}
	return strings.Join(out, ", ")
}

// BadgeTitle is the badge's tooltip: the backend (Badge) and the limits
// its WebGPU device was granted.
func BadgeTitle(b *protocol.Backend) string {
	if l := GrantedLimits(b); l != "" {
		return Badge(b) + "; granted limits: " + l
	}
	return Badge(b)
}

// Thousands formats a rate with a thousands separator ("12,345").
func Thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// roundDuration rounds a duration for display.
func roundDuration(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// Offer is the button text by which a page offers the native engine's
// session that ended before the page connected (protocol.Event.Ended),
// rather than showing it in place of the settings its user chose; "" when
// ev is not such a session.
func Offer(ev protocol.Event) string {
	if ev.Kind != protocol.EvSession || !ev.Ended {
		return ""
	}
	switch len(ev.Runs) {
	case 0:
		return "Show the native engine's last session"
	case 1:
		return "Show the native engine's last run: " + ev.Runs[0]
	}
	return fmt.Sprintf("Show the native engine's last %d runs: %s", len(ev.Runs), strings.Join(ev.Runs, ", "))
}
