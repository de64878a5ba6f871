// Package experiment runs the paper's experiments end to end, the same way
// from the native command and from the browser: it builds the data and the
// model, trains epoch by epoch, evaluates, and fills a report.Report with
// the figures' data.
package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// Run is one training run in progress: Epoch until Done, then Finish (as
// Driver.Drive does).
type Run struct {
	// HideDensity leaves the log density shading out of embedding.svg.
	HideDensity bool

	Model    *model.Model
	Trainer  *train.Trainer
	TrainSet train.Dataset
	TestSet  train.Dataset
	Report   *report.Report
	// OnPhase, which may be nil, is told how the evaluations progress
	// (Driver.Phase sets it).
	OnPhase func(Phase)
	// testAt is 1 + the model's step at which TestOut was evaluated, 0
	// when TestOut does not describe the model as it is.
	testAt int
	// TrainOut and TestOut are the evaluation-mode outputs after the last
	// evaluation (TrainOut only after Finish).
	TrainOut, TestOut train.Outputs
	evalBatch         int
	counts            stepCounts
	// epochRow, when set, adds to each epoch's history row before it is
	// recorded (an image run's figures with recalibrated BatchNorm).
	epochRow func(*report.Epoch) error
}

// The kinds of report.json (report.Report's Kind, SweepResult's): a toy
// run's, an image run's, a checkpoint's evaluation's and a lambda sweep's.
const (
	ReportSynth = "synth"
	ReportTrain = "train"
	ReportEval  = "eval"
	ReportSweep = "sweep"
)

// newRun builds the model and trainer.
func newRun(be kernels.Backend, kind string, config any, spec model.Spec, trainSet, testSet train.Dataset, cfg train.Config) (*Run, error) {
	if err := testSet.Validate(); err != nil {
		return nil, fmt.Errorf("test set: %w", err)
	}
	m, err := model.New(be, spec)
	if err != nil {
		return nil, err
	}
	tr, err := train.New(m, trainSet, cfg)
	if err != nil {
		return nil, err
	}
	r := &Run{Model: m, Trainer: tr, TrainSet: trainSet, TestSet: testSet, evalBatch: max(cfg.Batch, 256)}
	r.Report = &report.Report{Kind: kind, Config: config, Backend: report.Backend{Info: be.Info()}, Status: "training"}
	return r, nil
}

// Base returns r; image runs, which embed a Run, inherit it, so code that
// drives either kind can reach the common parts.
func (r *Run) Base() *Run { return r }

// MarshalJSON writes report.json of the run.
func (r *Run) MarshalJSON() ([]byte, error) { return json.Marshal(r.Report) }

// Done reports whether every epoch has run.
func (r *Run) Done() bool { return r.Trainer.Done() }

// Epoch trains one epoch (or the rest of an interrupted one), evaluates on
// the test set and appends a row to the history. See train.Trainer.RunEpoch
// for the errors.
func (r *Run) Epoch(ctx context.Context, onProgress func(train.Progress)) error {
	before := deviceCounters(r.Model.Backend)
	st, err := r.Trainer.RunEpoch(ctx, onProgress)
	if err != nil {
		return err
	}
	if c := r.counts.epoch(r.Model.Backend, before, r.Trainer.StepsPerEpoch()); c != nil {
		r.Report.WebGPUPerStep = c // kept after a move to the CPU backend
	}
	out, err := r.testOutputs()
	if err != nil {
		return err
	}
	test := evaluateSplit(out, r.TestSet.Y, false)
	row := report.Epoch{
		Epoch: st.Epoch, Loss: report.Float(st.Loss), TrainAccuracy: report.Float(st.Accuracy),
		TestAccuracy: test.Accuracy, TestECE: test.ECE, Seconds: report.Float(r.Trainer.Elapsed().Seconds()),
	}
	if h, _, ok := headReport(r.Model); ok {
		row.LogDetCov, row.Sigma = h.LogDetCov, h.Sigma
	}
	if r.epochRow != nil {
		if err := r.epochRow(&row); err != nil {
			return err
		}
	}
	r.Report.History = append(r.Report.History, row)
	r.Report.Test = test
	r.Report.Seconds = report.Float(r.Trainer.Elapsed().Seconds())
	return nil
}

