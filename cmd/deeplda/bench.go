package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/deeplda/deeplda/experiment"
)

// benchCmd times training steps of a model, or a square matrix product, on
// a backend and prints one JSON line (experiment.Bench, which the browser's
// benchmark page runs too); with -suite it times the whole GPU table
// (experiment.RunSuite) and prints it in Markdown.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	backend := fs.String("backend", "auto", "compute backend: cpu, webgpu or auto")
	which := fs.String("model", "convnet", "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)")
	batch := fs.Int("batch", 64, "batch size (convnet, mlp)")
	size := fs.Int("size", 1024, "matrix size S (matmul)")
	steps := fs.Int("steps", 10, "timed steps (after one untimed warm-up step)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed steps to this file (go tool pprof)")
	suite := fs.Bool("suite", false, "time the GPU table instead (the matmuls of -sizes, the ConvNet step at each of -batches, the toy step at batch 256) and print it in Markdown")
	sizes := fs.String("sizes", "1024,2048,4096", "matmul sizes of -suite, comma-separated")
	batches := fs.String("batches", "64,256", "ConvNet batch sizes of -suite, comma-separated")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deeplda bench [flags]\n\nTimes the backend and prints one JSON line (with -suite, a Markdown table).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *suite {
		c, err := experiment.ParseSuite(*sizes, *batches, *steps)
		if err != nil {
			return usageError{fmt.Errorf("-%w", err)}
		}
		return benchSuite(ctx, *backend, c, stdout, stderr)
	}
	cfg := experiment.BenchConfig{Model: *which, Batch: *batch, Size: *size, Steps: *steps}
	if err := cfg.Validate(); err != nil {
		return usageError{fmt.Errorf("-%w", err)}
	}
	be, err := openBackendNote(*backend, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	b, err := experiment.NewBench(be, cfg)
	if err != nil {
		return err
	}
	if err := b.WarmUp(); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := b.Time(ctx)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// benchSuite runs experiment.RunSuite on the backend, printing each
// result's JSON line to stderr as it comes and the Markdown table to
// stdout.
func benchSuite(ctx context.Context, backend string, c experiment.SuiteConfig, stdout, stderr io.Writer) error {
	be, err := openBackendNote(backend, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	enc := json.NewEncoder(stderr)
	rs, err := experiment.RunSuite(ctx, be, c, func(r experiment.BenchResult) { enc.Encode(r) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, experiment.SuiteTable(rs))
	return err
}
