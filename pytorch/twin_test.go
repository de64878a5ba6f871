// Package twin_test checks the PyTorch twin (pytorch/train.py) against this
// project: it trains the twin with torchrun (2 processes on the CPU, gloo)
// for a few steps, opens the checkpoint it wrote with deeplda eval, and
// computes the loss of each process's first batch with the model package
// from the twin's initial weights.
//
// It needs Debian's python3-torch (or $DEEPLDA_PYTHON, a Python with
// PyTorch) and ../shared/datasets: where either is missing the test fails
// under CI and is skipped loudly elsewhere.
package twin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// firstLossRTol is the relative tolerance of the first losses: float32 sums
// in another order (the golden ConvNet losses agree within 1e-4 too).
const firstLossRTol = 1e-4

// python returns a Python interpreter that imports torch: $DEEPLDA_PYTHON,
// else Debian's /usr/bin/python3 (the one that sees python3-torch), else
// python3 on the PATH.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv("DEEPLDA_PYTHON")
	if py == "" {
		py = "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			py = "/usr/bin/python3"
		}
	}
	if out, err := exec.Command(py, "-c", "import torch").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("%s cannot import torch (apt-get install -y python3-torch, or set DEEPLDA_PYTHON): %v %s", py, err, strings.TrimSpace(string(out)))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED: the PyTorch twin was not checked: " + msg)
	}
	return py
}

// run runs a command, failing the test with its output if it fails.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return out
}

// summary is the part of a test evaluation that both implementations
// write.
type summary struct {
	Accuracy float64 `json:"accuracy"`
	NLL      float64 `json:"nll"`
}

// evalReport is the part of report.json that the test reads: the test
// split and, from deeplda eval -bn-recalibrate, the evaluation with the
// checkpoint's own BatchNorm statistics.
type evalReport struct {
	Status    string  `json:"status"`
	Test      summary `json:"test"`
	BatchNorm struct {
		Running summary `json:"running_stats"`
	} `json:"batchnorm"`
	Head struct {
		Sigma     float64 `json:"sigma"`
		LogDetCov float64 `json:"logdet_cov"`
	} `json:"head"`
	// History is the twin's, with -bn-history's recalibrated figures.
	History []struct {
		TestAccuracy             float64  `json:"test_accuracy"`
		TestAccuracyRecalibrated *float64 `json:"test_accuracy_recalibrated"`
	} `json:"history"`
}

func readReport(t *testing.T, path string) evalReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r evalReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Status != "done" {
		t.Fatalf("%s: status %q", path, r.Status)
	}
	return r
}

