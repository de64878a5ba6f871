package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// ImageRun is an image classification run: a Run plus the held-out split
// and the evaluations that only image runs have (BatchNorm recalibration,
// temperature scaling).
type ImageRun struct {
	*Run
	// OOD, when set, is scored against the test set by Finish
	// (Extras.OOD).
	OOD    *OODSet
	Config ImageConfig // resolved
	Val    train.Dataset
	// BNBatches is the resolved number of recalibration batches (0: off).
	BNBatches int
	Extras    ImageExtras
	// ValOut is the evaluation-mode output on Val after Finish.
	ValOut train.Outputs
	// Notes are what the run's settings became that they do not say
	// (a -limit-test beyond the test set, see LimitNote).
	Notes []string
}

// ImageExtras are the parts of an image run's report.json beyond
// report.Report.
type ImageExtras struct {
	BatchNorm   *BNReport          `json:"batchnorm,omitempty"`
	Temperature *TemperatureReport `json:"temperature_scaling,omitempty"`
	OOD         *OODReport         `json:"ood,omitempty"`
}

// NewImages loads c's data set from c.DataDir and prepares a run on be.
func NewImages(be kernels.Backend, c ImageConfig) (*ImageRun, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	data, err := LoadImageData(context.Background(), c, false)
	if err != nil {
		return nil, err
	}
	return NewImagesFrom(be, c, data)
}

// NewImagesFrom prepares a run of c on data already loaded (a sweep loads
// its data once).
func NewImagesFrom(be kernels.Backend, c ImageConfig, data ImageData) (*ImageRun, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.Resolved()
	if data.Train == nil || data.Test == nil {
		return nil, errors.New("no data loaded")
	}
	ds, err := images.Lookup(c.Data)
	if err != nil {
		return nil, fmt.Errorf("-data: %w", err)
	}
	for _, s := range []*images.Set{data.Train, data.Test} {
		if s.Shape != ds.Shape || s.Classes != ds.Classes {
			return nil, fmt.Errorf("%s has %v images in %d classes; %s has %v in %d", s.Name, s.Shape, s.Classes, c.Data, ds.Shape, ds.Classes)
		}
	}
	trainSet, valSet, testSet, err := data.splits(c)
	if err != nil {
		return nil, err
	}
	tc := train.Config{Epochs: c.Epochs, Batch: c.Batch, Seed: c.Seed}
	crop := c.Augment == AugmentCrop || c.Augment == AugmentCropFlip
	flip := c.Augment == AugmentFlip || c.Augment == AugmentCropFlip
	tc.Augment = images.Augment(data.Train, crop, flip)
	spec, err := ImageSpec(c, data.Train.Shape, data.Train.Classes)
	if err != nil {
		return nil, err
	}
	run, err := newRun(be, ReportTrain, c, spec, trainSet, testSet, tc)
	if err != nil {
		return nil, err
	}
	run.evalBatch = c.EvalBatch
	r := &ImageRun{Run: run, Config: c, Val: valSet, BNBatches: c.BNRecalibrate}
	if note := LimitNote("limit-test", c.LimitTest, data.Test.Len(), "test images of "+c.Data); note != "" {
		r.Notes = append(r.Notes, note)
	}
	if r.BNBatches == BNAuto {
		r.BNBatches = 0
		if c.Epochs*run.Trainer.StepsPerEpoch() < BNAutoMaxSteps {
			r.BNBatches = BNAutoBatches
		}
	}
	if c.BNHistory {
		run.epochRow = r.recalibratedRow
	}
	return r, nil
}

