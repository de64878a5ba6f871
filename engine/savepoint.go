package engine

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
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
// last one is old enough (see saveRatio). It must be called between steps.
// A save point that cannot be read back is skipped: the GPU's error comes
// back from the trainer's next read.
func (e *Engine) save(jr *jobRun) {
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
// (EvMoved). With backend auto it returns true: the caller trains on. With
// backend webgpu the session stops there (resume continues it on the
// CPU), and when the CPU cannot take the run over the session fails; it
// returns false.
func (e *Engine) moveToCPU(s *session, err error) bool {
	jr := s.runs[s.cur]
	jr.release()
	e.backends.broken("during training", err)
	s.be = e.backends.cpuBackend()
	if rerr := e.newRun(s, jr); rerr != nil {
		e.failed(s, fmt.Errorf("%v; then, moving to the CPU: %w", err, rerr))
		return false
	}
	m := &protocol.Moved{Error: err.Error(), DeviceLost: errors.Is(err, kernels.ErrDeviceLost), LostStep: s.at.TotalStep,
		Stopped: s.start.Backend != experiment.BackendAuto}
	if p := s.at; p.TotalStep > 0 {
		m.LostAt = [2]int{p.Epoch - 1, p.Step}
	}
	if sp := jr.safe; sp != nil {
		if rerr := jr.run.Trainer.Restore(sp.snap); rerr != nil {
			e.failed(s, fmt.Errorf("%v; then, moving to the CPU: %w", err, rerr))
			return false
		}
		r := jr.run
		r.Report.History, r.Report.Test, r.TestOut = slices.Clone(sp.history), sp.test, sp.testOut
		m.ResumeStep = sp.snap.TotalStep(r.Trainer.StepsPerEpoch())
		m.ResumeAt = [2]int{sp.snap.Epoch, sp.snap.Step}
		m.KeptEpochs = len(sp.history)
	}
	jr.safe = nil
	jr.run.Report.BackendMoves = append(jr.run.Report.BackendMoves, report.BackendMove{From: "webgpu", To: s.be.Info().Name,
		Error: err.Error(), LostStep: m.LostStep, ResumeStep: m.ResumeStep, KeptEpochs: m.KeptEpochs})
	e.emit(protocol.Event{Kind: protocol.EvMoved, Session: s.id, Run: s.cur, Moved: m, Backend: backendOf(s.be, "")})
	if !m.Stopped {
		return true
	}
	e.stopped(s)
	return false
}
