package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// Run statuses (a diverged run has its message as its status).
const (
	statusWaiting  = "waiting"
	statusTraining = "training"
	statusStopped  = "stopped"
	statusDone     = "done"
)

// refreshEvery is the least time between two live redraws of a toy run's
// figures (each evaluates both splits and rebuilds the SVGs).
const refreshEvery = time.Second

// progressEvery is the least time between two progress or phase events.
const progressEvery = 100 * time.Millisecond

// liveFigures are the figures redrawn while a run trains.
var liveFigures = map[string]bool{"embedding.svg": true, "curves.svg": true, "accuracy.svg": true, "logdet.svg": true}

// session is what one start command does: its runs, trained one after the
// other on one backend, with stop and resume.
type session struct {
	id      int
	start   protocol.Start
	runs    []*jobRun
	cur     int // the run in progress
	be      kernels.Backend
	active  time.Duration  // training wall time before the current stretch
	started time.Time      // start of the current stretch
	at      train.Progress // the current run's last progress report
	// overview holds the overview figures last sent.
	overview                  map[string][]byte
	lastProgress, lastRefresh time.Time
}

// jobRun is one run of a session.
type jobRun struct {
	job     protocol.Job
	t       experiment.Trainable // nil before the run is built
	run     *experiment.Run      // t.Base()
	figs    map[string][]byte    // the run's figures by file name
	side    []byte               // its embedding for the runs side by side (OverviewRuns)
	sent    map[string][]byte    // the figures last sent
	report  []byte               // report.json
	ckpt    []byte               // the last good checkpoint (safetensors)
	newCkpt bool                 // ckpt changed since the last event
	status  string
	opened  bool       // evaluated from a trained model, not trained here
	safe    *savePoint // the last host copy of a WebGPU run (see moveToCPU)
	dir     string     // the run's folder (RunFolders), "" for none
}

// image returns the run when it is an image run, else nil.
func (jr *jobRun) image() *experiment.ImageRun {
	img, _ := jr.t.(*experiment.ImageRun)
	return img
}

// release frees the memory of the run's model; its figures, report and
// checkpoint stay.
func (jr *jobRun) release() {
	if jr.run != nil {
		jr.run.Model.Release()
		jr.t, jr.run = nil, nil
	}
}

// release frees the memory of the session's models.
func (s *session) release() {
	for _, jr := range s.runs {
		jr.release()
	}
}

// elapsed returns the session's training wall time.
func (s *session) elapsed() time.Duration {
	if s.started.IsZero() {
		return s.active
	}
	return s.active + time.Since(s.started)
}

// newSession plans the runs of st as session id.
func newSession(id int, st protocol.Start) (*session, error) {
	if len(st.Jobs) == 0 {
		return nil, errors.New("a session needs at least one run")
	}
	s := &session{id: id, start: st, overview: map[string][]byte{}}
	for _, j := range st.Jobs {
		if (j.Synth == nil) == (j.Image == nil) {
			return nil, fmt.Errorf("run %q: a run is either a toy run or an image run", j.Label)
		}
		s.runs = append(s.runs, &jobRun{job: j, status: statusWaiting, sent: map[string][]byte{}})
	}
	return s, nil
}

// begin makes s the engine's session and announces it.
func (e *Engine) begin(s *session) {
	if e.sess != nil {
		e.sess.release()
	}
	e.sess = s
	labels := make([]string, len(s.runs))
	for i, jr := range s.runs {
		labels[i] = jr.job.Label
	}
	e.emit(protocol.Event{Kind: protocol.EvSession, Session: s.id, Runs: labels, Start: &s.start})
}

// start trains a new session.
func (e *Engine) start(ctx context.Context, c protocol.Command) {
	if c.Start == nil {
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: "start: no runs"})
		return
	}
	s, err := newSession(c.Session, *c.Start)
	if err != nil {
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: err.Error()})
		return
	}
	e.models.forget()
	e.begin(s)
	e.train(ctx, s)
}

