package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// fakeImages returns an in-memory Fashion-MNIST-shaped data set whose
// classes differ by the brightness of a band of rows, so that a few steps
// learn something.
func fakeImages(nTrain, nTest int, seed uint64) ImageData {
	spec, _ := images.Lookup("fashion-mnist")
	rng := rand.New(rand.NewPCG(seed, 3))
	mk := func(n int, split string) *images.Set {
		s := &images.Set{Name: "fashion-mnist " + split, Shape: spec.Shape, Classes: 10, Mean: spec.Mean, Std: spec.Std,
			Pixels: make([]uint8, n*784), Labels: make([]uint8, n)}
		for i := 0; i < n; i++ {
			c := rng.IntN(10)
			s.Labels[i] = uint8(c)
			for p := 0; p < 784; p++ {
				v := rng.IntN(60)
				if p/28/3 == c%9 {
					v += 150
				}
				s.Pixels[i*784+p] = uint8(v)
			}
		}
		return s
	}
	return ImageData{Train: mk(nTrain, "train"), Test: mk(nTest, "test")}
}

func TestImageConfigValidate(t *testing.T) {
	ok := DefaultImages()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		edit       func(*ImageConfig)
		name, want string
	}{
		{func(c *ImageConfig) { c.Data = "svhn" }, "data", `data must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{func(c *ImageConfig) { c.Head = "mlp" }, "head", "head must be lda or softmax"},
		{func(c *ImageConfig) { c.Head, c.Loss = "softmax", "dnll" }, "loss", "the softmax head trains with ce, not dnll"},
		{func(c *ImageConfig) { c.Loss = "mse" }, "loss", `loss must be dnll, ce or nll, got "mse"`},
		{func(c *ImageConfig) { c.Cov = "banana" }, "cov", `cov must be full, diag or spherical, got "banana"`},
		{func(c *ImageConfig) { c.Epochs = 0 }, "epochs", "epochs must be at least 1, got 0"},
		{func(c *ImageConfig) { c.Batch = 0 }, "batch", "batch must be at least 1"},
		{func(c *ImageConfig) { c.LimitTrain = -1 }, "limit-train", "limit-train must be >= 0, got -1"},
		{func(c *ImageConfig) { c.LimitTest = -1 }, "limit-test", "limit-test must be >= 0, got -1"},
		{func(c *ImageConfig) { c.Val = -5 }, "val", "val must be >= 0"},
		{func(c *ImageConfig) { c.BNRecalibrate = -2 }, "bn-recalibrate", "bn-recalibrate must be a number of batches"},
		{func(c *ImageConfig) { c.Lambda = math.NaN() }, "lambda", "lambda must be a finite number"},
		{func(c *ImageConfig) { c.LR = 0 }, "lr", "learning rate must be a finite number > 0"},
		{func(c *ImageConfig) { c.Augment = "rotate" }, "augment", "augment must be"},
	} {
		c := DefaultImages()
		tc.edit(&c)
		checkSettingError(t, c.Validate(), tc.name, tc.want)
	}
	// Automatic choices.
	c := DefaultImages()
	c.Head, c.Loss = model.HeadSoftmax.String(), ""
	if r := c.Resolved(); r.Loss != "ce" || r.Augment != AugmentNone {
		t.Errorf("softmax on Fashion-MNIST resolves to loss %q, augment %q", r.Loss, r.Augment)
	}
	c.Data, c.Head = "cifar10", model.HeadLDA.String()
	if r := c.Resolved(); r.Loss != "dnll" || r.Augment != AugmentCropFlip {
		t.Errorf("LDA on CIFAR-10 resolves to loss %q, augment %q", r.Loss, r.Augment)
	}
	if s, err := ImageSpec(c, [3]int{3, 32, 32}, 100); err != nil || s.Dim != 99 || s.Classes != 100 || s.Encoder != model.EncoderConvNet || s.Head != model.HeadLDA {
		t.Errorf("CIFAR-100 spec %+v, %v; want d = 99", s, err)
	}
	c.Head = "mlp"
	_, err := ImageSpec(c, [3]int{3, 32, 32}, 100)
	checkSettingError(t, err, "head", `head must be lda or softmax, got "mlp"`)
}

// TestLoadImageDataErrors checks the messages of a missing data set and
// of another data set's files: they name the flags to use, not Go
// functions.
func TestLoadImageDataErrors(t *testing.T) {
	c := DefaultImages()
	c.DataDir = t.TempDir()
	_, err := LoadImageData(context.Background(), c, false)
	if err == nil || !strings.Contains(err.Error(), "add -fetch to download them") || !strings.Contains(err.Error(), "-datadir "+c.DataDir) ||
		!strings.Contains(err.Error(), "train-images-idx3-ubyte.gz") || strings.Contains(err.Error(), "images.") || strings.Contains(err.Error(), "Fetch") {
		t.Errorf("missing files: %v", err)
	}
	c.Data = "svhn"
	_, err = LoadImageData(context.Background(), c, false)
	checkSettingError(t, err, "data", `data must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`)
	c.Data, c.DataDir = "mnist", filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	_, err = LoadImageData(context.Background(), c, false)
	if err == nil || !strings.Contains(err.Error(), "holds fashion-mnist data, not mnist") || !strings.Contains(err.Error(), "-data fashion-mnist reads them") {
		t.Errorf("Fashion-MNIST as MNIST: %v", err)
	}
}

// TestImageRunFinish trains one epoch on a small in-memory data set and
// checks what Finish adds: both BatchNorm evaluations, temperature scaling
// and the figures.
func TestImageRunFinish(t *testing.T) {
	c := DefaultImages()
	c.Epochs, c.Batch, c.LimitTrain, c.LimitTest, c.Val, c.EvalBatch = 1, 32, 96, 48, 40, 64
	data := fakeImages(136, 48, 1)
	r, err := NewImagesFrom(cpu.New(), c, data)
	if err != nil {
		t.Fatal(err)
	}
	if r.TrainSet.Len() != 96 || r.Val.Len() != 40 || r.TestSet.Len() != 48 {
		t.Fatalf("splits %d/%d/%d, want 96/40/48", r.TrainSet.Len(), r.Val.Len(), r.TestSet.Len())
	}
	// The held-out images are the end of the training file.
	if !slices.Equal(r.Val.Rows(make([]float32, 784), 0, 1), data.Train.Dataset(0).Rows(make([]float32, 784), 96, 97)) {
		t.Error("held-out split does not start at image 96")
	}
	if r.BNBatches != BNAutoBatches {
		t.Errorf("3 steps: the automatic rule chose %d recalibration batches", r.BNBatches)
	}
	starts, phase, ended := phaseStarts(t)
	if err := (Driver{Phase: phase}).Drive(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	ended()
	// The test set with the running statistics once (the epoch's
	// evaluation serves the final one), with the recomputed ones once.
	if want := map[string]int{PhaseTest: 2, PhaseRecalibrate: 1, PhaseTrain: 1, PhaseVal: 1}; !maps.Equal(starts, want) {
		t.Errorf("phases %v, want %v", starts, want)
	}
	bn := r.Extras.BatchNorm
	if bn == nil || bn.Batches != 3 || bn.Recalibrated.Accuracy != r.Report.Test.Accuracy || bn.Running.Accuracy != r.Report.History[0].TestAccuracy {
		t.Fatalf("batchnorm report %+v", bn)
	}
	tr := r.Extras.Temperature
	if tr == nil || !(tr.T > 0) || tr.ValExamples != 40 || tr.TestECEBefore != r.Report.Test.ECE || tr.TestAfter.Accuracy != r.Report.Test.Accuracy {
		t.Fatalf("temperature report %+v", tr)
	}
	if r.Report.Head.Sigma == nil {
		t.Error("no head.sigma for the spherical head")
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "config", "train", "test", "head", "history", "batchnorm", "temperature_scaling"} {
		if m[k] == nil {
			t.Errorf("report lacks %q", k)
		}
	}
	figs := r.Figures()
	for _, f := range []string{"embedding.svg", "curves.svg", "accuracy.svg", "reliability.svg", "confidence.svg", "reliability_temperature.svg"} {
		if len(figs[f]) == 0 {
			t.Errorf("no %s", f)
		}
	}
	if !strings.Contains(string(figs["embedding.svg"]), "PCA of d = 9") || !strings.Contains(string(figs["embedding.svg"]), "Ankle boot") {
		t.Error("embedding.svg is not the PCA figure with the class names")
	}
	if !strings.Contains(string(figs["accuracy.svg"]), "test accuracy (running BatchNorm statistics)") {
		t.Error("accuracy.svg does not say which BatchNorm statistics its test curve uses")
	}
}

// TestRecalibrationRule checks the automatic rule and -bn-recalibrate 0.
func TestRecalibrationRule(t *testing.T) {
	data := fakeImages(64, 16, 2)
	c := DefaultImages()
	c.Batch, c.LimitTest, c.Val = 1, 16, 0 // 64 steps per epoch
	c.Epochs = BNAutoMaxSteps / 64
	r, err := NewImagesFrom(cpu.New(), c, data)
	if err != nil {
		t.Fatal(err)
	}
	if r.BNBatches != BNAutoBatches {
		t.Errorf("%d steps: %d batches", c.Epochs*64, r.BNBatches)
	}
	c.Epochs++
	if r, _ = NewImagesFrom(cpu.New(), c, data); r.BNBatches != 0 {
		t.Errorf("%d steps: %d batches, want 0", c.Epochs*64, r.BNBatches)
	}
	c.BNRecalibrate = 7
	if r, _ = NewImagesFrom(cpu.New(), c, data); r.BNBatches != 7 || !strings.Contains(r.bnRule(), "-bn-recalibrate 7") {
		t.Errorf("explicit 7: %d batches (%s)", r.BNBatches, r.bnRule())
	}
	c.LimitTrain, c.Val = 60, 10
	_, err = NewImagesFrom(cpu.New(), c, data)
	checkSettingError(t, err, "limit-train", "limit-train 60 with val 10 needs 70 training images")
	c.LimitTrain, c.Val = 0, 64
	_, err = NewImagesFrom(cpu.New(), c, data)
	checkSettingError(t, err, "val", "val 64 leaves no training image")
	c.Val, c.Data = 0, "cifar10"
	if _, err := NewImagesFrom(cpu.New(), c, data); err == nil || !strings.Contains(err.Error(), "images in") {
		t.Errorf("wrong data set: %v", err)
	}
}

// checkSettingError checks that err is a *SettingError of the setting
// name whose message contains want and has no flag syntax.
func checkSettingError(t *testing.T, err error, name, want string) {
	t.Helper()
	var se *SettingError
	switch {
	case !errors.As(err, &se):
		t.Errorf("error %v, want a SettingError of %s", err, name)
	case se.Name != name || !strings.Contains(se.Msg, want) || strings.Contains(se.Msg, "-"+name):
		t.Errorf("error of %s: %q, want one of %s with %q", se.Name, se.Msg, name, want)
	}
}

// TestLimitTestBeyondTheSet: a -limit-test above the test set's size uses
// the whole set and the run says so; one within it says nothing.
func TestLimitTestBeyondTheSet(t *testing.T) {
	c := DefaultImages()
	c.Epochs, c.Batch, c.LimitTrain, c.Val = 1, 32, 64, 0
	for _, tc := range []struct {
		limit, test int
		note        string
	}{
		{100, 48, "-limit-test 100 is more than the 48 test images of fashion-mnist: using all 48"},
		{48, 48, ""},
		{0, 48, ""},
	} {
		c.LimitTest = tc.limit
		r, err := NewImagesFrom(cpu.New(), c, fakeImages(64, 48, 1))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.Notes, "\n"); got != tc.note || r.TestSet.Len() != tc.test {
			t.Errorf("limit-test %d: %d test images, notes %q; want %d, %q", tc.limit, r.TestSet.Len(), got, tc.test, tc.note)
		}
	}
}

// TestBNHistory trains two epochs with and without bn-history: with it,
// every history row also has the test figures with recalibrated
// statistics (those of the last row equal the final recalibrated
// evaluation, which draws the same batches), and training is the same to
// the bit (the trained statistics are put back after each row).
func TestBNHistory(t *testing.T) {
	c := DefaultImages()
	c.Epochs, c.Batch, c.LimitTrain, c.LimitTest, c.Val, c.BNRecalibrate = 2, 32, 96, 48, 0, 2
	data := fakeImages(96, 48, 1)
	runs := map[bool]*ImageRun{}
	for _, on := range []bool{false, true} {
		c.BNHistory = on
		r, err := NewImagesFrom(cpu.New(), c, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := (Driver{}).Drive(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		runs[on] = r
	}
	off, on := runs[false], runs[true]
	for i, row := range on.Report.History {
		was := off.Report.History[i]
		if row.Loss != was.Loss || row.TestAccuracy != was.TestAccuracy || row.TestECE != was.TestECE || was.TestAccuracyRecalibrated != nil {
			t.Errorf("epoch %d: %+v with bn-history, %+v without; want the same training", i+1, row, was)
		}
		if row.TestAccuracyRecalibrated == nil || row.TestECERecalibrated == nil {
			t.Fatalf("epoch %d: no recalibrated figures", i+1)
		}
	}
	last := on.Report.History[len(on.Report.History)-1]
	if *last.TestAccuracyRecalibrated != on.Report.Test.Accuracy || *last.TestECERecalibrated != on.Report.Test.ECE ||
		on.Report.Test.Accuracy != off.Report.Test.Accuracy || on.Report.Test.ECE != off.Report.Test.ECE {
		t.Errorf("last epoch's recalibrated figures %v, %v; final test %+v with, %+v without", *last.TestAccuracyRecalibrated, *last.TestECERecalibrated, on.Report.Test, off.Report.Test)
	}
}