func TestTwin(t *testing.T) {
	py := python(t)
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	dir := t.TempDir()
	out, first := filepath.Join(dir, "torch"), filepath.Join(dir, "first")
	// A rendezvous on a free port (--standalone always takes 29400), and
	// --redirects 1 --tee 1: Debian's torchrun 1.13 fails on Python 3.11
	// with their default of 0 (see README).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := l.Addr().String()
	l.Close()
	run(t, py, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc_per_node", "2",
		"--rdzv_backend", "c10d", "--rdzv_endpoint", endpoint, "--rdzv_id", "twin-test",
		"--redirects", "1", "--tee", "1", "--log_dir", filepath.Join(dir, "logs"),
		"train.py", "-data", "fashion-mnist", "-datadir", data, "-limit-train", "512", "-limit-test", "256",
		"-val", "256", "-epochs", "1", "-batch", "64", "-out", out, "-dump-first-step", first, "-bn-history", "-bn-recalibrate", "8")

	t.Run("eval", func(t *testing.T) {
		bin := filepath.Join(dir, "deeplda")
		run(t, "go", "build", "-o", bin, "../cmd/deeplda")
		evalOut := filepath.Join(dir, "eval")
		run(t, bin, "eval", "-backend", "cpu", "-checkpoint", filepath.Join(out, "checkpoint.safetensors"),
			"-data", "fashion-mnist", "-datadir", data, "-limit-test", "256", "-out", evalOut,
			"-bn-recalibrate", "8", "-batch", "64", "-limit-train", "512")
		ev, torch := readReport(t, filepath.Join(evalOut, "report.json")), readReport(t, filepath.Join(out, "report.json"))
		got, want := ev.BatchNorm.Running, torch.Test
		t.Logf("checkpoint's BatchNorm statistics: test accuracy %.4f (PyTorch %.4f), NLL %.5f (PyTorch %.5f); recomputed: accuracy %.4f; sigma %.7g (PyTorch %.7g)",
			got.Accuracy, want.Accuracy, got.NLL, want.NLL, ev.Test.Accuracy, ev.Head.Sigma, torch.Head.Sigma)
		// The same weights, statistics and images in evaluation mode: the
		// predictions may differ only where two scores tie within float32
		// rounding.
		if math.Abs(got.Accuracy-want.Accuracy) > 2.0/256 || math.Abs(got.NLL-want.NLL) > 1e-3*math.Abs(want.NLL) {
			t.Errorf("deeplda eval: %+v; PyTorch's report: %+v", got, want)
		}
		// The learned sigma (log_var has moved from 0) and log det Sigma.
		if math.Abs(ev.Head.Sigma-torch.Head.Sigma) > 1e-6*torch.Head.Sigma || math.Abs(ev.Head.LogDetCov-torch.Head.LogDetCov) > 1e-5 || torch.Head.Sigma == 1 {
			t.Errorf("deeplda eval: head %+v; PyTorch's report: %+v", ev.Head, torch.Head)
		}
		// After 8 steps the running statistics (momentum 0.1) still trail
		// the weights; with recomputed ones the model is well above chance.
		if ev.Test.Accuracy < 0.2 {
			t.Errorf("test accuracy %.4f with recomputed BatchNorm statistics after 8 steps, want at least 0.2 (chance: 0.1)", ev.Test.Accuracy)
		}
		// The twin's -bn-history recomputes them the same way over the
		// same 512 images (8 batches of 64, in another order): its
		// epoch's figure and deeplda's agree within a few images, and
		// its trained statistics were put back (the row's own figure is
		// the checkpoint's).
		if h := torch.History; len(h) != 1 || h[0].TestAccuracyRecalibrated == nil ||
			math.Abs(*h[0].TestAccuracyRecalibrated-ev.Test.Accuracy) > 6.0/256 || h[0].TestAccuracy != want.Accuracy {
			t.Errorf("the twin's history %+v; want one row whose recalibrated test accuracy is about deeplda eval's %.4f", h, ev.Test.Accuracy)
		}
	})

	t.Run("first loss", func(t *testing.T) {
		checkFirstLosses(t, first, fashionMNIST(t, data), model.Spec{Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01}, 2, 32)
	})
}

// TestTwinHeads checks the first loss of the other heads and losses, each
// trained by the twin in one process (no torchrun) for two steps.
func TestTwinHeads(t *testing.T) {
	py := python(t)
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	ds := fashionMNIST(t, data)
	for _, spec := range []model.Spec{
		{Head: model.HeadLDA, Cov: kernels.Diagonal, Loss: kernels.DNLL, Lambda: 0.5},
		{Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.NLL},
		{Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.CE},
		{Head: model.HeadSoftmax, Loss: kernels.CE},
	} {
		head := fmt.Sprint(spec.Head)
		t.Run(head+"-"+spec.Cov.String()+"-"+spec.Loss.String(), func(t *testing.T) {
			dir := t.TempDir()
			run(t, py, "train.py", "-data", "fashion-mnist", "-datadir", data, "-head", head, "-cov", spec.Cov.String(),
				"-loss", spec.Loss.String(), "-lambda", fmt.Sprint(spec.Lambda), "-limit-train", "64", "-limit-test", "32", "-val", "0",
				"-epochs", "1", "-batch", "32", "-out", filepath.Join(dir, "out"), "-dump-first-step", dir)
			checkFirstLosses(t, dir, ds, spec, 1, 32)
		})
	}
}

// fashionMNIST returns the first 512 training images of Fashion-MNIST.
func fashionMNIST(t *testing.T, dir string) train.Dataset {
	t.Helper()
	set, _, err := images.Load("fashion-mnist", dir)
	if err != nil {
		t.Fatal(err)
	}
	return set.Dataset(512)
}

