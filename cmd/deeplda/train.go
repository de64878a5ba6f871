package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
)

// defaultDataDir fills an empty -datadir.
func defaultDataDir(c *experiment.ImageConfig) {
	if c.DataDir == "" {
		c.DataDir = filepath.Join("datasets", c.Data)
	}
}

// trainCmd trains the paper's ConvNet on an image data set and writes
// report.json, the figures and the checkpoint to -out.
func trainCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := experiment.DefaultImages()
	c.Loss = ""
	fetch, compare, backend := false, false, experiment.BackendAuto
	var oodc experiment.OODConfig
	o := &output{dir: "out/train"}
	fs := flag.NewFlagSet(cmdTrain, flag.ContinueOnError)
	flags(fs, cmdTrain, c.Bind(), o.bind(), oodc.Bind(), experiment.Values{"fetch": &fetch, "compare": &compare, "backend": &backend})
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: deeplda train [flags]

Trains the paper's ConvNet (d = C-1) with an LDA or softmax head on
Fashion-MNIST, MNIST, CIFAR-10 or CIFAR-100, and writes report.json, SVG
figures and checkpoint.safetensors (the trained BatchNorm statistics, after
every epoch) to -out. With -bn-recalibrate (automatic for short runs) the
final evaluation uses recomputed BatchNorm statistics and report.json gives
both numbers under "batchnorm"; with -val, temperature scaling is fitted on
the held-out images and the test ECE before and after is under
"temperature_scaling". With -ood, the trained model's scores are tested
on telling the test images from the other data set's (report.json's
"ood", ood_scores.svg and ood_roc.svg).

With -compare it trains the LDA head (with -loss, default dnll) and then
the softmax head (ce) on the same images with the same seed, each into its
own run folder, -out/lda and -out/softmax (-resume continues each), and
writes both histories, their final test numbers and the gap (LDA minus
softmax) to -out/compare.json, with compare_ece.svg, compare_accuracy.svg
and compare_reliability.svg.

Flags:`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	defaultDataDir(&c)
	err := c.Validate()
	if err == nil {
		err = oodc.Check(c.Data)
	}
	if err == nil {
		err = c.CheckMemory(machineMemory())
	}
	if err != nil {
		return usageError{err}
	}
	data, err := experiment.LoadImageData(ctx, c, fetch)
	if err != nil {
		return err
	}
	ood, err := experiment.LoadOOD(ctx, oodc, c.Data, c.LimitTest, fetch)
	if err != nil {
		return err
	}
	be, err := openBackend(backend)
	if err != nil {
		return err
	}
	defer be.Close()
	folder, err := openOut(o.dir, !o.resume)
	if err != nil {
		return err
	}
	defer folder.release()
	if compare {
		return trainCompare(ctx, be, c, data, ood, *o, stdout, stderr)
	}
	run, err := experiment.NewImagesFrom(be, c, data)
	if err != nil {
		return usageError{err}
	}
	run.OOD = ood
	if !o.quiet {
		fmt.Fprintf(stderr, "%s: %d training, %d held-out, %d test images; %s head (%s), %d epochs of %d steps\n",
			c.Data, run.TrainSet.Len(), run.Val.Len(), run.TestSet.Len(), run.Config.Head, run.Config.Loss, c.Epochs, run.Trainer.StepsPerEpoch())
	}
	for _, note := range run.Notes {
		fmt.Fprintln(stderr, note)
	}
	return trainAndWrite(ctx, run, *o, stdout, stderr, func(w io.Writer) { printImageSummary(w, run) })
}

// trainCompare trains both heads of experiment.NewCompare, each into its
// folder under o.dir as a run of its own (-resume continues the heads
// whose folder holds a resume file), and writes their comparison.
func trainCompare(ctx context.Context, be kernels.Backend, c experiment.ImageConfig, data experiment.ImageData, ood *experiment.OODSet, o output, stdout, stderr io.Writer) error {
	runs, err := experiment.NewCompare(be, c, data)
	if err != nil {
		return usageError{err}
	}
	for _, r := range runs {
		r.OOD = ood // both heads score the same out-of-distribution set
	}
	resumable := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, experiment.ResumeFile))
		return err == nil
	}
	if o.resume && !slices.ContainsFunc(experiment.CompareHeads, func(h string) bool { return resumable(filepath.Join(o.dir, h)) }) {
		h := experiment.CompareHeads
		return usageError{fmt.Errorf("-resume: neither %s nor %s holds a %s: nothing to resume", filepath.Join(o.dir, h[0]), filepath.Join(o.dir, h[1]), experiment.ResumeFile)}
	}
	cmp, err := experiment.DriveCompare(ctx, runs, o.dir, func(ctx context.Context, run *experiment.ImageRun, dir string) error {
		folder, err := openOut(dir, !o.resume)
		if err != nil {
			return err
		}
		defer folder.release()
		ho := output{dir: dir, quiet: o.quiet, resume: o.resume && resumable(dir)}
		if !o.quiet {
			fmt.Fprintf(stderr, "%s head (%s) into %s: %d training, %d held-out, %d test images, %d epochs of %d steps\n",
				run.Config.Head, run.Config.Loss, dir, run.TrainSet.Len(), run.Val.Len(), run.TestSet.Len(), run.Config.Epochs, run.Trainer.StepsPerEpoch())
		}
		return trainAndWrite(ctx, run, ho, stdout, stderr, func(w io.Writer) { printImageSummary(w, run) })
	})
	if cmp != nil {
		fmt.Fprintln(stdout, cmp.Summary())
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(o.dir, experiment.CompareFile))
	}
	return err
}

// printImageSummary prints the headline numbers of a finished image run.
func printImageSummary(w io.Writer, run *experiment.ImageRun) {
	r := run.Report
	fmt.Fprintf(w, "train accuracy %.2f%%, test accuracy %.2f%%, test ECE (10 bins) %.2f%%, %.1f s training (%.0f images/s) on %s (%s)\n",
		100*r.Train.Accuracy, 100*r.Test.Accuracy, 100*r.Test.ECE, float64(r.Seconds),
		float64(run.Trainer.Seen())/max(float64(r.Seconds), 1e-9), r.Backend.Name, r.Backend.Adapter)
	if bn := run.Extras.BatchNorm; bn != nil {
		fmt.Fprintf(w, "BatchNorm: test accuracy %.2f%% with the trained running statistics, %.2f%% recomputed over %d batches (ECE, 10 bins, %.2f%% and %.2f%%)\n",
			100*bn.Running.Accuracy, 100*bn.Recalibrated.Accuracy, bn.Batches, 100*bn.Running.ECE, 100*bn.Recalibrated.ECE)
	}
	if s := r.Head.Sigma; s != nil {
		fmt.Fprintf(w, "head: sigma %.4g, log det Sigma %.4g\n", float64(*s), float64(*r.Head.LogDetCov))
	}
	if r.Consistency != nil {
		fmt.Fprintf(w, "consistency with the closed-form refit: mean shift %.3g, KL %.3g\n", float64(r.Consistency.MeanShift), float64(r.Consistency.KL))
	}
	printOOD(w, run.Extras.OOD)
	if t := run.Extras.Temperature; t != nil {
		fmt.Fprintf(w, "temperature scaling on %d held-out images: T = %.3g, test ECE (10 bins) %.2f%% -> %.2f%%, test NLL %.4f -> %.4f\n",
			t.ValExamples, t.T, 100*t.TestECEBefore, 100*t.TestECEAfter, float64(t.TestNLLBefore), float64(t.TestNLLAfter))
	}
}