// resume continues the stopped session id where it stopped.
func (e *Engine) resume(ctx context.Context, id int) {
	s := e.sess
	if s == nil || s.id != id || s.cur >= len(s.runs) {
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: id, Error: "resume: no stopped session to resume"})
		return
	}
	s.runs[s.cur].status = statusTraining
	e.train(ctx, s)
}

// train runs (or resumes) s: every run to the end, or until ctx is
// cancelled.
func (e *Engine) train(ctx context.Context, s *session) {
	if s.be == nil {
		be, why := e.backends.get(s.start.Backend)
		s.be = be
		e.emit(protocol.Event{Kind: protocol.EvBackend, Session: s.id, Backend: backendOf(be, why)})
	}
	s.started = time.Now()
	defer func() {
		s.active += time.Since(s.started)
		s.started = time.Time{}
	}()
	for s.cur < len(s.runs) {
		err := e.trainRun(ctx, s, s.runs[s.cur])
		switch {
		case err == nil:
			s.cur++
		case errors.Is(err, context.Canceled):
			e.stopped(s)
			return
		case errors.As(err, new(*dataError)):
			e.sess = nil
			e.emit(protocol.Event{Kind: protocol.EvNoData, Session: s.id, Error: err.Error()})
			return
		case experiment.BackendOf(s.be) == experiment.BackendWebGPU:
			if !e.moveToCPU(s, err) {
				return
			}
		default:
			e.failed(s, err)
			return
		}
	}
	s.cur = len(s.runs) - 1
	e.sendRun(s, s.cur)
	e.emit(protocol.Event{Kind: protocol.EvDone, Session: s.id, Seconds: s.elapsed().Seconds(), Backend: backendOf(s.be, "")})
}

// newRun prepares jr's run on the session's backend.
func (e *Engine) newRun(s *session, jr *jobRun) error {
	var t experiment.Trainable
	var err error
	if c := jr.job.Image; c != nil {
		t, err = e.newImageRun(s, c)
	} else {
		t, err = experiment.NewSynth(s.be, *jr.job.Synth)
	}
	if err != nil {
		return err
	}
	run := t.Base()
	run.HideDensity = !s.start.Density
	run.Report.Backend.Engine = e.host.Engine()
	if experiment.BackendOf(s.be) == experiment.BackendCPU && e.host.Engine() == "page" {
		// Reading the statistics back is cheap on the CPU: in a tab,
		// report (and so let commands in) after every step. A native
		// engine takes commands on other threads.
		run.Trainer.Cfg.ReportEvery = 1
	}
	jr.t, jr.run = t, run
	return nil
}

// newImageRun loads the data of an image run (the site's copy or the
// user's files) and prepares the run on the session's backend.
func (e *Engine) newImageRun(s *session, c *experiment.ImageConfig) (*experiment.ImageRun, error) {
	data, err := e.data.get(c.Data)
	if err != nil {
		return nil, &dataError{err}
	}
	e.emit(protocol.Event{Kind: protocol.EvLoading, Session: s.id, Text: "Preparing the run…"})
	run, err := experiment.NewImagesFrom(s.be, *c, data)
	if err != nil {
		return nil, err
	}
	run.OOD = e.data.oodSet(c)
	return run, nil
}

// dataError is a problem with the data of an image run.
type dataError struct{ err error }

