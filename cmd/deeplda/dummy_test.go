package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestDummySetting adds a setting to experiment.Settings as one row, bound
// in the image run's configuration, and finds it in deeplda train -h, as
// train's flag, in the command's error for a value out of its bounds and
// in report.json's config. (The row's variable is the test's own, one for
// every configuration.)
func TestDummySetting(t *testing.T) {
	dummy := 3
	defer func(s []experiment.Setting) { experiment.Settings = s }(experiment.Settings)
	experiment.Settings = append(slices.Clip(experiment.Settings), experiment.Setting{
		Name: "dummy-setting", Kind: experiment.KindInt, Min: 1, Max: 9, Doc: "a setting that TestDummySetting adds",
		Var: func(c any) any {
			if _, ok := c.(*experiment.ImageConfig); ok {
				return &dummy
			}
			return nil
		},
	})

	if _, _, stderr := runCmd(t, "train", "-h"); !strings.Contains(stderr, "  -dummy-setting int\n    \ta setting that TestDummySetting adds (default 3)\n") {
		t.Errorf("train -h lacks the setting:\n%s", stderr)
	}
	if code, _, stderr := runCmd(t, "train", "-dummy-setting", "10"); code != 2 || !strings.Contains(stderr, "-dummy-setting must be at most 9, got 10") {
		t.Errorf("train -dummy-setting 10: exit %d, %s", code, stderr)
	}
	out := t.TempDir()
	code, _, stderr := runCmd(t, "train", "-backend", "cpu", "-datadir", fmnistDir(t), "-epochs", "1", "-batch", "64", "-limit-train", "128",
		"-limit-test", "64", "-val", "0", "-bn-recalibrate", "0", "-quiet", "-out", out, "-dummy-setting", "7")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	if got := lookup(readReport(t, out), "config.dummy_setting"); got != 7.0 {
		t.Errorf("report.json's config.dummy_setting is %v, want 7", got)
	}
}
