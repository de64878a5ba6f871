//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"syscall/js"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
	"github.com/deeplda/deeplda/wasm/config"
)

// Run statuses shown in the summary (a diverged run shows its message).
const (
	statusWaiting  = "waiting"
	statusTraining = "training"
	statusStopped  = "stopped"
	statusDone     = "done"
)

// refreshEvery is the least time between two live redraws of the figures
// (each evaluates both splits and rebuilds the SVGs).
const refreshEvery = time.Second

// liveFigures are the figures redrawn while a run trains.
var liveFigures = map[string]bool{"embedding.svg": true, "curves.svg": true, "accuracy.svg": true, "logdet.svg": true}

// jobRun is one run of a session and what the page shows of it.
type jobRun struct {
	job    config.Job
	t      experiment.Trainable // the run: a toy run or an image run
	run    *experiment.Run      // t.Base(); nil before the run is built
	figs   map[string][]byte    // the run's figures by file name
	report []byte               // report.json
	ckpt   []byte               // the last good checkpoint (safetensors)
	status string
	opened bool       // evaluated from a trained model's checkpoint, not trained here
	safe   *savePoint // the last host copy of a WebGPU run (see moveToCPU)
}

// image returns the run when it is an image run, else nil.
func (jr *jobRun) image() *experiment.ImageRun {
	img, _ := jr.t.(*experiment.ImageRun)
	return img
}

// release frees the GPU (or host) memory of the run's model; its figures,
// report and checkpoint stay.
func (jr *jobRun) release() {
	if jr.run != nil {
		jr.run.Model.Release()
		jr.t, jr.run = nil, nil
	}
}

// release frees the GPU (or host) memory of the session's models; its
// figures, reports and checkpoints stay.
func (s *session) release() {
	for _, jr := range s.runs {
		jr.release()
	}
}

// session is what one press of Train does: its runs, trained one after the
// other on one backend, with stop and resume.
type session struct {
	settings config.Settings
	runs     []*jobRun
	cur      int // the run in progress
	be       kernels.Backend
	cancel   context.CancelFunc
	picked   int            // the run whose figures are shown; -1 follows cur
	active   time.Duration  // training wall time before the current stretch
	started  time.Time      // start of the current stretch
	at       train.Progress // the current run's last progress report
}

