package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
	"github.com/deeplda/deeplda/train/traintest"
)

// fmnistDir returns the shared Fashion-MNIST folder (or skips).
func fmnistDir(t *testing.T) string {
	return filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
}

// goldenCheckpoint writes the final parameters (adam/final/*) of a golden
// model file as a checkpoint with PyTorch's names and returns its path.
func goldenCheckpoint(t *testing.T, name string) (string, *safetensors.File) {
	t.Helper()
	g := traintest.Open(t, name)
	f := safetensors.New()
	for n, v := range g.Tensors {
		if k, ok := strings.CutPrefix(n, "adam/final/"); ok {
			f.Set(k, v)
		}
	}
	path := filepath.Join(t.TempDir(), name+".safetensors")
	if err := safetensors.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path, g
}

func noPanic(t *testing.T, args []string, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("%v: panic trace in stderr: %s", args, stderr)
	}
}

func TestImageBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-data", "svhn"}, `-data must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{[]string{"train", "-head", "mlp"}, "-head must be lda or softmax"},
		{[]string{"train", "-head", "softmax", "-loss", "dnll"}, "-loss: the softmax head trains with ce, not dnll"},
		{[]string{"train", "-cov", "banana"}, `-cov must be full, diag or spherical, got "banana"`},
		{[]string{"train", "-augment", "rotate"}, "-augment must be"},
		{[]string{"train", "-epochs", "0"}, "-epochs must be at least 1"},
		{[]string{"train", "-bn-recalibrate", "-3"}, "-bn-recalibrate must be"},
		{[]string{"train", "-limit-train", "x"}, `invalid value "x" for flag -limit-train`},
		{[]string{"train", "extra"}, `unexpected argument "extra"`},
		{[]string{"sweep", "-lambdas", "0.1,abc"}, `invalid value "0.1,abc" for flag -lambdas`},
		{[]string{"sweep", "-lambdas", "0,1"}, "every lambda must be a finite number > 0"},
		{[]string{"sweep", "-seeds", "0"}, "-seeds must be at least 1"},
		{[]string{"eval"}, "-checkpoint is required"},
		{[]string{"eval", "-checkpoint", "x", "-data", "svhn"}, `-data must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{[]string{"eval", "-checkpoint", "x", "-limit-test", "-1"}, "must be >= 0"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		noPanic(t, tc.args, stderr)
	}
}

func TestImageBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.safetensors")
	if err := os.WriteFile(garbage, []byte("this is not a safetensors file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A checkpoint of the toy MLP: no ConvNet tensors.
	mlp := filepath.Join(dir, "mlp")
	if code, _, stderr := runCmd(t, "synth", "-epochs", "1", "-train", "100", "-test", "50", "-backend", "cpu", "-quiet", "-out", mlp); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	// A ConvNet checkpoint that lacks a parameter.
	full, _ := goldenCheckpoint(t, "convnet_fmnist")
	f, err := safetensors.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	delete(f.Tensors, "enc.bn3.running_var")
	partial := filepath.Join(dir, "partial.safetensors")
	if err := safetensors.WriteFile(partial, f); err != nil {
		t.Fatal(err)
	}
	cifar, _ := goldenCheckpoint(t, "convnet_cifar")
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-datadir", empty, "-quiet"}, "not found"},
		{[]string{"train", "-datadir", empty, "-quiet"}, "add -fetch to download them"},
		{[]string{"sweep", "-data", "cifar10", "-datadir", empty, "-quiet"}, "cifar-10-binary.tar.gz"},
		{[]string{"eval", "-checkpoint", filepath.Join(dir, "missing.safetensors")}, "reading the checkpoint"},
		{[]string{"eval", "-checkpoint", garbage}, "reading the checkpoint"},
		{[]string{"eval", "-checkpoint", filepath.Join(mlp, "checkpoint.safetensors")}, "no tensor enc.conv1.weight: not a checkpoint of the paper's ConvNet"},
		{[]string{"eval", "-checkpoint", partial}, `missing tensor "enc.bn3.running_var"`},
		{[]string{"eval", "-checkpoint", cifar, "-data", "fashion-mnist"}, "the checkpoint takes 3-channel images in 10 classes; fashion-mnist has 1 channels"},
		{[]string{"eval", "-checkpoint", full, "-datadir", empty}, "add -fetch"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", tc.args, code, stderr, tc.want)
		}
		noPanic(t, tc.args, stderr)
	}
}

// TestEvalGoldenCheckpoints evaluates PyTorch's final parameters of the
// golden ConvNet files (spherical head, 1x28x28; diagonal head, 3x32x32) on
// their inputs: the discriminants must match PyTorch's evaluation-mode
// delta (adam/eval_delta).
func TestEvalGoldenCheckpoints(t *testing.T) {
	tol := traintest.CPUTolerance
	for _, tc := range []struct {
		name string
		hw   [2]int
	}{{"convnet_fmnist", [2]int{28, 28}}, {"convnet_cifar", [2]int{32, 32}}} {
		path, g := goldenCheckpoint(t, tc.name)
		m, err := model.LoadConvNet(cpu.New(), path, tc.hw)
		if err != nil {
			t.Fatal(err)
		}
		x, y := g.Tensors["x"], g.Tensors["y"]
		set := train.Dataset{X: x.F32, Y: y.I32, Shape: x.Shape[1:], Classes: m.Spec.Classes}
		res, err := experiment.Evaluate(m, set, 2, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		traintest.Compare(t, tc.name+" eval_delta", res.Out.Scores, g.Tensors["adam/eval_delta"].F32, tol)
		if res.Report.Head.CovKind == "" || res.Report.Test.Examples != len(y.I32) {
			t.Errorf("%s: report %+v", tc.name, res.Report.Head)
		}
	}
}

// TestEvalCommand runs deeplda eval on the golden Fashion-MNIST checkpoint
// and real test images, with the dump.
func TestEvalCommand(t *testing.T) {
	data := fmnistDir(t)
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out := t.TempDir()
	dump := filepath.Join(out, "dump.safetensors")
	code, stdout, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-data", "fashion-mnist", "-datadir", data, "-limit-test", "100", "-out", out, "-dump", dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"lda spherical head, 100 test images", "the numbers above use the checkpoint's running statistics", "add -bn-recalibrate 20 with the run's -batch, -seed and -limit-train"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout %q lacks %q", stdout, want)
		}
	}
	r := readReport(t, out)
	for _, k := range []string{"kind", "config.checkpoint", "test.accuracy", "test.ece", "test.reliability", "head.sigma", "head.mu"} {
		if lookup(r, k) == nil {
			t.Errorf("report.json lacks %s", k)
		}
	}
	f, err := safetensors.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	for name, shape := range map[string][]int{"z": {100, 9}, "delta": {100, 10}, "y": {100}} {
		if v, ok := f.Tensors[name]; !ok || safetensors.FormatShape(v.Shape) != safetensors.FormatShape(shape) {
			t.Errorf("dump %s: %v, want shape %v", name, v.Shape, shape)
		}
	}
	for _, name := range []string{"embedding.svg", "reliability.svg", "confidence.svg"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing", name)
		}
	}
}

func readReport(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTrainImages trains one epoch on 300 Fashion-MNIST images and checks
// report.json, the figures and the checkpoint; then deeplda eval of the
// checkpoint reproduces both test accuracies (trained and recalibrated
// BatchNorm statistics).
func TestTrainImages(t *testing.T) {
	data := fmnistDir(t)
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "train", "-backend", "cpu", "-data", "fashion-mnist", "-datadir", data, "-epochs", "1", "-batch", "64",
		"-limit-train", "300", "-limit-test", "200", "-val", "100", "-seed", "3", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"test accuracy", "BatchNorm:", "head: sigma", "temperature scaling on 100 held-out images"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q: %s", s, stdout)
		}
	}
	r := readReport(t, out)
	for _, k := range []string{
		"kind", "config.data", "config.augment", "backend.name", "train.accuracy", "test.accuracy", "test.ece", "test.ece15", "test.nll",
		"test.reliability", "test.confidence_histogram", "head.kind", "head.sigma", "head.mu", "head.cov", "head.logdet_cov",
		"consistency.mean_shift", "history", "seconds", "status",
		"batchnorm.batches", "batchnorm.running_stats.accuracy", "batchnorm.recalibrated.accuracy", "batchnorm.train_mode_accuracy",
		"temperature_scaling.temperature", "temperature_scaling.test_ece_before", "temperature_scaling.test_ece_after",
	} {
		if lookup(r, k) == nil {
			t.Errorf("report.json lacks %s", k)
		}
	}
	if lookup(r, "config.augment") != "none" || lookup(r, "config.loss") != "dnll" || lookup(r, "status") != "done" {
		t.Errorf("config %v, status %v", r["config"], r["status"])
	}
	hist := r["history"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["test_ece"] == nil || hist[0].(map[string]any)["sigma"] == nil {
		t.Errorf("history %v", hist)
	}
	if n := lookup(r, "batchnorm.batches").(float64); n != 5 {
		t.Errorf("recalibrated over %v batches, want 5 (all 300 images at batch 64)", n)
	}
	for _, f := range []string{"embedding.svg", "curves.svg", "accuracy.svg", "logdet.svg", "reliability.svg", "confidence.svg", "reliability_temperature.svg", "checkpoint.safetensors"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}

	ckpt := filepath.Join(out, "checkpoint.safetensors")
	ev := t.TempDir()
	if code, _, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-datadir", data, "-limit-test", "200", "-out", ev); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	if got, want := lookup(readReport(t, ev), "test.accuracy"), lookup(r, "batchnorm.running_stats.accuracy"); got != want {
		t.Errorf("eval with the checkpoint's statistics: accuracy %v, train reported %v", got, want)
	}
	if code, _, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-datadir", data, "-limit-test", "200", "-out", ev,
		"-bn-recalibrate", "20", "-batch", "64", "-seed", "3", "-limit-train", "300"); code != 0 {
		t.Fatalf("eval -bn-recalibrate: exit %d: %s", code, stderr)
	}
	re := readReport(t, ev)
	if got, want := lookup(re, "test.accuracy"), lookup(r, "test.accuracy"); got != want {
		t.Errorf("eval with recalibrated statistics: accuracy %v, train reported %v", got, want)
	}
	if lookup(re, "batchnorm.running_stats.accuracy") != lookup(r, "batchnorm.running_stats.accuracy") {
		t.Errorf("eval -bn-recalibrate: running-statistics accuracy %v", lookup(re, "batchnorm.running_stats.accuracy"))
	}
	// The recalibrated checkpoint gives those figures as it is, and says
	// how its statistics were made.
	recal := filepath.Join(ev, "recalibrated.safetensors")
	f, err := safetensors.ReadFile(recal)
	if err != nil || f.Metadata["batchnorm"] != "recalibrated over 5 batches of 64 training images (seed 3)" {
		t.Fatalf("recalibrated.safetensors: %v, metadata batchnorm %q", err, f.Metadata["batchnorm"])
	}
	ev2 := t.TempDir()
	if code, _, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", recal, "-datadir", data, "-limit-test", "200", "-out", ev2); code != 0 {
		t.Fatalf("eval of the recalibrated checkpoint: exit %d: %s", code, stderr)
	}
	if got, want := lookup(readReport(t, ev2), "test.accuracy"), lookup(r, "test.accuracy"); got != want {
		t.Errorf("eval of the recalibrated checkpoint: accuracy %v, train reported %v", got, want)
	}
}

// TestSweepCommand runs a tiny sweep: 2 lambdas x 2 seeds.
func TestSweepCommand(t *testing.T) {
	data := fmnistDir(t)
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "sweep", "-backend", "cpu", "-datadir", data, "-lambdas", "0.01,1", "-seeds", "2", "-epochs", "1", "-batch", "32",
		"-limit-train", "64", "-limit-test", "32", "-val", "0", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "seed") < 4 {
		t.Errorf("stdout %q", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res experiment.SweepResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 4 || len(res.Summary) != 2 || res.Summary[1].Lambda != 1 || res.Summary[1].Runs != 2 || res.Summary[0].Sigma == nil {
		t.Errorf("sweep.json: %d points, summary %+v", len(res.Points), res.Summary)
	}
	for _, f := range []string{"sweep_accuracy.svg", "sweep_ece.svg", "sweep_sigma.svg", "runs/lambda-0.01-seed-2/report.json", "runs/lambda-1-seed-1/report.json"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
}
