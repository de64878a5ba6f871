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
	"github.com/deeplda/deeplda/kernels"
)

// benchCmd times training steps of a model, or a square matrix product, on
// a backend and prints one JSON line (experiment.Bench, which the browser's
// benchmark page runs too); with -suite it times the whole GPU table
// (experiment.RunSuite) and prints it in Markdown.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := experiment.BenchConfig{Model: "convnet", Batch: 64, Size: 1024, Steps: 10}
	backend, cpuprofile := experiment.BackendAuto, ""
	fs := flag.NewFlagSet(cmdBench, flag.ContinueOnError)
	suite, sizes, batches := false, "1024,2048,4096", "64,256"
	flags(fs, cmdBench, cfg.Bind(), experiment.Values{"backend": &backend, "cpuprofile": &cpuprofile,
		"suite": &suite, "sizes": &sizes, "batches": &batches})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deeplda bench [flags]\n\nTimes the backend and prints one JSON line (with -suite, a Markdown table).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if suite {
		c, err := experiment.ParseSuite(sizes, batches, cfg.Steps)
		if err == nil {
			err = c.CheckMemory(machineMemory())
		}
		if err != nil {
			return usageError{err}
		}
		return benchSuite(ctx, backend, c, stdout, stderr)
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if err := cfg.CheckMemory(machineMemory()); err != nil {
		return usageError{err}
	}
	be, err := openBackendNote(backend, stderr)
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
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
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
// result's JSON line to stderr as it comes (after a line describing the
// adapter, on backends that describe it) and the Markdown table to
// stdout.
func benchSuite(ctx context.Context, backend experiment.BackendKind, c experiment.SuiteConfig, stdout, stderr io.Writer) error {
	be, err := openBackendNote(backend, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	enc := json.NewEncoder(stderr)
	if d, ok := be.(kernels.Describing); ok {
		enc.Encode(struct {
			Adapter kernels.AdapterDetails `json:"adapter"`
		}{d.AdapterDetails()})
	}
	rs, err := experiment.RunSuite(ctx, be, c, experiment.SuiteHooks{Each: func(r experiment.BenchResult) { enc.Encode(r) }})
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, experiment.SuiteTable(rs))
	return err
}
