package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestTrainCompare trains both heads on 128 Fashion-MNIST images for one
// epoch with -compare, checks the heads' run folders, compare.json and the
// figures, then raises -epochs with -resume and checks that each head went
// on from its own resume file.
func TestTrainCompare(t *testing.T) {
	data := fmnistDir(t)
	out := t.TempDir()
	args := []string{"train", "-compare", "-backend", "cpu", "-data", "fashion-mnist", "-datadir", data, "-batch", "64",
		"-limit-train", "128", "-limit-test", "64", "-val", "0", "-seed", "2", "-quiet", "-out", out}
	code, stdout, stderr := runCmd(t, append(args, "-epochs", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "gap (LDA - softmax)") || !strings.Contains(stdout, "wrote "+filepath.Join(out, "compare.json")) {
		t.Errorf("stdout lacks the comparison: %s", stdout)
	}
	for _, f := range []string{"lda/report.json", "lda/checkpoint.safetensors", "lda/reliability.svg", "softmax/report.json", "softmax/resume.safetensors",
		"compare.json", "compare_ece.svg", "compare_accuracy.svg", "compare_reliability.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if l, s := lookup(readReport(t, filepath.Join(out, "lda")), "config.loss"), lookup(readReport(t, filepath.Join(out, "softmax")), "config.loss"); l != "dnll" || s != "ce" {
		t.Errorf("losses %v and %v, want dnll and ce", l, s)
	}
	if code, _, stderr := runCmd(t, append(args, "-epochs", "2", "-resume")...); code != 0 {
		t.Fatalf("-resume: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, experiment.CompareFile))
	if err != nil {
		t.Fatal(err)
	}
	var cmp experiment.Comparison
	if err := json.Unmarshal(b, &cmp); err != nil {
		t.Fatal(err)
	}
	for _, h := range []experiment.CompareHead{cmp.LDA, cmp.Softmax} {
		if len(h.History) != 2 || h.Status != "done" {
			t.Errorf("%s head after -resume -epochs 2: %d epochs, status %q", h.Head, len(h.History), h.Status)
		}
	}
	if want := cmp.LDA.Test.ECE - cmp.Softmax.Test.ECE; cmp.Gap.ECE != want {
		t.Errorf("gap ECE %v, want %v", cmp.Gap.ECE, want)
	}
}

// TestTrainCompareNothingToResume checks the one-line error of -compare
// -resume in a folder without runs.
func TestTrainCompareNothingToResume(t *testing.T) {
	data := fmnistDir(t)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "train", "-compare", "-resume", "-backend", "cpu", "-datadir", data, "-limit-train", "128", "-limit-test", "64", "-val", "0", "-out", out)
	want := "nor " + filepath.Join(out, "softmax") + " holds a resume.safetensors: nothing to resume"
	if code == 0 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("exit %d, stderr %q; want one line with %q", code, stderr, want)
	}
}
