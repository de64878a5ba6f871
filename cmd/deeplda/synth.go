package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// synthCmd runs the toy experiment and writes report.json, the figures and
// the checkpoint to -out.
func synthCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := experiment.DefaultSynth()
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.StringVar(&c.Encoder, "encoder", c.Encoder, "encoder: mlp (deep LDA) or none (classical LDA on the inputs)")
	fs.StringVar(&c.Loss, "loss", c.Loss, "loss: nll, ce or dnll")
	fs.Float64Var(&c.Lambda, "lambda", c.Lambda, "DNLL penalty weight lambda (>= 0)")
	fs.StringVar(&c.Cov, "cov", c.Cov, "covariance of the LDA head: full, diag or spherical")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "training epochs")
	fs.IntVar(&c.Batch, "batch", c.Batch, "batch size")
	fs.Float64Var(&c.LR, "lr", c.LR, "Adam learning rate")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the initialisation and the shuffling")
	fs.Uint64Var(&c.DataSeed, "data-seed", c.DataSeed, "seed of the data set (the test set uses data-seed+1)")
	fs.IntVar(&c.Train, "train", c.Train, "training points")
	fs.IntVar(&c.Test, "test", c.Test, "test points")
	backend := fs.String("backend", "auto", "compute backend: cpu, webgpu or auto (WebGPU when an adapter exists)")
	out := fs.String("out", "out/synth", "output folder for report.json, the SVG figures and checkpoint.safetensors")
	quiet := fs.Bool("quiet", false, "no progress bar")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deeplda synth [flags]\n\nTrains Deep LDA (or classical LDA) on the paper's 3-class 2-D toy data.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return usageError{err}
	}
	be, err := openBackendNote(*backend, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	if err := prepareOut(*out); err != nil {
		return err
	}
	run, err := experiment.NewSynth(be, c)
	if err != nil {
		return usageError{err}
	}
	return trainAndWrite(ctx, run, *out, *quiet, stdout, stderr, func(w io.Writer) { printSynthSummary(w, run) })
}

// prepareOut creates the output folder and checks that it is writable.
func prepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return fmt.Errorf("the output folder %s is not writable: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// trainable is a run that trainAndWrite drives: *experiment.Run, or an
// image run that finishes, reports and draws more (*experiment.ImageRun).
type trainable interface {
	Base() *experiment.Run
	Finish() error
	WriteReport(dir string) error
	Figures() map[string][]byte
}

// trainAndWrite trains the run epoch by epoch with a progress bar, saving the
// checkpoint after every good epoch, then finishes it, writes the report and
// figures and prints summary. A diverged or interrupted run still writes its
// report (with its status) and keeps the last good checkpoint.
func trainAndWrite(ctx context.Context, t trainable, out string, quiet bool, stdout, stderr io.Writer, summary func(io.Writer)) error {
	run := t.Base()
	bar := newProgressBar(stderr, quiet)
	ckpt := filepath.Join(out, "checkpoint.safetensors")
	var trainErr error
	for !run.Done() {
		if trainErr = run.Epoch(ctx, bar.update); trainErr != nil {
			break
		}
		if err := run.Model.SaveCheckpoint(ckpt); err != nil {
			return fmt.Errorf("saving the checkpoint: %w", err)
		}
	}
	bar.finish()
	var div *train.DivergedError
	switch {
	case trainErr == nil:
	case errors.As(trainErr, &div):
		run.Report.Status = trainErr.Error()
		if err := t.WriteReport(out); err != nil {
			return err
		}
		return fmt.Errorf("%w; the last good checkpoint (epoch %d) is %s", trainErr, run.Trainer.Epoch(), ckpt)
	case errors.Is(trainErr, context.Canceled):
		fmt.Fprintln(stderr, "interrupted: writing the report of the epochs done")
	default:
		return trainErr
	}
	if err := t.Finish(); err != nil {
		return err
	}
	if err := t.WriteReport(out); err != nil {
		return err
	}
	for name, svg := range t.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(out, name), svg); err != nil {
			return err
		}
	}
	summary(stdout)
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "report.json"))
	return trainErr
}

// printSynthSummary prints the headline numbers of a finished toy run.
func printSynthSummary(w io.Writer, run *experiment.Run) {
	r := run.Report
	fmt.Fprintf(w, "train accuracy %.2f%%, test accuracy %.2f%%, test ECE %.2f%%, %.1f s on %s (%s)\n",
		100*r.Train.Accuracy, 100*r.Test.Accuracy, 100*r.Test.ECE, float64(r.Seconds), r.Backend.Name, r.Backend.Adapter)
	if r.Consistency != nil {
		fmt.Fprintf(w, "head: log det Sigma %.3g; consistency with the closed-form refit: mean shift %.3g, KL %.3g\n",
			float64(*r.Head.LogDetCov), float64(r.Consistency.MeanShift), float64(r.Consistency.KL))
	}
}