// checkFirstLosses reads dir/init.safetensors, written by the twin's
// -dump-first-step with procs processes of batch examples each, and
// checks the loss of each process's first batch against the model
// package's on the same weights and images of ds. head gives the head,
// covariance, loss and lambda; the rest is the ConvNet on Fashion-MNIST.
func checkFirstLosses(t *testing.T, dir string, ds train.Dataset, head model.Spec, procs, batch int) {
	t.Helper()
	f, err := safetensors.ReadFile(filepath.Join(dir, "init.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := f.GetI32("first_step/indices", procs, batch)
	if err != nil {
		t.Fatal(err)
	}
	losses, err := f.GetF32("first_step/loss", procs)
	if err != nil {
		t.Fatal(err)
	}
	// The weights before the first step: BatchNorm's running statistics
	// as initialised, before the first forward updated them.
	for _, name := range []string{"enc.bn1.running_var", "enc.bn6.running_var"} {
		v, err := f.GetF32(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range v {
			if x != 1 {
				t.Fatalf("%s[%d] = %v in init.safetensors, want the initial 1", name, i, x)
			}
		}
	}
	spec := head
	spec.Encoder, spec.Input, spec.Classes, spec.Dim, spec.LR = model.EncoderConvNet, ds.Shape, ds.Classes, ds.Classes-1, 1e-3
	be := cpu.New()
	size := ds.Size()
	for r, want := range losses {
		m, err := model.New(be, spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.LoadState(f, ""); err != nil {
			t.Fatal(err)
		}
		rows := idx[r*batch : (r+1)*batch]
		xs, ys := make([]float32, 0, len(rows)*size), make([]int32, 0, len(rows))
		for _, i := range rows {
			xs = append(xs, ds.Rows(make([]float32, size), int(i), int(i)+1)...)
			ys = append(ys, ds.Y[i])
		}
		x := be.Alloc(kernels.Float32, append([]int{len(rows)}, ds.Shape...)...)
		be.Write(x, xs)
		y := be.Alloc(kernels.Int32, len(rows))
		be.WriteInt(y, ys)
		_, scores := m.Forward(x, true)
		m.AddLoss(scores, y)
		st, err := m.ReadStats()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("process %d: first loss %.7g, PyTorch %.7g", r, st.Loss, want)
		if d := math.Abs(st.Loss - float64(want)); !(d <= firstLossRTol*math.Abs(float64(want))) {
			t.Errorf("process %d: first loss %.7g, PyTorch %.7g (relative difference %.2g, want <= %g)", r, st.Loss, want, d/math.Abs(float64(want)), firstLossRTol)
		}
		be.Free(x)
		be.Free(y)
		m.Release()
	}
}

// TestTwinStopsOnNaN checks that a diverging run stops with one error line,
// exit status 1 and the reason in report.json, and writes no checkpoint of
// the diverged weights.
func TestTwinStopsOnNaN(t *testing.T) {
	py := python(t)
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	out := t.TempDir()
	cmd := exec.Command(py, "train.py", "-data", "fashion-mnist", "-datadir", data, "-limit-train", "64", "-limit-test", "32",
		"-val", "0", "-epochs", "2", "-batch", "32", "-lr", "1e30", "-out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr:\n%s", err, stderr.String())
	}
	want := "error: stopped: the training loss became nan in epoch 1; no checkpoint was written"
	if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "Traceback") {
		t.Errorf("stderr %q, want the line %q and no traceback", stderr.String(), want)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(b, &r); err != nil || !strings.HasPrefix(r.Status, "stopped: the training loss became nan in epoch 1") {
		t.Errorf("report.json status %q (%v)", r.Status, err)
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoint.safetensors")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkpoint.safetensors of a diverged epoch: %v", err)
	}
}

// TestTwinFreezeHead trains the twin for an epoch with -freeze-head and
// finds the checkpoint's head tensors equal to the initial ones that
// -dump-first-step wrote, and its encoder's moved; and report.json's test
// split with its bootstrap intervals around the accuracy and the ECE.
func TestTwinFreezeHead(t *testing.T) {
	py := python(t)
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(py, "train.py", "-data", "fashion-mnist", "-datadir", data, "-limit-train", "64", "-limit-test", "32",
		"-val", "0", "-epochs", "1", "-batch", "32", "-freeze-head", "-out", out, "-dump-first-step", dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	init, err := safetensors.ReadFile(filepath.Join(dir, "init.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := safetensors.ReadFile(filepath.Join(out, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	heads := 0
	for _, name := range []string{"head.mu", "head.prior_logits", "head.log_var", "enc.conv1.weight"} {
		a, inInit := init.Tensors[name]
		b, inFinal := final.Tensors[name]
		if !inInit || !inFinal || len(a.F32) == 0 {
			t.Fatalf("%s: in init.safetensors %v, in the checkpoint %v", name, inInit, inFinal)
		}
		same := slices.Equal(a.F32, b.F32)
		if strings.HasPrefix(name, "head.") {
			heads++
			if !same {
				t.Errorf("%s of the frozen head moved", name)
			}
		} else if same {
			t.Errorf("%s did not move", name)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Test struct {
			Accuracy   float64    `json:"accuracy"`
			ECE        float64    `json:"ece"`
			AccuracyCI [2]float64 `json:"accuracy_ci"`
			ECECI      [2]float64 `json:"ece_ci"`
		} `json:"test"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	s := r.Test
	if !(s.AccuracyCI[0] <= s.Accuracy && s.Accuracy <= s.AccuracyCI[1] && s.AccuracyCI[1] > s.AccuracyCI[0]) ||
		!(s.ECECI[1] > s.ECECI[0] && s.ECECI[0] >= 0) {
		t.Errorf("test split: accuracy %v in %v, ECE %v in %v", s.Accuracy, s.AccuracyCI, s.ECE, s.ECECI)
	}
}

// TestTwinResume trains the twin 2 epochs in one go, and 1 epoch then
// -resume to 2 (with another -eval-batch, which a resume may change), and
// finds the same checkpoint and history; a resume with other training
// settings is refused with one line.
func TestTwinResume(t *testing.T) {
	py := python(t)
	data := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	dir := t.TempDir()
	twin := func(out string, args ...string) (string, error) {
		cmd := exec.Command(py, append([]string{"train.py", "-data", "fashion-mnist", "-datadir", data, "-limit-train", "64", "-limit-test", "32",
			"-val", "0", "-batch", "32", "-bn-history", "-bn-recalibrate", "1", "-out", out}, args...)...)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	whole, split := filepath.Join(dir, "whole"), filepath.Join(dir, "split")
	if out, err := twin(whole, "-epochs", "2"); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if out, err := twin(split, "-epochs", "1"); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if out, err := twin(split, "-epochs", "2", "-lr", "0.01", "-resume"); err == nil || !strings.Contains(out, "-resume: ") || !strings.Contains(out, "is of a run with other settings (lr)") || strings.Contains(out, "Traceback") {
		t.Errorf("resume with another -lr: %v\n%s", err, out)
	}
	out, err := twin(split, "-epochs", "2", "-eval-batch", "32", "-resume")
	if err != nil || !strings.Contains(out, "resuming after epoch 1 of 2") {
		t.Fatalf("%v:\n%s", err, out)
	}
	a, err := safetensors.ReadFile(filepath.Join(whole, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := safetensors.ReadFile(filepath.Join(split, "checkpoint.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range a.Tensors {
		if !slices.Equal(v.F32, b.Tensors[name].F32) || !slices.Equal(v.I32, b.Tensors[name].I32) {
			t.Errorf("%s differs between the whole run and the resumed one", name)
		}
	}
	history := func(dir string) []map[string]any {
		raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			History []map[string]any `json:"history"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		for _, row := range r.History {
			delete(row, "seconds")
		}
		return r.History
	}
	hw, hs := history(whole), history(split)
	if len(hw) != 2 || fmt.Sprint(hw) != fmt.Sprint(hs) {
		t.Errorf("history of the whole run %v, of the resumed one %v", hw, hs)
	}
}
