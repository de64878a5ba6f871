package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/report"
)

// runCmd runs the command line and returns its exit status and output.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"synth", "-nope"}, "flag provided but not defined: -nope"},
		{[]string{"synth", "-loss", "mse"}, `-loss must be dnll, ce or nll, got "mse"`},
		{[]string{"synth", "-cov", "banana"}, `-cov must be full, diag or spherical, got "banana"`},
		{[]string{"synth", "-encoder", "resnet"}, "-encoder must be mlp or none"},
		{[]string{"synth", "-epochs", "0"}, "-epochs must be at least 1"},
		{[]string{"synth", "-lambda", "-1"}, "-lambda must be a finite number >= 0"},
		{[]string{"synth", "-lambda", "abc"}, `invalid value "abc" for flag -lambda`},
		{[]string{"synth", "-lr", "NaN"}, "-lr: learning rate must be a finite number > 0, got NaN"},
		{[]string{"synth", "-epochs", "abc"}, `invalid value "abc" for flag -epochs`},
		{[]string{"train", "-epochs", "abc"}, `invalid value "abc" for flag -epochs`},
		{[]string{"sweep", "-lambdas", "0.1,x"}, `"x" is not a number`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"synth", "-backend", "tpu"}, `flag -backend: backend must be auto, webgpu or cpu, got "tpu"`},
		{[]string{"bench", "-backend", "tpu"}, `flag -backend: backend must be auto, webgpu or cpu, got "tpu"`},
		{[]string{"synth", "extra"}, `unexpected argument "extra"`},
		{[]string{"bench", "-model", "resnet"}, "-model must be convnet, mlp or matmul"},
		{[]string{"bench", "-steps", "0"}, "-steps must be at least 1, got 0"},
		{[]string{"synth", "-lr", "0"}, "-lr: learning rate must be a finite number > 0, got 0"},
		// Sizes beyond the settings' bounds, or beyond any machine's memory,
		// are refused before anything is allocated (the Go runtime's
		// out-of-memory crash printed a trace of over a hundred lines).
		{[]string{"bench", "-model", "matmul", "-size", "100000"}, "deeplda bench: -size must be at most 32768, got 100000"},
		{[]string{"bench", "-model", "convnet", "-batch", "1000000"}, "deeplda bench: -batch 1000000 needs about 1898.5 GiB for the ConvNet's step, more than the "},
		{[]string{"bench", "-suite", "-batches", "1,1000000"}, "deeplda bench: -batch 1000000 needs about 1898.5 GiB for the ConvNet's step, more than the "},
		{[]string{"bench", "-suite", "-sizes", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}, "deeplda bench: -sizes must list at most 16 numbers, got 17"},
		{[]string{"bench", "-steps", "2000000000"}, "deeplda bench: -steps must be at most 1000000, got 2000000000"},
		{[]string{"synth", "-train", "2000000000"}, "deeplda synth: -train must be at most 100000000, got 2000000000"},
		{[]string{"synth", "-epochs", "1000000"}, "deeplda synth: -epochs must be at most 100000, got 1000000"},
		{[]string{"train", "-batch", "1000000", "-out", t.TempDir()}, "deeplda train: -batch 1000000 needs about 1898.5 GiB for the ConvNet's step on fashion-mnist, more than the "},
		{[]string{"train", "-eval-batch", "1000000", "-out", t.TempDir()}, "deeplda train: -eval-batch 1000000 needs about 1898.5 GiB"},
		{[]string{"eval", "-checkpoint", "x.safetensors", "-eval-batch", "1000000"}, "deeplda eval: -eval-batch 1000000 needs about 1898.5 GiB"},
		{[]string{"sweep", "-seeds", "5000"}, "deeplda sweep: -seeds must be at most 1000, got 5000"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stderr is not one line: %q", tc.args, stderr)
		}
	}
}

// TestHelp checks the overview (each command in one line, on standard
// output for a request, on standard error with status 2 for no command)
// and that every command takes -h and --help.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "\t"+c.name+" ") {
				t.Errorf("%v: the overview lacks %s:\n%s", args, c.name, stdout)
			}
		}
	}
	if code, _, stderr := runCmd(t); code != 2 || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no arguments: exit %d, stderr %q", code, stderr)
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			code, stdout, stderr := runCmd(t, args...)
			if code != 0 || !strings.Contains(stderr, "usage: deeplda "+c.name) || stdout != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "deeplda ") ||
			!strings.Contains(stdout, " commit ") || !strings.Contains(stdout, runtime.Version()) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	b := report.Build{Version: "v1.2.3", Commit: "abc", Modified: true, Go: "go1.26.8", Platform: "linux/amd64"}
	if got, want := versionLine(b), "deeplda v1.2.3 commit abc+modified go1.26.8 linux/amd64"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	b.Commit = ""
	if got := versionLine(b); !strings.Contains(got, "commit unknown") {
		t.Errorf("versionLine without a commit = %q", got)
	}
}

func TestUnwritableOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "synth", "-epochs", "1", "-train", "100", "-test", "50", "-out", filepath.Join(file, "sub"))
	if code != 1 || !strings.Contains(stderr, "cannot create the output folder") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestSynthWritesReport(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "synth", "-epochs", "3", "-seed", "2", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "test accuracy") {
		t.Errorf("stdout lacks the summary: %q", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// The keys that users' scripts rely on.
	for _, path := range []string{
		"config", "backend.name", "backend.adapter", "train.accuracy", "test.accuracy", "test.ece",
		"test.ece15", "test.nll", "head.pi", "head.mu", "head.cov", "head.logdet_cov",
		"consistency.mean_shift", "consistency.kl", "history", "seconds", "version", "timestamp",
	} {
		if lookup(r, path) == nil {
			t.Errorf("report.json lacks %s", path)
		}
	}
	hist := r["history"].([]any)
	if len(hist) != 3 {
		t.Fatalf("history has %d epochs, want 3", len(hist))
	}
	for _, k := range []string{"loss", "train_accuracy", "test_accuracy", "logdet_cov"} {
		if hist[2].(map[string]any)[k] == nil {
			t.Errorf("history rows lack %s", k)
		}
	}
	if acc := lookup(r, "test.accuracy").(float64); acc < 0.9 {
		t.Errorf("test accuracy %.3f after 3 epochs of DNLL on the toy data", acc)
	}
	for _, f := range []string{"embedding.svg", "curves.svg", "accuracy.svg", "logdet.svg", "reliability.svg", "confidence.svg", "checkpoint.safetensors"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
}

func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func TestBenchPrintsJSON(t *testing.T) {
	code, stdout, stderr := runCmd(t, "bench", "-backend", "cpu", "-model", "matmul", "-size", "64", "-steps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if g, ok := r["gflops"].(float64); !ok || g <= 0 || lookup(r, "backend.name") != "cpu" {
		t.Errorf("bench printed %v", r)
	}
}

// TestAutoSkipsSoftwareAdapters checks that -backend auto prefers the CPU
// backend over a WebGPU adapter that itself runs on the CPU (lavapipe).
func TestAutoSkipsSoftwareAdapters(t *testing.T) {
	gpu, software, err := openWebGPU()
	if err != nil || !software {
		if err == nil {
			gpu.Close()
		}
		t.Skipf("SKIPPED: needs a software WebGPU adapter (got %v)", err)
	}
	gpu.Close()
	code, stdout, stderr := runCmd(t, "bench", "-model", "matmul", "-size", "32", "-steps", "1")
	if code != 0 || !strings.Contains(stdout, `"name":"cpu"`) || !strings.Contains(stderr, "CPU implementation") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
