package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// TestOODBadCommandLines checks that -ood refuses, with one line and exit
// status 2, a data set of another image shape, the model's own, and an
// unknown one, before reading any data.
func TestOODBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-checkpoint", "x", "-ood", "cifar10"}, "-ood cifar10 has 3x32x32 images and a model of fashion-mnist takes 1x28x28"},
		{[]string{"eval", "-checkpoint", "x", "-data", "mnist", "-ood", "MNIST"}, "-ood must be another data set than the model's own, mnist"},
		{[]string{"train", "-ood", "svhn"}, `-ood must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{[]string{"train", "-data", "cifar10", "-ood", "mnist"}, "-ood mnist has 1x28x28 images and a model of cifar10 takes 3x32x32"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and the one line %q", tc.args, code, stderr, tc.want)
		}
		noPanic(t, tc.args, stderr)
	}
}

// TestEvalOOD runs deeplda eval -ood mnist on the golden Fashion-MNIST
// checkpoint with 64 images of each test set, and checks report.json's
// ood part (the LDA head's six scores), the printed lines and the figures.
func TestEvalOOD(t *testing.T) {
	datasets := sharedtest.Dir(t, "datasets")
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out, stdout := evalGolden(t, ckpt, "-ood", "mnist", "-ood-datadir", filepath.Join(datasets, "mnist"), "-limit-test", "64")
	for _, s := range []string{"out-of-distribution (64 test images against 64 of mnist), max_softmax: AUROC", "density: AUROC"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q: %s", s, stdout)
		}
	}
	r := readReport(t, out)
	if lookup(r, "ood.dataset") != "mnist" || lookup(r, "ood.n_in") != 64.0 || lookup(r, "ood.n_out") != 64.0 || lookup(r, "config.ood") != "mnist" {
		t.Errorf("ood %v, config %v", r["ood"], r["config"])
	}
	for _, score := range []string{"max_softmax", "max_logit", "energy", "density", "max_delta", "mahalanobis"} {
		if !strings.Contains(stdout, "of mnist), "+score+": AUROC") {
			t.Errorf("stdout lacks the %s score: %s", score, stdout)
		}
		for _, k := range []string{"auroc", "aupr", "fpr_at_95_tpr"} {
			if v, ok := lookup(r, "ood."+score+"."+k).(float64); !ok || v < 0 || v > 1 {
				t.Errorf("ood.%s.%s = %v, want a number in [0,1]", score, k, lookup(r, "ood."+score+"."+k))
			}
		}
	}
	for _, name := range []string{"ood_scores.svg", "ood_roc.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing", name)
		}
	}
	// A folder without the files: the message names -ood-datadir.
	empty := t.TempDir()
	code, _, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-datadir", filepath.Join(datasets, "fashion-mnist"),
		"-ood", "mnist", "-ood-datadir", empty, "-limit-test", "64", "-out", t.TempDir())
	if want := "(-ood-datadir " + empty + " lacks the published files of mnist"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("empty -ood-datadir: exit %d, stderr %q; want exit 1 and %q", code, stderr, want)
	}
}

// TestTrainOOD trains one epoch on 128 Fashion-MNIST images with -ood
// mnist: the finished run's report.json has the ood part for its 64 test
// images against 64 MNIST ones, and the figures are written.
func TestTrainOOD(t *testing.T) {
	datasets := sharedtest.Dir(t, "datasets")
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "train", "-backend", "cpu", "-data", "fashion-mnist", "-datadir", filepath.Join(datasets, "fashion-mnist"),
		"-ood", "mnist", "-ood-datadir", filepath.Join(datasets, "mnist"), "-epochs", "1", "-batch", "64", "-limit-train", "128", "-limit-test", "64",
		"-val", "0", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "out-of-distribution (64 test images against 64 of mnist), density: AUROC") {
		t.Errorf("stdout lacks the density score: %s", stdout)
	}
	r := readReport(t, out)
	if lookup(r, "ood.n_out") != 64.0 || lookup(r, "ood.density.auroc") == nil || lookup(r, "ood.max_softmax.fpr_at_95_tpr") == nil {
		t.Errorf("ood %v", r["ood"])
	}
	for _, name := range []string{"ood_scores.svg", "ood_roc.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing", name)
		}
	}
}
