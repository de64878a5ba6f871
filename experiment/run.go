// Package experiment runs the paper's experiments end to end, the same way
// from the native command and from the browser: it builds the data and the
// model, trains epoch by epoch, evaluates, and fills a report.Report with
// the figures' data.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// Run is one training run in progress: call Epoch until Done, then Finish.
type Run struct {
	Model    *model.Model
	Trainer  *train.Trainer
	TrainSet train.Dataset
	TestSet  train.Dataset
	Report   *report.Report
	// TrainOut and TestOut are the evaluation-mode outputs after the last
	// evaluation (TrainOut only after Finish).
	TrainOut, TestOut train.Outputs
	evalBatch         int
	counts            stepCounts
}

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
	r.Report = &report.Report{Kind: kind, Config: config, Backend: be.Info(), Status: "training"}
	return r, nil
}

// Base returns r; image runs, which embed a Run, inherit it, so code that
// drives either kind can reach the common parts.
func (r *Run) Base() *Run { return r }

// WriteReport writes report.json to dir.
func (r *Run) WriteReport(dir string) error { return r.Report.Write(dir) }

// Done reports whether every epoch has run.
func (r *Run) Done() bool { return r.Trainer.Done() }

// Epoch trains one epoch (or the rest of an interrupted one), evaluates on
// the test set and appends a row to the history. See train.Trainer.RunEpoch
// for the errors.
func (r *Run) Epoch(ctx context.Context, onProgress func(train.Progress)) error {
	before := deviceCounters(r.Model.Backend)
	st, err := r.Trainer.RunEpoch(ctx, onProgress)
	if err != nil {
		var div *train.DivergedError
		if errors.As(err, &div) {
			r.Report.Status = err.Error()
		}
		return err
	}
	if c := r.counts.epoch(r.Model.Backend, before, r.Trainer.StepsPerEpoch()); c != nil {
		r.Report.WebGPUPerStep = c // kept after a move to the CPU backend
	}
	out, err := train.Evaluate(r.Model, r.TestSet, r.evalBatch)
	if err != nil {
		return err
	}
	r.TestOut = out
	test := evaluateSplit(out, r.TestSet.Y)
	row := report.Epoch{
		Epoch: st.Epoch, Loss: report.Float(st.Loss), TrainAccuracy: report.Float(st.Accuracy),
		TestAccuracy: test.Accuracy, TestECE: test.ECE, Seconds: report.Float(r.Trainer.Elapsed().Seconds()),
	}
	if g, err := r.Model.Gaussian(); err == nil {
		ld := report.Float(g.LogDet)
		row.LogDetCov = &ld
		if r.Model.Spec.Cov == kernels.Spherical {
			s := report.Float(math.Sqrt(g.Sigma[0][0]))
			row.Sigma = &s
		}
	}
	r.Report.History = append(r.Report.History, row)
	r.Report.Test = test
	r.Report.Seconds = report.Float(r.Trainer.Elapsed().Seconds())
	return nil
}

// Finish evaluates the model on both splits and fills the rest of the
// report: the head, and for LDA heads the consistency with the closed-form
// refit on the training embeddings.
func (r *Run) Finish() error {
	var err error
	if r.TrainOut, err = train.Evaluate(r.Model, r.TrainSet, r.evalBatch); err != nil {
		return err
	}
	if r.TestOut, err = train.Evaluate(r.Model, r.TestSet, r.evalBatch); err != nil {
		return err
	}
	rep := r.Report
	rep.Train = evaluateSplit(r.TrainOut, r.TrainSet.Y)
	rep.Test = evaluateSplit(r.TestOut, r.TestSet.Y)
	rep.Seconds = report.Float(r.Trainer.Elapsed().Seconds())
	rep.Head = report.Head{Kind: r.Model.Spec.Head}
	if r.Done() {
		rep.Status = "done"
	} else {
		rep.Status = "stopped"
	}
	g, err := r.Model.Gaussian()
	if err != nil {
		return nil // softmax head
	}
	ld := report.Float(g.LogDet)
	rep.Head.CovKind = r.Model.Spec.Cov.String()
	rep.Head.Pi, rep.Head.Mu, rep.Head.Cov, rep.Head.LogDetCov = report.Floats(g.Pi), report.Matrix(g.Mu), report.Matrix(g.Sigma), &ld
	if r.Model.Spec.Cov == kernels.Spherical {
		s := report.Float(math.Sqrt(g.Sigma[0][0]))
		rep.Head.Sigma = &s
	}
	refit, err := metrics.FitLDA(toFloat64(r.TrainOut.Z), r.TrainSet.Y, r.TrainOut.C, r.TrainOut.D)
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

func toFloat64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// evaluateSplit computes accuracy, calibration and NLL from scores.
func evaluateSplit(out train.Outputs, y []int32) report.Split {
	n, c := len(y), out.C
	conf := make([]float64, n)
	correct := make([]bool, n)
	hits := 0
	for i := 0; i < n; i++ {
		p := metrics.Softmax(out.Scores[i*c:(i+1)*c], c)
		best := 0
		for k := range p {
			if p[k] > p[best] {
				best = k
			}
		}
		conf[i] = p[best]
		correct[i] = best == int(y[i])
		if correct[i] {
			hits++
		}
	}
	s := report.Split{
		Examples: n,
		Accuracy: report.Float(float64(hits) / float64(max(n, 1))),
		ECE:      report.Float(metrics.ECE(conf, correct, 10)),
		ECE15:    report.Float(metrics.ECE(conf, correct, 15)),
		NLL:      report.Float(metrics.NLL(out.Scores, y, c)),
	}
	var sum float64
	for _, b := range metrics.Reliability(conf, correct, 10) {
		s.Reliability = append(s.Reliability, report.Bin{Lo: report.Float(b.Lo), Hi: report.Float(b.Hi), Count: b.Count, Accuracy: report.Float(b.Accuracy), Confidence: report.Float(b.Confidence)})
		s.ConfidenceHistogram = append(s.ConfidenceHistogram, b.Count)
	}
	for _, v := range conf {
		sum += v
	}
	s.MeanConfidence = report.Float(sum / float64(max(n, 1)))
	return s
}
