package experiment

import (
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// brief returns s without its reliability bins and confidence histogram:
// the test evaluations that the BatchNorm report compares.
func brief(s report.Split) report.Split {
	s.Reliability, s.ConfidenceHistogram = nil, nil
	return s
}

// BNReport records the BatchNorm recalibration: the test evaluation with
// the running statistics kept during training and with the recomputed
// ones. report.json's "test" and "train" are those of the recomputed
// statistics; "history" rows use the trained ones.
type BNReport struct {
	Batches int    `json:"batches"`
	Batch   int    `json:"batch"`
	Rule    string `json:"rule"`
	// TrainMode is the running training-mode accuracy of the last epoch.
	TrainMode *report.Float `json:"train_mode_accuracy,omitempty"`
	// Running and Recalibrated are the test evaluations (accuracy, NLL,
	// the calibration metrics of Scores; no bins) with either statistics.
	Running      report.Split `json:"running_stats"`
	Recalibrated report.Split `json:"recalibrated"`
}

// TemperatureReport records temperature scaling fitted on the held-out
// split: the temperature, the held-out NLL before and after, and the test
// ECE and NLL before and after (accuracy does not change).
type TemperatureReport struct {
	metrics.TemperatureFit
	ValExamples   int          `json:"val_examples"`
	TestECEBefore report.Float `json:"test_ece_before"`
	TestECEAfter  report.Float `json:"test_ece_after"`
	TestNLLBefore report.Float `json:"test_nll_before"`
	TestNLLAfter  report.Float `json:"test_nll_after"`
	// TestAfter is the test evaluation of the scaled logits (reliability
	// bins and confidence histogram included).
	TestAfter report.Split `json:"test_after"`
}

// FitTemperature fits temperature scaling on the held-out outputs val
// (labels valY) and evaluates the scaled test outputs.
func FitTemperature(val train.Outputs, valY []int32, test train.Outputs, testY []int32) (*TemperatureReport, error) {
	fit, err := metrics.FitTemperature(val.Scores, valY, val.C)
	if err != nil {
		return nil, err
	}
	before := evaluateSplit(test, testY, true)
	scaled := test
	scaled.Scores = metrics.ScaleLogits(test.Scores, fit.T)
	after := evaluateSplit(scaled, testY, true)
	return &TemperatureReport{
		TemperatureFit: fit, ValExamples: len(valY),
		TestECEBefore: before.ECE, TestECEAfter: after.ECE, TestNLLBefore: before.NLL, TestNLLAfter: after.NLL,
		TestAfter: after,
	}, nil
}

// bnRecalibration is a BatchNorm recalibration: the running statistics
// recomputed over k batches of the given size of train, drawn from seed
// (RecalibrateBatchNorm); rule says how k was chosen; onPhase, which may be
// nil, is told its progress.
type bnRecalibration struct {
	train    train.Dataset
	batch, k int
	seed     uint64
	rule     string
	onPhase  func(Phase)
}

// around takes the test evaluation of m with its running statistics from
// running, recalibrates them, then calls evaluate, which evaluates with the
// recomputed ones and returns the test split. It returns the report of
// both evaluations, nil when no batch was used (k is 0 or train empty; then
// only evaluate is called).
func (b bnRecalibration) around(m *model.Model, running func() (train.Outputs, error), testY []int32, evaluate func() (report.Split, error)) (*BNReport, error) {
	if b.k <= 0 || b.train.Len() == 0 {
		_, err := evaluate()
		return nil, err
	}
	out, err := running()
	if err != nil {
		return nil, err
	}
	before := evaluateSplit(out, testY, true)
	n, err := RecalibrateBatchNorm(m, b.train, b.batch, b.k, b.seed, phaseProgress(PhaseRecalibrate, min(b.k*b.batch, b.train.Len()), b.onPhase))
	if err != nil {
		return nil, fmt.Errorf("recalibrating BatchNorm: %w", err)
	}
	recalibrated, err := evaluate()
	if err != nil {
		return nil, err
	}
	return &BNReport{Batches: n, Batch: b.batch, Rule: b.rule, Running: brief(before), Recalibrated: brief(recalibrated)}, nil
}

// RecalibrateBatchNorm recomputes the BatchNorm running statistics of m
// (model.Model.RecalibrateBatchNorm) over the first k batches of the given
// size of a permutation of ds drawn from seed, without augmentation (the
// statistics serve evaluation, which sees unaugmented images). Fewer
// batches are used when ds is smaller than k batches. onBatch, which may
// be nil, is called after every batch with the number of examples done. It
// returns the number of batches used.
func RecalibrateBatchNorm(m *model.Model, ds train.Dataset, batch, k int, seed uint64, onBatch func(done int)) (int, error) {
	if k <= 0 || ds.Len() == 0 {
		return 0, nil
	}
	return m.RecalibrateBatchNorm(batchesOf(m.Backend, ds, batch, k, seed, onBatch))
}

// batchesOf yields the first k batches of a seeded permutation of ds,
// uploaded to be, calling onBatch (when not nil) after each.
func batchesOf(be kernels.Backend, ds train.Dataset, batch, k int, seed uint64, onBatch func(done int)) iter.Seq[kernels.Tensor] {
	return func(yield func(kernels.Tensor) bool) {
		batch = max(1, min(batch, ds.Len()))
		perm := rand.New(rand.NewPCG(seed, 0x626e)).Perm(ds.Len())
		size := ds.Size()
		full := be.Alloc(kernels.Float32, append([]int{batch}, ds.Shape...)...)
		defer be.Free(full)
		buf := make([]float32, batch*size)
		for b := 0; b < k && b*batch < ds.Len(); b++ {
			hi := min((b+1)*batch, ds.Len())
			idx := perm[b*batch : hi]
			for i, j := range idx {
				ds.Example(buf[i*size:(i+1)*size], j)
			}
			x := full
			if len(idx) != batch {
				x = be.View(full, 0, append([]int{len(idx)}, ds.Shape...)...)
			}
			be.Write(x, buf[:len(idx)*size])
			if !yield(x) {
				return
			}
			if onBatch != nil {
				onBatch(hi)
			}
		}
	}
}
