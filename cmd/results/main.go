// Command results regenerates the tables of RESULTS.md and BENCHMARKS.md
// from the report.json files of the runs they describe (and the GPU
// records of bench/gpu.sh).
//
// A table is a block of the Markdown file between a marker line that names
// its kind and its run folders and an end line:
//
//	<!-- results: KIND DIR... -->
//	(generated table)
//	<!-- end results -->
//
// Kinds: summary (one row per run: final test figures with the trained and,
// where the report has them, the recalibrated BatchNorm statistics,
// temperature scaling, sigma, training time), epochs (test accuracy and ECE
// per epoch, one column pair per run), ood (out-of-distribution
// detection per run and score) and seeds (runs of one protocol with
// different seeds, ours and PyTorch's: the mean and range of each figure
// per head and implementation), paired (the paired study of
// bench/paired_study.sh: per head and implementation the final test
// figures' mean ± sd over the seeds, Welch's t-test of the difference
// between the implementations, and deeplda eval's figures of the twin's
// final checkpoints beside the twin's own), table1 (the paper's Table 1 with this
// project's runs and the PyTorch twin's beside each row: n seeds and
// mean ± 2 sd per implementation and protocol) and figures (an LDA run then a softmax run:
// their test ECE and accuracy per epoch drawn as deeplda train -compare
// draws them, written under results/ beside the Markdown file and linked
// from it), curves (any number of runs: their test accuracy and ECE per
// epoch drawn in one figure each, dashed with the recalibrated BatchNorm
// statistics for runs trained with -bn-history, likewise under results/),
// sweep (the lambda sweep that deeplda sweep wrote into one
// folder: per lambda the test accuracy, ECE and learned sigma over seeds,
// and the sweep's figures under results/sweep-<folder>/), threads (the
// folder that bench/wasm_threads.sh run wrote: the WebAssembly step's
// images/s by number of threads, their speedup and serial fraction, and
// Amdahl's law beside them). The gpu kind's arguments are GPU records, the
// gpu-<adapter>.json files of bench/gpu.sh, rather than run folders: for
// each, the adapter, the card and PyTorch; deeplda against PyTorch (fp32,
// and its TF32 defaults) on the matmuls, the ConvNet steps and the toy step;
// deeplda's device time per ConvNet step by kernel at the largest batch;
// and the WebGPU tests' results and the golden trajectory's drift on the
// adapter. Each block ends with a line naming the commit it was generated
// at and the commits that wrote the reports or measured the records.
//
// Usage:
//
//	go run ./cmd/results RESULTS.md          rewrite the file's tables in place
//	go run ./cmd/results -check RESULTS.md   fail if a table or figure is out of date
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	fs := flag.NewFlagSet("results", flag.ContinueOnError)
	check := fs.Bool("check", false, "report tables that differ from what the runs give, and change nothing")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./cmd/results [-check] FILE.md\n\nRegenerates the tables between <!-- results: KIND DIR... --> and <!-- end results --> from the runs' report.json files (the gpu kind: from bench/gpu.sh's GPU records).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		os.Exit(2)
	}
	if err := run(fs.Arg(0), *check, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
}

// run regenerates the tables of the Markdown file at path.
func run(path string, check bool, stdout io.Writer) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, n, files, err := Regenerate(old, headCommit())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// The figures' paths are relative to the Markdown file's folder.
	base := filepath.Dir(path)
	names := slices.Sorted(maps.Keys(files))
	if check {
		if !bytes.Equal(stripStamps(old), stripStamps(updated)) {
			return fmt.Errorf("%s: tables are out of date; run go run ./cmd/results %s", path, path)
		}
		for _, name := range names {
			if disk, err := os.ReadFile(filepath.Join(base, name)); err != nil || !bytes.Equal(disk, files[name]) {
				return fmt.Errorf("%s: figure %s is missing or out of date; run go run ./cmd/results %s", path, name, path)
			}
		}
		fmt.Fprintf(stdout, "%s: %d tables and %d figures up to date\n", path, n, len(names))
		return nil
	}
	for _, name := range names {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: regenerated %d tables and %d figures\n", path, n, len(names))
	return nil
}

// headCommit returns the short hash of the checkout's HEAD, or "unknown"
// outside a git checkout.
func headCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
