package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// evalCmd evaluates a ConvNet checkpoint on the test split of an image data
// set and writes report.json and the figures (and optionally the
// embeddings and scores).
func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := experiment.EvalConfig{Data: "fashion-mnist", Batch: 256, Seed: 1}
	fetch, backend, dump, out := false, experiment.BackendAuto, "", "out/eval"
	fs := flag.NewFlagSet(cmdEval, flag.ContinueOnError)
	flags(fs, cmdEval, c.Bind(), experiment.Values{"fetch": &fetch, "backend": &backend, "dump": &dump, "out": &out})
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: deeplda eval -checkpoint FILE [flags]

Evaluates a checkpoint of the paper's ConvNet on the test split (evaluation
mode, the checkpoint's BatchNorm statistics unless -bn-recalibrate) and
writes report.json, embedding.svg (PCA), reliability.svg and
confidence.svg to -out (with -bn-recalibrate also %s, the checkpoint
with the recomputed statistics that give report.json's test numbers);
with -ood, also how well the scores tell the test
images from the other data set's (report.json's "ood", ood_scores.svg and
ood_roc.svg). The model is inferred from the tensor names:
enc.conv1.weight gives the input channels, enc.proj.weight d, head.mu with
head.log_var (scalar: spherical, [d]: diagonal) or head.raw_tril (full) an
LDA head, head.linear.* a softmax head. Tensors must be F32, except
num_batches_tracked (optional; I32 or PyTorch's I64). A checkpoint whose
spec (in its metadata, when deeplda wrote it) is out of range or describes
another model, or that holds a value no trained model holds (NaN or an
infinity, a weight beyond ±%g, a BatchNorm running variance <= 0), is
refused.

Flags:
`, experiment.RecalibratedFile, model.MaxWeight)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{err}
	}
	if err := c.CheckMemory(machineMemory()); err != nil {
		return usageError{err}
	}
	spec, _ := images.Lookup(c.Data)
	if c.DataDir == "" {
		c.DataDir = filepath.Join("datasets", c.Data)
	}
	f, mspec, err := model.ReadConvNet(c.Checkpoint, [2]int{spec.Shape[1], spec.Shape[2]})
	if err != nil {
		return err
	}
	if mspec.Input[0] != spec.Shape[0] || mspec.Classes != spec.Classes {
		return fmt.Errorf("the checkpoint takes %d-channel images in %d classes; %s has %d channels and %d classes",
			mspec.Input[0], mspec.Classes, c.Data, spec.Shape[0], spec.Classes)
	}
	be, err := openBackend(backend)
	if err != nil {
		return err
	}
	defer be.Close()
	m, err := model.NewFromState(be, f, mspec, c.Checkpoint)
	if err != nil {
		return err
	}
	data, err := experiment.LoadImageData(ctx, experiment.ImageConfig{Data: c.Data, DataDir: c.DataDir}, fetch)
	if err != nil {
		return err
	}
	ood, err := experiment.LoadOOD(ctx, c.OODConfig, c.Data, c.LimitTest, fetch)
	if err != nil {
		return err
	}
	folder, err := openOut(out, false)
	if err != nil {
		return err
	}
	defer folder.release()
	notes := []string{experiment.LimitNote("limit-test", c.LimitTest, data.Test.Len(), "test images of "+c.Data)}
	var trainSet train.Dataset
	if c.BNRecalibrate > 0 {
		trainSet = data.Train.Dataset(c.LimitTrain)
		notes = append(notes, experiment.LimitNote("limit-train", c.LimitTrain, data.Train.Len(), "training images of "+c.Data))
	}
	for _, note := range notes {
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
	}
	bar := newProgressBar(stderr, false)
	res, err := experiment.EvaluateImages(m, data.Test.Dataset(c.LimitTest), trainSet, ood, c, bar.phase)
	bar.finish()
	if err != nil {
		return err
	}
	if err := writeEval(out, dump, res); err != nil {
		return err
	}
	if bn := res.Extras.BatchNorm; bn != nil {
		f, err := experiment.RecalibratedState(m, bn, c.Seed)
		if err == nil {
			err = safetensors.WriteFile(filepath.Join(out, experiment.RecalibratedFile), f)
		}
		if err != nil {
			return fmt.Errorf("writing the recalibrated checkpoint: %w", err)
		}
	}
	r := res.Report
	desc := m.Spec.Head.String()
	if m.Spec.Head == model.HeadLDA {
		desc += " " + m.Spec.Cov.String()
	}
	fmt.Fprintf(stdout, "%s head, %d test images: accuracy %.2f%%%s, ECE (10 bins) %.2f%%%s, NLL %.4f\n", desc, r.Test.Examples,
		100*r.Test.Accuracy, interval(r.Test.AccuracyCI), 100*r.Test.ECE, interval(r.Test.ECECI), float64(r.Test.NLL))
	printCalibration(stdout, "test", r.Test)
	if bn := res.Extras.BatchNorm; bn != nil {
		fmt.Fprintf(stdout, "BatchNorm: the numbers above use statistics recomputed over %d training batches (%s); accuracy %.2f%% with the checkpoint's running statistics, %.2f%% recomputed\n", bn.Batches, filepath.Join(out, experiment.RecalibratedFile), 100*bn.Running.Accuracy, 100*bn.Recalibrated.Accuracy)
	} else if len(m.BatchNorms()) > 0 {
		fmt.Fprintf(stdout, "BatchNorm: the numbers above use the checkpoint's running statistics; deeplda train reports a short run's test numbers with statistics recomputed over %d training batches (report.json's batchnorm): add -bn-recalibrate %d with the run's -batch, -seed and -limit-train for that number\n", experiment.BNAutoBatches, experiment.BNAutoBatches)
	}
	if s := r.Head.Sigma; s != nil {
		fmt.Fprintf(stdout, "head: sigma %.4g\n", float64(*s))
	}
	printOOD(stdout, res.Extras.OOD)
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "report.json"))
	return nil
}

// printCalibration prints the calibration metrics of experiment.Scores
// that split (report.json's key name) has, on one line, each as people
// read it (Score.Format: the calibration errors in percent).
func printCalibration(w io.Writer, name string, split report.Split) {
	var values, keys []string
	for _, s := range experiment.CalibrationScores() {
		if v, ok := split.Metric(s.Name); ok {
			values, keys = append(values, s.Label+" "+s.Format(float64(v))), append(keys, s.Name)
		}
	}
	fmt.Fprintf(w, "%s calibration: %s (report.json's %s: %s)\n", name, strings.Join(values, ", "), name, strings.Join(keys, ", "))
}

// printOOD prints the out-of-distribution figures of r, if any: one line
// per score of experiment.Scores that r has, and the scores left out.
func printOOD(w io.Writer, r *experiment.OODReport) {
	if r == nil {
		return
	}
	for _, s := range experiment.OODScores() {
		if d, ok := r.Detection(s.Name); ok {
			fmt.Fprintf(w, "out-of-distribution (%d test images against %d of %s), %s: AUROC %.4f, AUPR %.4f, FPR at 95%% TPR %.4f\n",
				r.NIn, r.NOut, r.Dataset, s.Name, d.AUROC, d.AUPR, d.FPRAt95TPR)
		}
	}
	for _, o := range r.Omitted {
		fmt.Fprintf(w, "out-of-distribution score left out: %s\n", o)
	}
}

// writeEval writes report.json, the figures and the optional dump.
func writeEval(out, dump string, res *experiment.EvalResult) error {
	if err := report.WriteAs(out, res.Report, res); err != nil {
		return err
	}
	for name, svg := range res.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(out, name), svg); err != nil {
			return err
		}
	}
	if dump != "" {
		path, err := dumpPath(dump)
		if err != nil {
			return err
		}
		if err := safetensors.WriteFile(path, res.Dump()); err != nil {
			return fmt.Errorf("writing the dump: %w", err)
		}
	}
	return nil
}

// interval writes a bootstrap interval of report.json's splits in percent,
// "" for none.
func interval(ci *[2]report.Float) string {
	if ci == nil {
		return ""
	}
	return fmt.Sprintf(" (95%% interval %.2f-%.2f%%)", 100*ci[0], 100*ci[1])
}
