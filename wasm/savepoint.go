//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/webgpu"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// savePoint is a host copy of a run that trains on WebGPU, taken between
// two steps: the trainer's snapshot (weights, BatchNorm statistics, Adam's
// moments and step, the place in the data and the generator's state) and
// what the report held then. When the GPU fails (a lost device leaves its
// memory unreadable), the run continues on the CPU from it.
type savePoint struct {
	snap    *train.Snapshot
	history []report.Epoch
	test    report.Split
	testOut train.Outputs
	took    time.Duration // how long taking it took
	at      time.Time     // when it was taken
}

// saveRatio bounds the time save points take: a new one is taken when the
// time since the last one is saveRatio times what that one took (2%).
const saveRatio = 50

// save takes a save point of jr's run when it trains on WebGPU and the
// last one is old enough (see saveRatio). It must be called between steps
// (from onProgress or between epochs). A save point that cannot be read
// back is skipped: the GPU's error comes back from the trainer's next read.
func (a *app) save(jr *jobRun) {
	r := jr.run
	if experiment.BackendOf(r.Model.Backend) != experiment.BackendWebGPU {
		return
	}
	if last := jr.safe; last != nil && time.Since(last.at) < saveRatio*last.took {
		return
	}
	start := time.Now()
	snap, err := r.Trainer.Snapshot()
	if err != nil {
		return
	}
	jr.safe = &savePoint{snap: snap, history: slices.Clone(r.Report.History), test: r.Report.Test,
		testOut: r.TestOut, took: time.Since(start), at: time.Now()}
}

// moveToCPU goes on with the session on the CPU backend after WebGPU
// failed with err (a lost device, most often): it rebuilds the current run
// on the CPU from its last save point (from the start when it has none;
// the runs before it are done, those after it run on the CPU) and says so
// in the notice. With backend auto it returns true: the caller trains on.
// With backend webgpu the session stops there (Resume continues it on the
// CPU), and when the CPU cannot take the run over it shows the error; it
// returns false.
func (a *app) moveToCPU(s *session, err error) bool {
	jr := s.runs[s.cur]
	jr.release()
	a.backends.broken("during training", err)
	s.be = a.backends.cpu
	if rerr := a.newRun(s, jr); rerr != nil {
		a.failed(s, fmt.Errorf("%v; then, moving to the CPU: %w", err, rerr))
		return false
	}
	resume, kept, from := 0, 0, "from the start"
	if sp := jr.safe; sp != nil {
		if rerr := jr.run.Trainer.Restore(sp.snap); rerr != nil {
			a.failed(s, fmt.Errorf("%v; then, moving to the CPU: %w", err, rerr))
			return false
		}
		r := jr.run
		r.Report.History, r.Report.Test, r.TestOut = slices.Clone(sp.history), sp.test, sp.testOut
		resume = sp.snap.TotalStep(r.Trainer.StepsPerEpoch())
		from = "after " + position(sp.snap.Epoch, sp.snap.Step)
		if kept = len(sp.history); kept > 0 {
			from += fmt.Sprintf(" (the %d epochs trained on WebGPU stay in the history)", kept)
		}
	}
	jr.safe = nil
	what := "WebGPU failed"
	if errors.Is(err, webgpu.ErrDeviceLost) {
		what = "The WebGPU device was lost"
	}
	lost := "before the first step"
	if p := s.at; p.TotalStep > 0 {
		lost = "at " + position(p.Epoch-1, p.Step)
	}
	notice := fmt.Sprintf("%s %s (%v). ", what, lost, err)
	state := "the last state kept on the host: same weights, BatchNorm statistics, Adam moments and data order"
	body := doc.(dom.HTMLDocument).Body()
	for i, v := range []int{s.at.TotalStep, resume, kept} {
		body.SetAttribute(moveMarks[i], strconv.Itoa(v))
	}
	jr.run.Report.BackendMoves = append(jr.run.Report.BackendMoves, report.BackendMove{From: "webgpu", To: s.be.Info().Name,
		Error: err.Error(), LostStep: s.at.TotalStep, ResumeStep: resume, KeptEpochs: kept})
	if s.settings.Backend == experiment.BackendAuto {
		a.showBackend(s.be, notice+fmt.Sprintf("Training continues on the CPU backend (Go compiled to WebAssembly) %s, %s.", from, state))
		return true
	}
	a.showBackend(s.be, notice+fmt.Sprintf("The run stopped; Resume continues it on the CPU backend (Go compiled to WebAssembly) %s, %s.", from, state))
	a.stopped(s)
	a.setProgressText(fmt.Sprintf("Stopped: WebGPU failed. Resume continues on the CPU %s.", from))
	return false
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
