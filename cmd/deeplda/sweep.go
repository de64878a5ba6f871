package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/report"
)

// sweepCmd runs the lambda sweep: the image experiment with the LDA head
// and DNLL for every lambda and seed; it writes sweep.json and the sweep
// figures after every run, and each run's report.json under runs/.
func sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := experiment.SweepConfig{Base: experiment.DefaultImages(), Lambdas: experiment.DefaultLambdas(), Seeds: 3}
	c.Base.Loss = kernels.DNLL.String()
	fetch, backend, out, quiet := false, experiment.BackendAuto, "out/sweep", false
	fs := flag.NewFlagSet(cmdSweep, flag.ContinueOnError)
	flags(fs, cmdSweep, c.Bind(), experiment.Values{"fetch": &fetch, "backend": &backend, "out": &out, "quiet": &quiet})
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: deeplda sweep [flags]

The paper's lambda sweep: trains the ConvNet with the LDA head and DNLL for
every lambda and seed, and writes sweep.json (every run and, per lambda, the
mean, standard deviation, minimum and maximum over seeds of the test
accuracy, the test ECE and the learned sigma), sweep_accuracy.svg,
sweep_ece.svg and sweep_sigma.svg (mean with a band of ±2 std against
lambda, logarithmic axis) and runs/lambda-<l>-seed-<s>/report.json.
Results are written after every run, so an interrupted sweep keeps what
finished.

Flags:`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	defaultDataDir(&c.Base)
	if err := c.Validate(); err != nil {
		return usageError{err}
	}
	if err := c.Base.CheckMemory(machineMemory()); err != nil {
		return usageError{err}
	}
	data, err := experiment.LoadImageData(ctx, c.Base, fetch)
	if err != nil {
		return err
	}
	be, err := openBackend(backend)
	if err != nil {
		return err
	}
	defer be.Close()
	folder, err := openOut(out, false)
	if err != nil {
		return err
	}
	defer folder.release()
	res := experiment.NewSweepResult(c, be.Info())
	runs := c.Runs()
	for i, rc := range runs {
		dir := filepath.Join(out, "runs", fmt.Sprintf("lambda-%g-seed-%d", rc.Lambda, rc.Seed))
		if err := prepareOut(dir); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(stderr, "run %d/%d: lambda %g, seed %d\n", i+1, len(runs), rc.Lambda, rc.Seed)
		}
		run, err := experiment.NewImagesFrom(be, rc, data)
		if err != nil {
			return usageError{err}
		}
		if err := sweepRun(ctx, run, dir, quiet, stderr); err != nil {
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "interrupted: %s holds the %d finished runs\n", filepath.Join(out, "sweep.json"), len(res.Points))
				return err
			}
			fmt.Fprintf(stderr, "lambda %g, seed %d: %v\n", rc.Lambda, rc.Seed, err)
		}
		res.Add(run)
		if err := writeSweep(out, res); err != nil {
			return err
		}
		p := res.Points[len(res.Points)-1]
		sigma := ""
		if p.Sigma != nil {
			sigma = fmt.Sprintf(", sigma %.4g", float64(*p.Sigma))
		}
		fmt.Fprintf(stdout, "lambda %g seed %d: test accuracy %.2f%%, ECE (10 bins) %.2f%%%s (%s)\n", p.Lambda, p.Seed, 100*p.Accuracy, 100*p.ECE, sigma, p.Status)
	}
	for _, r := range res.Summary {
		sigma := ""
		if r.Sigma != nil {
			sigma = fmt.Sprintf(", sigma %.4g ± %.2g", float64(r.Sigma.Mean), 2*float64(r.Sigma.Std))
		}
		fmt.Fprintf(stdout, "lambda %-6g accuracy %.2f ± %.2f%%, ECE (10 bins) %.2f ± %.2f%%%s (%d runs)\n", r.Lambda,
			100*r.Accuracy.Mean, 200*r.Accuracy.Std, 100*r.ECE.Mean, 200*r.ECE.Std, sigma, r.Runs)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "sweep.json"))
	return nil
}

// sweepRun trains one run of a sweep and writes its report.json; a diverged
// run is reported (its status says so) and the sweep goes on.
func sweepRun(ctx context.Context, run *experiment.ImageRun, dir string, quiet bool, stderr io.Writer) error {
	bar := newProgressBar(stderr, quiet)
	defer bar.finish()
	return experiment.Driver{Dir: dir, Progress: bar.update, Phase: bar.phase}.Drive(ctx, run)
}

// writeSweep writes sweep.json and the sweep figures.
func writeSweep(dir string, res *experiment.SweepResult) error {
	if err := report.WriteJSON(filepath.Join(dir, "sweep.json"), res); err != nil {
		return err
	}
	for name, svg := range res.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(dir, name), svg); err != nil {
			return err
		}
	}
	return nil
}