// recalibratedRow adds to an epoch's history row the test accuracy and ECE
// with the BatchNorm statistics recomputed over the run's recalibration
// batches (BNBatches, or BNAutoBatches when the run does not recalibrate
// at its end), then puts the trained statistics back: training goes on
// exactly as without it.
func (r *ImageRun) recalibratedRow(row *report.Epoch) error {
	trained, err := r.Model.BatchNormStats()
	if err != nil {
		return err
	}
	defer r.Model.SetBatchNormStats(trained)
	k := r.BNBatches
	if k <= 0 {
		k = BNAutoBatches
	}
	if _, err := RecalibrateBatchNorm(r.Model, r.TrainSet, r.Config.Batch, k, r.Config.Seed, phaseProgress(PhaseRecalibrate, min(k*r.Config.Batch, r.TrainSet.Len()), r.OnPhase)); err != nil {
		return fmt.Errorf("recalibrating BatchNorm after epoch %d: %w", row.Epoch, err)
	}
	out, err := evaluateSet(r.Model, r.TestSet, r.evalBatch, PhaseTest, r.OnPhase)
	if err != nil {
		return err
	}
	test := evaluateSplit(out, r.TestSet.Y, false)
	row.TestAccuracyRecalibrated, row.TestECERecalibrated = &test.Accuracy, &test.ECE
	return nil
}

// bnRule describes how the number of recalibration batches was chosen.
func (r *ImageRun) bnRule() string {
	if r.Config.BNRecalibrate != BNAuto {
		return fmt.Sprintf("-bn-recalibrate %d", r.Config.BNRecalibrate)
	}
	return fmt.Sprintf("auto: %d batches when the run has fewer than %d steps (it has %d)",
		BNAutoBatches, BNAutoMaxSteps, r.Config.Epochs*r.Trainer.StepsPerEpoch())
}

// Finish evaluates the trained model. With BatchNorm recalibration, it
// first evaluates the test set with the trained running statistics, then
// recomputes them (RecalibrateBatchNorm over BNBatches batches of the
// training set) and fills the report from the recomputed ones, recording
// both in Extras.BatchNorm. With an out-of-distribution set (OOD), it
// scores it against the test set in Extras.OOD. With a held-out split, it
// fits temperature scaling on it and records the test ECE before and after
// in Extras.Temperature.
func (r *ImageRun) Finish() error {
	var lastTrainAcc *report.Float
	if h := r.Report.History; len(h) > 0 {
		v := h[len(h)-1].TrainAccuracy
		lastTrainAcc = &v
	}
	bn := bnRecalibration{train: r.TrainSet, batch: r.Config.Batch, k: r.BNBatches, seed: r.Config.Seed, rule: r.bnRule(), onPhase: r.OnPhase}
	// The test set's evaluation with the running statistics is, in a run
	// that just ended, the one of its last epoch.
	rep, err := bn.around(r.Model, r.testOutputs, r.TestSet.Y, func() (report.Split, error) {
		if r.BNBatches > 0 {
			r.testAt = 0 // the statistics changed
		}
		err := r.Run.Finish()
		return r.Report.Test, err
	})
	if err != nil {
		return err
	}
	r.Extras.BatchNorm, r.BNBatches = rep, 0
	if rep != nil {
		rep.TrainMode, r.BNBatches = lastTrainAcc, rep.Batches
	}
	if r.OOD != nil {
		if r.Extras.OOD, err = DetectOOD(r.Model, r.TestOut, r.Config.Data, r.OOD, r.evalBatch, r.OnPhase); err != nil {
			return err
		}
	}
	if r.Val.Len() == 0 {
		return nil
	}
	if r.ValOut, err = evaluateSet(r.Model, r.Val, r.evalBatch, PhaseVal, r.OnPhase); err != nil {
		return err
	}
	t, err := FitTemperature(r.ValOut, r.Val.Y, r.TestOut, r.TestSet.Y)
	if err != nil {
		return fmt.Errorf("temperature scaling: %w", err)
	}
	r.Extras.Temperature = t
	return nil
}

// MarshalJSON writes report.json of an image run: report.Report's keys
// plus "batchnorm" and "temperature_scaling".
func (r *ImageRun) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		*report.Report
		ImageExtras
	}{r.Report, r.Extras})
}