// newSession plans the runs of s.
func newSession(s config.Settings) (*session, error) {
	jobs, err := s.Jobs()
	if err != nil {
		return nil, err
	}
	ss := &session{settings: s, picked: -1}
	for _, j := range jobs {
		ss.runs = append(ss.runs, &jobRun{job: j, status: statusWaiting})
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

// elapsed returns the session's training wall time.
func (s *session) elapsed() time.Duration {
	if s.started.IsZero() {
		return s.active
	}
	return s.active + time.Since(s.started)
}

// train runs (or resumes) the session in the calling goroutine: every run
// to the end, or until Stop. It never panics: a panic becomes the error
// state.
func (a *app) train(s *session) {
	defer func() {
		if r := recover(); r != nil {
			consoleError(fmt.Sprintf("deeplda: panic: %v\n%s", r, debug.Stack()))
			a.failed(s, fmt.Errorf("internal error: %v", r))
		}
	}()
	if s.be == nil {
		be, why := a.backends.get(s.settings.Backend)
		s.be = be
		a.showBackend(be, why)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.started = time.Now()
	defer func() {
		s.active += time.Since(s.started)
		s.started = time.Time{}
		cancel()
	}()
	for s.cur < len(s.runs) {
		err := a.trainRun(ctx, s, s.runs[s.cur])
		switch {
		case err == nil:
			s.cur++
		case errors.Is(err, context.Canceled):
			a.stopped(s)
			return
		case errors.As(err, new(*dataError)):
			a.noData(s, err)
			return
		case experiment.BackendOf(s.be) == experiment.BackendWebGPU:
			if !a.moveToCPU(s, err) {
				return
			}
		default:
			a.failed(s, err)
			return
		}
	}
	s.cur = len(s.runs) - 1
	a.finished(s)
}

// newRun prepares jr's run on the session's backend.
func (a *app) newRun(s *session, jr *jobRun) error {
	var t experiment.Trainable
	var err error
	if c := jr.job.Image; c != nil {
		t, err = a.newImageRun(s, c)
	} else {
		t, err = experiment.NewSynth(s.be, jr.job.Synth)
	}
	if err != nil {
		return err
	}
	run := t.Base()
	run.HideDensity = !s.settings.Density
	run.Yield = a.yield.maybe
	if experiment.BackendOf(s.be) == experiment.BackendCPU {
		// Reading the statistics back is free on the CPU: report (and so
		// yield to the browser) after every step.
		run.Trainer.Cfg.ReportEvery = 1
	}
	jr.t, jr.run = t, run
	return nil
}

// trainRun trains one run to its end, redrawing its figures live.
func (a *app) trainRun(ctx context.Context, s *session, jr *jobRun) error {
	if jr.run == nil {
		s.at = train.Progress{}
		if err := a.newRun(s, jr); err != nil {
			return err
		}
	}
	jr.status = statusTraining
	a.view.update(s)
	progress := func(p train.Progress) {
		if a.debugPanic {
			a.debugPanic = false
			panic("debug=panic: a deliberate panic to test the recovery")
		}
		if a.debugLose && jr.safe != nil && 2*p.TotalStep >= p.Epochs*p.Steps && experiment.BackendOf(s.be) == experiment.BackendWebGPU {
			a.debugLose = false
			loseDevices()
		}
		s.at = p
		a.progress(s, p)
		if p.Step < p.Steps {
			// At the end of an epoch the save point waits for the
			// epoch's evaluation (see below).
			a.save(jr)
		}
		a.yield.maybe()
	}
	afterEpoch := func() error {
		if err := a.checkpoint(jr); err != nil {
			return err
		}
		a.save(jr)
		a.yield.maybe()
		// An image run is evaluated at its end only: its evaluation (with
		// the BatchNorm recalibration) costs as much as many steps.
		if jr.image() == nil && !jr.run.Done() && time.Since(a.lastRefresh) >= refreshEvery {
			return a.refresh(s, jr, false)
		}
		if jr.image() != nil && len(s.runs) > 1 {
			// Side by side, the heads' curves grow epoch by epoch from
			// the history (the epoch's test accuracy and ECE).
			a.view.update(s)
		}
		return nil
	}
	// The evaluations say how far they are, and let the page redraw.
	phase := func(p experiment.Phase) {
		a.setProgressText(fmt.Sprintf("%s%s: %d / %d images", strings.ToUpper(p.Name[:1]), p.Name[1:], p.Done, p.Total))
		a.yield.maybe()
	}
	err := experiment.Driver{Progress: progress, Phase: phase, AfterEpoch: afterEpoch}.Drive(ctx, jr.t)
	var div *train.DivergedError
	switch {
	case errors.As(err, &div):
		// The run's outcome, not a failure of the page: keep the last good
		// checkpoint and the history, and go on with the next run.
		jr.status = err.Error()
		jr.report = reportJSON(jr.t)
		jr.figs = jr.t.Figures()
		a.view.update(s)
		return nil
	case err != nil:
		return err
	}
	jr.status = statusDone
	a.draw(s, jr, true)
	return nil
}

// checkpoint keeps the model's state as safetensors (the last good epoch).
func (a *app) checkpoint(jr *jobRun) error {
	st, err := jr.run.Model.State()
	if err != nil {
		return fmt.Errorf("reading the checkpoint: %w", err)
	}
	b, err := safetensors.Encode(st)
	if err != nil {
		return fmt.Errorf("encoding the checkpoint: %w", err)
	}
	jr.ckpt = b
	return nil
}

// refresh evaluates the run (its Finish) and draws it. While the run is
// still training (final false) an evaluation error only skips the
// consistency part.
func (a *app) refresh(s *session, jr *jobRun, final bool) error {
	err := jr.t.Finish()
	if err != nil && final {
		return err
	}
	if !final {
		jr.run.Report.Status = "training"
	}
	a.draw(s, jr, final)
	return nil
}

// draw rebuilds the figures and the report of an evaluated run and
// redraws the page; while the run trains (final false), only the live
// figures.
func (a *app) draw(s *session, jr *jobRun, final bool) {
	defer func() { a.lastRefresh = time.Now() }()
	a.yield.now()
	figs := jr.t.Figures()
	a.yield.now()
	if !final && jr.figs != nil {
		// While training, redraw only the embedding and the curves: the
		// other figures (thousands of SVG elements for the consistency
		// figure) keep their last drawing until the run ends or stops.
		for name, svg := range jr.figs {
			if !liveFigures[name] {
				figs[name] = svg
			}
		}
	} else if c := consistencyFigure(jr.run); c != nil {
		figs["consistency.svg"] = c
	}
	jr.figs = figs
	jr.report = reportJSON(jr.t)
	a.yield.now()
	a.view.update(s)
	a.yield.now()
}

// newImageRun loads the data of an image run (the site's copy or the
// user's files) and prepares the run on the session's backend.
func (a *app) newImageRun(s *session, c *experiment.ImageConfig) (*experiment.ImageRun, error) {
	data, err := a.data.get(c.Data)
	if err != nil {
		return nil, &dataError{err}
	}
	a.data.describe()
	a.setProgressText("Preparing the run…")
	a.yield.now()
	be := s.be
	if experiment.BackendOf(be) == experiment.BackendCPU {
		// Convolutions a few images at a time, with yields between.
		be = &yieldingBackend{Backend: be, y: &a.yield}
	}
	run, err := experiment.NewImagesFrom(be, *c, data)
	if err != nil {
		return nil, err
	}
	run.OOD = a.data.oodSet(c)
	return run, nil
}

// dataError is a problem with the data of an image run: it is shown next
// to the data controls, and the page stays usable.
type dataError struct{ err error }

func (e *dataError) Error() string { return e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// reportJSON returns the run's report.json, or one that says why it
// cannot be encoded.
func reportJSON(t experiment.Trainable) []byte {
	b, err := experiment.ReportJSON(t)
	if err != nil {
		return []byte(fmt.Sprintf(`{"status": %q}`, err.Error()))
	}
	return b
}

// stopped shows a stopped session: the current run's report and figures as
// they stand, and Resume.
func (a *app) stopped(s *session) {
	jr := s.runs[s.cur]
	jr.status = statusStopped
	if jr.run != nil && len(jr.run.Report.History) > 0 {
		if err := a.refresh(s, jr, true); err != nil {
			a.failed(s, err)
			return
		}
	} else if jr.run != nil {
		// Stopped within the first epoch: nothing evaluated yet, but the
		// report says where the run stands.
		jr.run.Report.Status = statusStopped
		jr.report = reportJSON(jr.t)
	}
	a.view.update(s)
	a.setProgressText(fmt.Sprintf("Stopped during run %d of %d (%s). Resume continues at the same step.", s.cur+1, len(s.runs), jr.job.Label))
	a.setIdle(true)
	setState("idle")
}

// finished shows a completed session.
func (a *app) finished(s *session) {
	a.view.update(s)
	a.setProgress(1)
	runs := "1 run"
	if len(s.runs) > 1 {
		runs = fmt.Sprintf("%d runs", len(s.runs))
	}
	a.setProgressText(fmt.Sprintf("Done: %s in %.1f s on %s.", runs, s.elapsed().Seconds(), backendBadge(s.be)))
	a.setIdle(false)
	setState("done")
}

// failed shows an error, or, when WebGPU fails, continues the session on the
// CPU (see moveToCPU).
func (a *app) failed(s *session, err error) {
	defer func() {
		// Showing the error must not fail in turn: fall back to the bare
		// error state.
		if r := recover(); r != nil {
			consoleError(fmt.Sprintf("deeplda: panic while showing an error: %v\n%s", r, debug.Stack()))
			fatal(fmt.Sprintf("%v (and then: %v)", err, r))
		}
	}()
	if s.be != nil && experiment.BackendOf(s.be) == experiment.BackendWebGPU {
		if a.moveToCPU(s, err) {
			go a.train(s)
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
	}
	a.view.update(s)
	a.showError(err.Error())
	a.setProgressText("Training failed: " + err.Error())
	a.setIdle(false)
	setState("error")
}

// noData shows a problem with an image run's data next to the data
// controls and returns the page to idle: nothing was trained.
func (a *app) noData(s *session, err error) {
	a.data.msg.SetTextContent(err.Error())
	a.data.describe()
	if a.sess == s {
		a.sess = nil
		a.view.reset(nil)
	}
	a.setProgressText("Not started: " + err.Error())
	a.setIdle(false)
	setState("idle")
}

// loseDevices destroys the WebGPU devices that site/app.js kept
// (debug=lose-device): the backend's next operations fail as on a lost
// device.
func loseDevices() {
	devs := js.Global().Get("__deepldaDevices")
	if !devs.Truthy() {
		return
	}
	consoleWarn("deeplda: debug=lose-device: destroying the WebGPU device")
	for i := range devs.Length() {
		devs.Index(i).Call("destroy")
	}
}
