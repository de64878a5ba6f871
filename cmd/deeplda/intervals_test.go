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
	datasets := sharedtest.Dir(t, "datasets")
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-data", "fashion-mnist", "-datadir", filepath.Join(datasets, "fashion-mnist"),
		"-limit-test", "512", "-bn-recalibrate", "2", "-batch", "64", "-limit-train", "128", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
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
