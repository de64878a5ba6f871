//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file is the view's side of a session: the commands the page sends
// the engine and what it makes of the engine's events.

// session is what one press of Train (or Open) shows: its runs as the
// engine reports them.
type session struct {
	id       int
	settings config.Settings
	jobs     []config.Job
	runs     []*runView
	cur      int // the run in progress
	picked   int // the run whose figures are shown; -1 follows cur
	overview map[string][]byte
	// moved is the engine's last move to the CPU in this session, nil
	// when none.
	moved *protocol.Moved
}

// runView is one run of a session as the page shows it.
type runView struct {
	label  string
	job    config.Job
	status string
	report []byte      // report.json
	rep    *fullReport // report, decoded; nil before the first
	figs   map[string][]byte
	ckpt   js.Value // the last good checkpoint, an ArrayBuffer (undefined: none)
	opened bool
}

// fullReport is report.json of a run: the report and, for an image run,
// its extra evaluations.
type fullReport struct {
	report.Report
	experiment.ImageExtras
}

// newSession plans the runs of s.
func (a *app) newSession(s config.Settings) (*session, error) {
	jobs, err := s.Jobs()
	if err != nil {
		return nil, err
	}
	a.lastID++
	ss := &session{id: a.lastID, settings: s, jobs: jobs, picked: -1, overview: map[string][]byte{}}
	for _, j := range jobs {
		ss.runs = append(ss.runs, &runView{label: j.Label, job: j, status: "waiting", figs: map[string][]byte{}})
	}
	return ss, nil
}

// shown returns the index of the run whose figures are shown.
func (s *session) shown() int {
	if s.picked >= 0 {
		return s.picked
	}
	return min(s.cur, len(s.runs)-1)
}

