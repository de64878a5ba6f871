package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// TestEvalIntervals runs deeplda eval with BatchNorm recalibration on the
// golden Fashion-MNIST checkpoint and 512 test images and finds the
// bootstrap intervals accuracy_ci and ece_ci in every split of report.json
// that has an accuracy, each around its estimate, and in the printed line.
func TestEvalIntervals(t *testing.T) {
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out, stdout := evalGolden(t, ckpt, "-limit-test", "512", "-bn-recalibrate", "2", "-batch", "64", "-limit-train", "128")
	if !strings.Contains(stdout, "512 test images: accuracy ") || !strings.Contains(stdout, "% (95% interval ") {
		t.Errorf("stdout lacks the intervals:\n%s", stdout)
	}
	r := readReport(t, out)
	for _, split := range []string{"test", "batchnorm.running_stats", "batchnorm.recalibrated"} {
		for _, key := range []string{"accuracy", "ece"} {
			v, ok := lookup(r, split+"."+key).(float64)
			ci, _ := lookup(r, split+"."+key+"_ci").([]any)
			if !ok || len(ci) != 2 {
				t.Errorf("%s: %s %v, %s_ci %v", split, key, lookup(r, split+"."+key), key, lookup(r, split+"."+key+"_ci"))
				continue
			}
			lo, _ := ci[0].(float64)
			hi, _ := ci[1].(float64)
			// 512 images: a 95% interval of an accuracy near 0.5-0.9 is
			// about 0.03-0.09 wide.
			if !(lo <= v && v <= hi && hi-lo > 0.005 && hi-lo < 0.2) {
				t.Errorf("%s: %s %v, %s_ci [%v, %v]", split, key, v, key, lo, hi)
			}
		}
	}
}

// evalGolden runs deeplda eval on the CPU backend of the checkpoint ckpt
// (goldenCheckpoint's) with the shared Fashion-MNIST and the flags extra,
// fails the test unless it exits 0, and returns its output folder and
// what it printed.
func evalGolden(t *testing.T, ckpt string, extra ...string) (out, stdout string) {
	t.Helper()
	out = t.TempDir()
	args := append([]string{"eval", "-backend", "cpu", "-checkpoint", ckpt, "-data", "fashion-mnist",
		"-datadir", filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist"), "-out", out}, extra...)
	code, stdout, stderr := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("deeplda %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out, stdout
}
