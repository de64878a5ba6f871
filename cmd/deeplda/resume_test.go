package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSynthResume trains the toy run for 2 epochs, then resumes it with
// -epochs 4: its checkpoint must equal that of a straight 4-epoch run byte
// for byte, and its report the same history.
func TestSynthResume(t *testing.T) {
	common := []string{"synth", "-backend", "cpu", "-train", "600", "-test", "100", "-quiet"}
	straight, resumed := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"-epochs", "4", "-out", straight},
		{"-epochs", "2", "-out", resumed},
		{"-epochs", "4", "-out", resumed, "-resume"},
	} {
		code, _, stderr := runCmd(t, append(common, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if resume := args[len(args)-1] == "-resume"; resume != strings.Contains(stderr, "resuming after epoch 2 of 4") {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
	read := func(dir, name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read(straight, "checkpoint.safetensors"), read(resumed, "checkpoint.safetensors")) {
		t.Error("the resumed run's checkpoint differs from the straight run's")
	}
	history := func(dir string) []any {
		h, _ := readReport(t, dir)["history"].([]any)
		if len(h) != 4 {
			t.Fatalf("%s: %d epochs of history, want 4", dir, len(h))
		}
		return h
	}
	a, b := history(straight), history(resumed)
	for i := range a {
		ea, eb := a[i].(map[string]any), b[i].(map[string]any)
		for _, k := range []string{"loss", "train_accuracy", "test_accuracy", "test_ece", "logdet_cov"} {
			if ea[k] != eb[k] {
				t.Errorf("epoch %d: %s %v resumed, %v straight", i+1, k, eb[k], ea[k])
			}
		}
	}
}

// TestResumeErrors: nothing to resume, or another run's state, is a usage
// error that says why.
func TestResumeErrors(t *testing.T) {
	empty, trained := t.TempDir(), t.TempDir()
	if code, _, stderr := runCmd(t, "synth", "-backend", "cpu", "-epochs", "1", "-train", "300", "-test", "50", "-quiet", "-out", trained); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", empty}, "nothing to resume"},
		{[]string{"-out", trained, "-lambda", "0.5"}, "lambda 0.01, not 0.5"},
	} {
		args := append([]string{"synth", "-backend", "cpu", "-epochs", "2", "-train", "300", "-test", "50", "-quiet", "-resume"}, tc.args...)
		code, _, stderr := runCmd(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