// Finish evaluates the model on both splits (the test set only when the
// model changed since its last evaluation) and fills the rest of the
// report: the head, and for LDA heads the consistency with the closed-form
// refit on the training embeddings.
func (r *Run) Finish() error {
	var err error
	if r.TrainOut, err = evaluateSet(r.Model, r.TrainSet, r.evalBatch, PhaseTrain, r.OnPhase); err != nil {
		return err
	}
	if _, err = r.testOutputs(); err != nil {
		return err
	}
	rep := r.Report
	rep.Train = evaluateSplit(r.TrainOut, r.TrainSet.Y, true)
	rep.Test = evaluateSplit(r.TestOut, r.TestSet.Y, true)
	rep.Seconds = report.Float(r.Trainer.Elapsed().Seconds())
	if r.Done() {
		rep.Status = "done"
	} else {
		rep.Status = "stopped"
	}
	var g model.Gaussian
	var lda bool
	if rep.Head, g, lda = headReport(r.Model); !lda {
		return nil // softmax head
	}
	refit, err := metrics.FitLDA(metrics.Float64s(r.TrainOut.Z), r.TrainSet.Y, r.TrainOut.C, r.TrainOut.D)
	if err != nil {
		return fmt.Errorf("refitting LDA on the training embeddings: %w", err)
	}
	learned := metrics.LDA{Pi: g.Pi, Mu: g.Mu, Sigma: g.Sigma}
	c := &report.Consistency{RefitMu: report.Matrix(refit.Mu), RefitCov: report.Matrix(refit.Sigma)}
	shift, kl, err := metrics.Consistency(learned, refit)
	if err != nil {
		// A collapsed covariance (NLL) can be numerically singular: report
		// infinities rather than fail the run.
		shift, kl = math.Inf(1), math.Inf(1)
	}
	c.MeanShift, c.KL = report.Float(shift), report.Float(kl)
	rep.Consistency = c
	return nil
}

// headReport returns the report of m's head and, for an LDA head (lda
// true), its Gaussian model.
func headReport(m *model.Model) (h report.Head, g model.Gaussian, lda bool) {
	h = report.Head{Kind: m.Spec.Head.String()}
	g, err := m.Gaussian()
	if err != nil {
		return h, g, false
	}
	ld := report.Float(g.LogDet)
	h.CovKind = m.Spec.Cov.String()
	h.Pi, h.Mu, h.Cov, h.LogDetCov = report.Floats(g.Pi), report.Matrix(g.Mu), report.Matrix(g.Sigma), &ld
	if m.Spec.Cov == kernels.Spherical {
		s := report.Float(math.Sqrt(g.Sigma[0][0]))
		h.Sigma = &s
	}
	return h, g, true
}

// reliabilityBins are the bins of the reliability diagrams, the ECE and the
// confidence histograms.
const reliabilityBins = 10

// Bootstrap's settings for the intervals of report.json's splits: 1,000
// resamples, 95%, and a fixed seed, so that a report is the same on every
// run of the same model.
const (
	bootstrapResamples = 1000
	bootstrapLevel     = 0.95
	bootstrapSeed      = 1
)

// evaluateSplit computes accuracy, NLL and the calibration metrics of
// Scores from scores, and with intervals the bootstrap intervals of the
// accuracy and the ECE (the evaluations after each epoch go without, which
// would cost the toy's runs more than their training).
func evaluateSplit(out train.Outputs, y []int32, intervals bool) report.Split {
	n, c := len(y), out.C
	probs := metrics.Softmax(out.Scores, c)
	conf, pred := metrics.Confidences(probs, c)
	correct := make([]bool, n)
	var sum float64
	for i, p := range pred {
		correct[i] = p == int(y[i])
		sum += conf[i]
	}
	s := report.Split{
		Examples:            n,
		Accuracy:            report.Float(metrics.Accuracy(pred, y)),
		NLL:                 report.Float(metrics.NLL(out.Scores, y, c)),
		ConfidenceHistogram: metrics.ConfidenceHistogram(conf, reliabilityBins),
		MeanConfidence:      report.Float(sum / float64(max(n, 1))),
	}
	if intervals {
		acc, ece := metrics.Bootstrap(conf, correct, reliabilityBins, bootstrapResamples, bootstrapLevel, bootstrapSeed)
		s.AccuracyCI = &[2]report.Float{report.Float(acc.Lo), report.Float(acc.Hi)}
		s.ECECI = &[2]report.Float{report.Float(ece.Lo), report.Float(ece.Hi)}
	}
	p := Predictions{Probs: probs, C: c, Y: y, Conf: conf, Correct: correct}
	for _, sc := range CalibrationScores() {
		s.SetMetric(sc.Name, report.Float(sc.Calibration(p)))
	}
	for _, b := range metrics.Reliability(conf, correct, reliabilityBins) {
		s.Reliability = append(s.Reliability, report.Bin{Lo: report.Float(b.Lo), Hi: report.Float(b.Hi), Count: b.Count, Accuracy: report.Float(b.Accuracy), Confidence: report.Float(b.Confidence)})
	}
	return s
}
