// Command results regenerates the tables of RESULTS.md from the report.json
// files of the runs they describe.
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
// per head and implementation). Each table ends with a line naming the
// commit it was generated at and the commits that wrote the reports.
//
// Usage:
//
//	go run ./cmd/results RESULTS.md          rewrite the file's tables in place
//	go run ./cmd/results -check RESULTS.md   fail if a table is out of date
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	fs := flag.NewFlagSet("results", flag.ContinueOnError)
	check := fs.Bool("check", false, "report tables that differ from what the runs give, and change nothing")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./cmd/results [-check] FILE.md\n\nRegenerates the tables between <!-- results: KIND DIR... --> and <!-- end results --> from the runs' report.json files.")
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
	updated, n, err := Regenerate(old, headCommit())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if check {
		if !bytes.Equal(stripStamps(old), stripStamps(updated)) {
			return fmt.Errorf("%s: tables are out of date; run go run ./cmd/results %s", path, path)
		}
		fmt.Fprintf(stdout, "%s: %d tables up to date\n", path, n)
		return nil
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: regenerated %d tables\n", path, n)
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
