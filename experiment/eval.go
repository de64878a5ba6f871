package experiment

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// EvalResult is the evaluation of a model on a data set.
type EvalResult struct {
	Report *report.Report
	Out    train.Outputs
	Set    train.Dataset
	Model  *model.Model
	Extras ImageExtras
	names  []string
}

// Evaluate evaluates m on set (evaluation mode, batches of evalBatch) and
// returns a report of kind "eval" whose test split is set, with the head's
// parameters. onPhase, which may be nil, is told the evaluation's progress.
func Evaluate(m *model.Model, set train.Dataset, evalBatch int, config any, onPhase func(Phase)) (*EvalResult, error) {
	if err := checkSet(m, set); err != nil {
		return nil, err
	}
	out, err := evaluateSet(m, set, evalBatch, PhaseTest, onPhase)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Kind: ReportEval, Config: config, Backend: report.Backend{Info: m.Backend.Info()}, Status: "done"}
	rep.Test = evaluateSplit(out, set.Y, true)
	rep.Head, _, _ = headReport(m)
	return &EvalResult{Report: rep, Out: out, Set: set, Model: m}, nil
}

// checkSet checks that m takes the examples of set.
func checkSet(m *model.Model, set train.Dataset) error {
	if err := set.Validate(); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if kernels.Numel(m.Spec.Input) != set.Size() || set.Classes != m.Spec.Classes {
		return fmt.Errorf("the model takes %v images in %d classes; the data are %v images in %d classes", m.Spec.Input, m.Spec.Classes, set.Shape, set.Classes)
	}
	return nil
}

// MarshalJSON writes the report with the extras.
func (e *EvalResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		*report.Report
		ImageExtras
	}{e.Report, e.Extras})
}

// Figures returns embedding.svg (PCA of the embeddings for d > 2, with the
// LDA head's projected Gaussians), reliability.svg and confidence.svg, and
// with an out-of-distribution report ood_scores.svg and ood_roc.svg.
func (e *EvalResult) Figures() map[string][]byte {
	r := &Run{Model: e.Model, TestSet: e.Set, TestOut: e.Out, Report: e.Report}
	figs := map[string][]byte{}
	if e.Model.Spec.Dim > 2 {
		if svg := projectedEmbedding(r, e.names); svg != nil {
			figs["embedding.svg"] = svg
		}
	} else {
		figs["embedding.svg"] = r.embeddingFigure(plot.Figure{})
	}
	bins := plotBins(e.Report.Test.Reliability)
	figs["reliability.svg"] = plot.Reliability(plot.Figure{Title: "Reliability"}, bins, float64(e.Report.Test.ECE))
	figs["confidence.svg"] = plot.ConfidenceHistogram(plot.Figure{Title: "Confidence"}, bins, float64(e.Report.Test.Accuracy), float64(e.Report.Test.MeanConfidence))
	e.Extras.OOD.addFigures(figs)
	return figs
}

// Dump returns the embeddings z [N,d], the scores ("delta" for an LDA head,
// "logits" for softmax) [N,C] and the labels y [N] as a safetensors file.
func (e *EvalResult) Dump() *safetensors.File {
	f := safetensors.New()
	n := e.Set.Len()
	f.Set("z", safetensors.NewF32(e.Out.Z, n, e.Out.D))
	name := "delta"
	if e.Model.Spec.Head == model.HeadSoftmax {
		name = "logits"
	}
	f.Set(name, safetensors.NewF32(e.Out.Scores, n, e.Out.C))
	f.Set("y", safetensors.NewI32(e.Set.Y, n))
	spec, _ := json.Marshal(e.Model.Spec)
	f.Metadata[model.SpecKey] = string(spec)
	return f
}

// EvalConfig is the evaluation of a checkpoint on an image data set.
type EvalConfig struct {
	Checkpoint string `json:"checkpoint"`
	Data       string `json:"data"`
	DataDir    string `json:"datadir"`
	LimitTest  int    `json:"limit_test"`
	LimitTrain int    `json:"limit_train"` // recalibration images: the first N (0: all)
	EvalBatch  int    `json:"eval_batch"`  // 0: Batch
	// BNRecalibrate > 0 recomputes the BatchNorm statistics over that many
	// training batches of size Batch (a permutation drawn from Seed) and
	// reports both evaluations; 0 keeps the checkpoint's statistics.
	BNRecalibrate int    `json:"bn_recalibrate"`
	Batch         int    `json:"batch"`
	Seed          uint64 `json:"seed"`
	// OODConfig names the data set scored as out-of-distribution (see
	// DetectOOD), LimitTest images of its test split.
	OODConfig
}

// Validate reports the first invalid setting as a *SettingError.
func (c EvalConfig) Validate() error {
	if c.Checkpoint == "" {
		return settingError("checkpoint", "checkpoint is required")
	}
	return firstError(
		checkAtLeast("bn-recalibrate", c.BNRecalibrate, 0), // no automatic rule here
		checkSettings(&c),
		c.OODConfig.Check(c.Data),
	)
}

// EvaluateImages evaluates m, a model read from a checkpoint, on test: the
// one evaluation of a checkpoint, deeplda eval's and the engine's for the
// models the page opens. With c.BNRecalibrate > 0, it first evaluates with
// the model's running statistics, recomputes them over batches of
// trainSet and evaluates again, recording both in Extras.BatchNorm (the
// report's test split is then the recalibrated one). With ood, it then
// scores that set against the test set (Extras.OOD). onPhase, which may be
// nil, is told how each part progresses.
func EvaluateImages(m *model.Model, test, trainSet train.Dataset, ood *OODSet, c EvalConfig, onPhase func(Phase)) (*EvalResult, error) {
	if err := checkSet(m, test); err != nil {
		return nil, err
	}
	if c.EvalBatch == 0 {
		c.EvalBatch = c.Batch
	}
	if c.BNRecalibrate > 0 && trainSet.Len() == 0 {
		return nil, errors.New("BatchNorm recalibration needs training images")
	}
	bn := bnRecalibration{train: trainSet, batch: c.Batch, k: c.BNRecalibrate, seed: c.Seed, rule: fmt.Sprintf("-bn-recalibrate %d", c.BNRecalibrate), onPhase: onPhase}
	running := func() (train.Outputs, error) { return evaluateSet(m, test, c.EvalBatch, PhaseTest, onPhase) }
	var res *EvalResult
	rep, err := bn.around(m, running, test.Y, func() (split report.Split, err error) {
		if res, err = Evaluate(m, test, c.EvalBatch, c, onPhase); err != nil {
			return split, err
		}
		return res.Report.Test, nil
	})
	if err != nil {
		return nil, err
	}
	res.names = ClassNames(c.Data)
	res.Extras.BatchNorm = rep
	if ood != nil {
		if res.Extras.OOD, err = DetectOOD(m, res.Out, c.Data, ood, c.EvalBatch, onPhase); err != nil {
			return nil, err
		}
	}
	return res, nil
}
