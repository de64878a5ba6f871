package experiment

import (
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

// Phase is the progress of a part of a run other than its training steps
// (an evaluation, the BatchNorm recalibration): what it does and how many
// of its examples are done.
type Phase struct {
	Name  string `json:"name"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
}

// Names of the phases.
const (
	PhaseTest        = "evaluating the test set"
	PhaseTrain       = "evaluating the training set"
	PhaseVal         = "evaluating the held-out set"
	PhaseRecalibrate = "recomputing the BatchNorm statistics"
	PhaseOOD         = "evaluating the out-of-distribution set"
)

// evaluateSet evaluates m on set in batches of batch (train.Evaluate),
// telling onPhase (which may be nil) its progress as the phase name.
func evaluateSet(m *model.Model, set train.Dataset, batch int, name string, onPhase func(Phase)) (train.Outputs, error) {
	return train.Evaluate(m, set, batch, phaseProgress(name, set.Len(), onPhase))
}

// phaseProgress tells onPhase that the phase name over total examples
// starts, and returns the callback that tells it how many are done (nil
// when onPhase is nil).
func phaseProgress(name string, total int, onPhase func(Phase)) func(done int) {
	if onPhase == nil {
		return nil
	}
	onPhase(Phase{Name: name, Total: total})
	return func(done int) { onPhase(Phase{Name: name, Done: done, Total: total}) }
}

// testOutputs returns the evaluation-mode outputs on the test set: TestOut
// when it was evaluated on the model as it is, else a new evaluation.
func (r *Run) testOutputs() (train.Outputs, error) {
	if r.testAt == r.Model.Step()+1 {
		return r.TestOut, nil
	}
	out, err := evaluateSet(r.Model, r.TestSet, r.evalBatch, PhaseTest, r.OnPhase)
	if err != nil {
		return out, err
	}
	r.TestOut, r.testAt = out, r.Model.Step()+1
	return out, nil
}