// start returns the protocol's start of s's runs.
func (s *session) start() *protocol.Start {
	st := &protocol.Start{Backend: s.settings.Backend, Density: s.settings.Density}
	for _, j := range s.jobs {
		st.Jobs = append(st.Jobs, protocol.Job{Label: j.Label, Synth: jobSynth(j), Image: j.Image})
	}
	if len(s.jobs) > 1 {
		switch s.settings.Demo {
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

// jobSynth returns the toy configuration of j, nil for an image run.
func jobSynth(j config.Job) *experiment.SynthConfig {
	if j.Image != nil {
		return nil
	}
	c := j.Synth
	return &c
}

// onEvent takes one event of the engine (with the checkpoint that came
// beside it, or null).
func (a *app) onEvent(ev protocol.Event, ckpt js.Value) {
	if ev.MemoryBytes > 0 {
		// For the tests: the engine's WebAssembly memory.
		doc.(dom.HTMLDocument).Body().SetAttribute("data-engine-memory", strconv.FormatInt(ev.MemoryBytes, 10))
	}
	switch ev.Kind {
	case protocol.EvReady:
		a.engineReady(ev)
		return
	case protocol.EvBackend:
		a.showBackend(ev.Backend)
		return
	case protocol.EvData:
		a.data.update(ev.Data)
		return
	case protocol.EvModels:
		a.models.setIndex(ev.Models)
		return
	case protocol.EvOpenFailed:
		a.models.failed(ev.Error)
		return
	case protocol.EvRefused:
		consoleWarn("deeplda: the engine refused a command: " + ev.Error)
	}
	s := a.sess
	if ev.Session == 0 || s == nil || s.id != ev.Session {
		if ev.Kind == protocol.EvLoading {
			a.setProgressText(ev.Text)
		}
		return // a session the page no longer shows
	}
	switch ev.Kind {
	case protocol.EvSession:
		if s == a.models.opening {
			// The opened models' figures replace what the page showed.
			a.view.reset(s)
		}
	case protocol.EvLoading:
		a.setProgressText(ev.Text)
	case protocol.EvProgress:
		s.cur = ev.Run
		a.progress(s, ev.Progress)
	case protocol.EvPhase:
		p := ev.Phase
		a.setProgress(float64(p.Done) / float64(max(1, p.Total)))
		a.setProgressText(fmt.Sprintf("%s%s: %d / %d images", strings.ToUpper(p.Name[:1]), p.Name[1:], p.Done, p.Total))
	case protocol.EvRun:
		a.runChanged(s, ev, ckpt)
	case protocol.EvMoved:
		a.moved(s, ev)
	case protocol.EvDone:
		a.finished(s, ev)
	case protocol.EvStopped:
		a.stopped(s, ev.Run)
	case protocol.EvFailed:
		a.failed(ev.Error)
	case protocol.EvNoData:
		a.noData(ev.Error)
	case protocol.EvOpened:
		a.models.opened(s, ev.Opened)
	case protocol.EvRefused:
		a.failed(ev.Error)
	}
}

// runChanged takes a run's new state and redraws.
func (a *app) runChanged(s *session, ev protocol.Event, ckpt js.Value) {
	if ev.Run < 0 || ev.Run >= len(s.runs) {
		return
	}
	r, st := s.runs[ev.Run], ev.RunState
	if !st.Opened {
		s.cur = ev.Run
	}
	r.status, r.opened = st.Status, st.Opened
	if st.Report != nil {
		r.report = st.Report
		var rep fullReport
		if err := json.Unmarshal(st.Report, &rep); err == nil {
			r.rep = &rep
		}
	}
	for name, svg := range st.Figures {
		r.figs[name] = []byte(svg)
	}
	for name, svg := range ev.Overview {
		s.overview[name] = []byte(svg)
	}
	if ckpt.Truthy() {
		r.ckpt = ckpt
	}
	a.view.update(s)
}

// moved shows where the engine moved the session from WebGPU to the CPU.
func (a *app) moved(s *session, ev protocol.Event) {
	m := ev.Moved
	s.moved = m
	body := doc.(dom.HTMLDocument).Body()
	for i, v := range []int{m.LostStep, m.ResumeStep, m.KeptEpochs} {
		body.SetAttribute(moveMarks[i], strconv.Itoa(v))
	}
	what := "WebGPU failed"
	if m.DeviceLost {
		what = "The WebGPU device was lost"
	}
	lost := "before the first step"
	if m.LostStep > 0 {
		lost = "at " + position(m.LostAt[0], m.LostAt[1])
	}
	from := movedFrom(m)
	notice := fmt.Sprintf("%s %s (%s). ", what, lost, m.Error)
	state := "the last state kept on the host: same weights, BatchNorm statistics, Adam moments and data order"
	if m.Stopped {
		notice += fmt.Sprintf("The run stopped; Resume continues it on the CPU backend (Go compiled to WebAssembly) %s, %s.", from, state)
	} else {
		notice += fmt.Sprintf("Training continues on the CPU backend (Go compiled to WebAssembly) %s, %s.", from, state)
	}
	b := *ev.Backend
	b.Why = notice
	a.showBackend(&b)
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

// moveMarks are the attributes of the page's body that say, for scripts,
// where the last move to the CPU happened: the step at which WebGPU failed,
// the step after which the CPU took over and the epochs of history it kept.
var moveMarks = []string{"data-lost-step", "data-resume-step", "data-kept-epochs"}

// clearMoveMarks removes the moveMarks of an earlier session.
func clearMoveMarks() {
	body := doc.(dom.HTMLDocument).Body()
	for _, m := range moveMarks {
		body.RemoveAttribute(m)
	}
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

// stopped shows a stopped session: the current run's report and figures as
// they stand, and Resume.
func (a *app) stopped(s *session, run int) {
	s.cur = run
	a.view.update(s)
	if m := s.moved; m != nil && m.Stopped {
		a.setProgressText(fmt.Sprintf("Stopped: WebGPU failed. Resume continues on the CPU %s.", movedFrom(m)))
	} else {
		a.setProgressText(fmt.Sprintf("Stopped during run %d of %d (%s). Resume continues at the same step.", run+1, len(s.runs), s.runs[run].label))
	}
	a.setIdle(true)
	setState("idle")
}

// finished shows a completed session.
func (a *app) finished(s *session, ev protocol.Event) {
	s.cur = len(s.runs) - 1
	a.view.update(s)
	a.setProgress(1)
	runs := "1 run"
	if len(s.runs) > 1 {
		runs = fmt.Sprintf("%d runs", len(s.runs))
	}
	a.setProgressText(fmt.Sprintf("Done: %s in %.1f s on %s.", runs, ev.Seconds, backendBadge(ev.Backend)))
	a.setIdle(false)
	setState("done")
}

// failed shows an error.
func (a *app) failed(msg string) {
	if a.sess != nil {
		a.view.update(a.sess)
	}
	a.showError(msg)
	a.setProgressText("Training failed: " + msg)
	a.setIdle(false)
	setState("error")
}

// noData shows a problem with an image run's data next to the data
// controls and returns the page to idle: nothing was trained.
func (a *app) noData(msg string) {
	a.data.msg.SetTextContent(msg)
	a.sess = nil
	a.view.reset(nil)
	a.setProgressText("Not started: " + msg)
	a.setIdle(false)
	setState("idle")
}
