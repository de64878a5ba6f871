package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
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
	o := outputFlags(fs, "out/synth")
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
	folder, err := openOut(o.dir, !o.resume)
	if err != nil {
		return err
	}
	defer folder.release()
	run, err := experiment.NewSynth(be, c)
	if err != nil {
		return usageError{err}
	}
	return trainAndWrite(ctx, run, *o, stdout, stderr, func(w io.Writer) { printSynthSummary(w, run) })
}

// output is where and how a training command writes: its -out, -quiet and
// -resume flags.
type output struct {
	dir    string
	quiet  bool
	resume bool
}

// outputFlags registers -out (default dir), -quiet and -resume on fs.
func outputFlags(fs *flag.FlagSet, dir string) *output {
	o := &output{}
	fs.StringVar(&o.dir, "out", dir, "output folder for report.json, the SVG figures, checkpoint.safetensors and "+experiment.ResumeFile)
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&o.resume, "resume", false, "continue the run in -out after its last completed epoch ("+experiment.ResumeFile+
		", written after every epoch), with the same flags; -epochs may be raised")
	return o
}

// trainable is a run that trainAndWrite drives: *experiment.Run, or an
// image run that finishes, reports and draws more (*experiment.ImageRun).
type trainable interface {
	Base() *experiment.Run
	Finish() error
	WriteReport(dir string) error
	Figures() map[string][]byte
}

// trainAndWrite trains the run epoch by epoch with a progress bar (after
// its last completed epoch in o.dir with o.resume), saving the checkpoint
// and the resume file after every epoch, then finishes it and writes the
// report and the figures. On a divergence or a lost or failed GPU device it
// writes the report and returns the error, naming the last good checkpoint; on
// cancellation it writes the report of the epochs done.
func trainAndWrite(ctx context.Context, t trainable, o output, stdout, stderr io.Writer, summary func(io.Writer)) error {
	run := t.Base()
	ckpt, resume := filepath.Join(o.dir, "checkpoint.safetensors"), filepath.Join(o.dir, experiment.ResumeFile)
	if o.resume {
		if err := run.Resume(resume); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usageError{fmt.Errorf("-resume: there is no %s: nothing to resume", resume)}
			}
			return usageError{fmt.Errorf("-resume: %w", err)}
		}
		fmt.Fprintf(stderr, "resuming after epoch %d of %d (%s)\n", run.Trainer.Epoch(), run.Trainer.Cfg.Epochs, resume)
	}
	bar := newProgressBar(stderr, o.quiet)
	var trainErr error
	for !run.Done() {
		if trainErr = run.Epoch(ctx, bar.update); trainErr != nil {
			break
		}
		if err := run.SaveEpoch(ckpt, resume); err != nil {
			return err
		}
	}
	bar.finish()
	var div *train.DivergedError
	switch {
	case trainErr == nil:
	case errors.As(trainErr, &div) || errors.Is(trainErr, kernels.ErrDeviceLost) || errors.Is(trainErr, kernels.ErrDeviceFailed):
		run.Report.Status = trainErr.Error()
		if err := t.WriteReport(o.dir); err != nil {
			return err
		}
		return fmt.Errorf("%w; the last good checkpoint (epoch %d) is %s", trainErr, run.Trainer.Epoch(), ckpt)
	case errors.Is(trainErr, context.Canceled):
		fmt.Fprintf(stderr, "interrupted: writing the report of the epochs done (-resume continues after epoch %d)\n", run.Trainer.Epoch())
	default:
		return trainErr
	}
	if err := t.Finish(); err != nil {
		return err
	}
	if err := t.WriteReport(o.dir); err != nil {
		return err
	}
	for name, svg := range t.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(o.dir, name), svg); err != nil {
			return err
		}
	}
	summary(stdout)
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(o.dir, "report.json"))
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
