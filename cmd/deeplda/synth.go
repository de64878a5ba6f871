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
)

// synthCmd runs the toy experiment and writes report.json, the figures and
// the checkpoint to -out.
func synthCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := experiment.DefaultSynth()
	backend := experiment.BackendAuto
	o := &output{dir: "out/synth"}
	fs := flag.NewFlagSet(cmdSynth, flag.ContinueOnError)
	flags(fs, cmdSynth, c.Bind(), o.bind(), experiment.Values{"backend": &backend})
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
	if err := c.CheckMemory(machineMemory()); err != nil {
		return usageError{err}
	}
	be, err := openBackendNote(backend, stderr)
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

// bind returns the variables of -out, -quiet and -resume.
func (o *output) bind() experiment.Values {
	return experiment.Values{"out": &o.dir, "quiet": &o.quiet, "resume": &o.resume}
}

// trainAndWrite trains the run with a progress bar (after its last
// completed epoch in o.dir with o.resume), saving the checkpoint and the
// resume file after every epoch, then writes the report and the figures
// (experiment.Driver). On a divergence it writes the report and returns the
// error; on cancellation it writes the report of the last whole epoch, which
// the checkpoint holds.
func trainAndWrite(ctx context.Context, t experiment.Trainable, o output, stdout, stderr io.Writer, summary func(io.Writer)) error {
	run := t.Base()
	if o.resume {
		resume := filepath.Join(o.dir, experiment.ResumeFile)
		if err := run.Resume(resume); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usageError{fmt.Errorf("-resume: there is no %s: nothing to resume", resume)}
			}
			return usageError{fmt.Errorf("-resume: %w", err)}
		}
		fmt.Fprintf(stderr, "resuming after epoch %d of %d (%s)\n", run.Trainer.Epoch(), run.Trainer.Cfg.Epochs, resume)
	}
	bar := newProgressBar(stderr, o.quiet)
	afterEpoch := func() error {
		if h := run.Report.History; len(h) > 0 {
			bar.epochEnd(h[len(h)-1], run.Trainer.Cfg.Epochs)
		}
		return nil
	}
	d := experiment.Driver{Dir: o.dir, Save: true, Figures: true, Progress: bar.update, Phase: bar.phase, AfterEpoch: afterEpoch, Stopping: func() {
		bar.finish()
		if e := run.Trainer.Epoch(); e > 0 {
			fmt.Fprintf(stderr, "interrupted: writing the report of epoch %d, the last whole one, which the checkpoint holds (-resume continues after it)\n", e)
		} else {
			fmt.Fprintln(stderr, "interrupted during the first epoch: writing the report of the untrained model (no checkpoint was saved)")
		}
	}}
	err := d.Drive(ctx, t)
	bar.finish()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	summary(stdout)
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(o.dir, "report.json"))
	if err != nil {
		return stopped(ctx, err, run.Trainer.Epoch(), run.Trainer.Cfg.Epochs, o.dir)
	}
	return nil
}

// printSynthSummary prints the headline numbers of a finished toy run.
func printSynthSummary(w io.Writer, run *experiment.Run) {
	r := run.Report
	fmt.Fprintf(w, "train accuracy %.2f%%, test accuracy %.2f%%, test ECE (10 bins) %.2f%%, %.1f s on %s (%s)\n",
		100*r.Train.Accuracy, 100*r.Test.Accuracy, 100*r.Test.ECE, float64(r.Seconds), r.Backend.Name, r.Backend.Adapter)
	if r.Consistency != nil {
		fmt.Fprintf(w, "head: log det Sigma %.3g; consistency with the closed-form refit: mean shift %.3g, KL %.3g\n",
			float64(*r.Head.LogDetCov), float64(r.Consistency.MeanShift), float64(r.Consistency.KL))
	}
}