func (e *dataError) Error() string { return e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// resumeFolder puts a new run whose job names a run folder (Job.Resume)
// where that folder's resume file left it, and keeps the run in it.
func (e *Engine) resumeFolder(jr *jobRun) error {
	if jr.job.Resume == "" {
		return nil
	}
	f, ok := e.host.(RunFolders)
	if !ok {
		return fmt.Errorf("resuming %s: this engine keeps no run folders", jr.job.Resume)
	}
	dir, err := f.Resume(jr.job.Resume, jr.run)
	if err != nil {
		return fmt.Errorf("resuming %s: %w", jr.job.Resume, err)
	}
	jr.dir = dir
	return nil
}

// trainRun trains one run to its end, sending its figures as they change.
func (e *Engine) trainRun(ctx context.Context, s *session, jr *jobRun) error {
	if jr.run == nil {
		s.at = train.Progress{}
		if err := e.newRun(s, jr); err != nil {
			return err
		}
		if err := e.resumeFolder(jr); err != nil {
			return err
		}
	}
	jr.status = statusTraining
	e.sendRun(s, s.cur)
	progress := func(p train.Progress) {
		if e.debugPanic {
			e.debugPanic = false
			panic("debug=panic: a deliberate panic to test the recovery")
		}
		if e.debugLose && jr.safe != nil && 2*p.TotalStep >= p.Epochs*p.Steps && experiment.BackendOf(s.be) == experiment.BackendWebGPU {
			e.debugLose = false
			e.host.LoseDevice()
		}
		s.at = p
		last := p.Epoch == p.Epochs && p.Step == p.Steps
		if last || time.Since(s.lastProgress) >= progressEvery {
			s.lastProgress = time.Now()
			e.emit(protocol.Event{Kind: protocol.EvProgress, Session: s.id, Run: s.cur,
				Progress: &protocol.Progress{Progress: p, Seconds: s.elapsed().Seconds()}})
			e.host.Yield()
		}
		if p.Step < p.Steps {
			// At the end of an epoch the save point waits for the
			// epoch's evaluation (see below).
			e.save(jr)
		}
	}
	afterEpoch := func() error {
		if err := jr.checkpoint(); err != nil {
			return err
		}
		e.save(jr)
		e.host.Yield()
		// An image run is evaluated at its end only: its evaluation (with
		// the BatchNorm recalibration) costs as much as many steps.
		if jr.image() == nil && !jr.run.Done() && time.Since(s.lastRefresh) >= refreshEvery {
			return e.refresh(s, jr, false)
		}
		if jr.image() != nil {
			// The history (and side by side, the heads' curves) grows
			// epoch by epoch.
			jr.report = reportJSON(jr.t)
			e.sendRun(s, s.cur)
		}
		return nil
	}
	phase := func(p experiment.Phase) {
		// A toy run evaluates both sets after every epoch, in less time
		// than a progress line stays: phases are lines like the steps'.
		if time.Since(s.lastProgress) < progressEvery {
			return
		}
		s.lastProgress = time.Now()
		e.emit(protocol.Event{Kind: protocol.EvPhase, Session: s.id, Run: s.cur, Phase: &p})
		e.host.Yield()
	}
	d := experiment.Driver{Progress: progress, Phase: phase, AfterEpoch: afterEpoch}
	if f, ok := e.host.(RunFolders); ok {
		if jr.dir == "" {
			dir, err := f.RunDir(s.id, s.cur, jr.job.Label)
			if err != nil {
				return err
			}
			jr.dir = dir
		}
		// Stopped, such a run goes back to its last whole epoch, which
		// its folder holds, so that it resumes after a restart too.
		d.Dir, d.Save, d.Figures = jr.dir, true, true
	}
	err := d.Drive(ctx, jr.t)
	var div *train.DivergedError
	switch {
	case errors.As(err, &div):
		// The run's outcome, not a failure: keep the last good checkpoint
		// and the history, and go on with the next run.
		jr.status = err.Error()
		jr.report = reportJSON(jr.t)
		jr.figs = jr.t.Figures()
		s.drawSide(jr)
		e.sendRun(s, s.cur)
		return nil
	case err != nil:
		return err
	}
	jr.status = statusDone
	e.draw(s, jr, true)
	return nil
}

// checkpoint keeps the model's state as safetensors (the last good epoch).
func (jr *jobRun) checkpoint() error {
	st, err := jr.run.Model.State()
	if err != nil {
		return fmt.Errorf("reading the checkpoint: %w", err)
	}
	b, err := safetensors.Encode(st)
	if err != nil {
		return fmt.Errorf("encoding the checkpoint: %w", err)
	}
	jr.ckpt, jr.newCkpt = b, true
	return nil
}

// refresh evaluates the run (its Finish) and draws it. While the run is
// still training (final false) an evaluation error only skips the
// consistency part.
func (e *Engine) refresh(s *session, jr *jobRun, final bool) error {
	err := jr.t.Finish()
	if err != nil && final {
		return err
	}
	if !final {
		jr.run.Report.Status = "training"
	}
	e.draw(s, jr, final)
	return nil
}

// draw rebuilds the figures and the report of an evaluated run and sends
// them; while the run trains (final false), only the live figures.
func (e *Engine) draw(s *session, jr *jobRun, final bool) {
	defer func() { s.lastRefresh = time.Now() }()
	figs := jr.t.Figures()
	if !final && jr.figs != nil {
		// While training, redraw only the embedding and the curves: the
		// other figures (thousands of SVG elements for the consistency
		// figure) keep their last drawing until the run ends or stops.
		for name, svg := range jr.figs {
			if !liveFigures[name] {
				figs[name] = svg
			}
		}
	} else if c := jr.run.ConsistencyFigure(); c != nil {
		figs["consistency.svg"] = c
	}
	jr.figs = figs
	s.drawSide(jr)
	jr.report = reportJSON(jr.t)
	e.sendRun(s, s.cur)
}

// sendRun sends run i's state: its status and report, the figures and the
// checkpoint that changed, and the overview's figures that changed.
func (e *Engine) sendRun(s *session, i int) {
	jr := s.runs[i]
	st := &protocol.RunState{Status: jr.status, Report: jr.report, Opened: jr.opened, Label: jr.job.Label}
	st.Figures = changed(jr.figs, jr.sent)
	ev := protocol.Event{Kind: protocol.EvRun, Session: s.id, Run: i, RunState: st}
	ev.Overview = changed(s.overviewFigures(), s.overview)
	if jr.newCkpt {
		ev.Checkpoint, st.Checkpoint, jr.newCkpt = jr.ckpt, true, false
	}
	e.emit(ev)
}

// changed returns the figures of now that differ from sent, and records
// them as sent.
func changed(now, sent map[string][]byte) protocol.Figures {
	var out protocol.Figures
	for name, svg := range now {
		if svg == nil || string(sent[name]) == string(svg) {
			continue
		}
		if out == nil {
			out = protocol.Figures{}
		}
		out[name] = string(svg)
		sent[name] = svg
	}
	return out
}

// reportJSON returns the run's report.json, or one that says why it cannot
// be encoded.
func reportJSON(t experiment.Trainable) []byte {
	b, err := experiment.ReportJSON(t)
	if err != nil {
		return []byte(fmt.Sprintf(`{"status": %q}`, err.Error()))
	}
	return b
}

// stopped finishes a stopped session: the current run's report and
// figures as they stand.
func (e *Engine) stopped(s *session) {
	jr := s.runs[s.cur]
	jr.status = statusStopped
	if jr.run != nil && len(jr.run.Report.History) > 0 {
		if err := e.refresh(s, jr, true); err != nil {
			e.failed(s, err)
			return
		}
	} else if jr.run != nil {
		// Stopped within the first epoch: nothing evaluated yet, but the
		// report says where the run stands.
		jr.run.Report.Status = statusStopped
		jr.report = reportJSON(jr.t)
	}
	e.sendRun(s, s.cur)
	e.emit(protocol.Event{Kind: protocol.EvStopped, Session: s.id, Run: s.cur})
}

// failed ends s with err or, when WebGPU failed, goes on with it on the
// CPU (see moveToCPU).
func (e *Engine) failed(s *session, err error) {
	if s.be != nil && experiment.BackendOf(s.be) == experiment.BackendWebGPU {
		if e.moveToCPU(s, err) {
			e.train(e.ctx, s)
		}
		return
	}
	if s.cur < len(s.runs) {
		jr := s.runs[s.cur]
		jr.status = "error: " + err.Error()
		if jr.run != nil {
			jr.run.Report.Status = jr.status
			jr.report = reportJSON(jr.t)
		}
		e.sendRun(s, s.cur)
	}
	e.emit(protocol.Event{Kind: protocol.EvFailed, Session: s.id, Run: s.cur, Error: err.Error()})
}
