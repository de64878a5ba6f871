package experiment

import (
	"errors"
	"testing"
)

// TestCheckMemory checks that each run's memory is compared with what its
// front end has, and that the refusal names the setting that asks for
// the most, in one line.
func TestCheckMemory(t *testing.T) {
	page := Memory{Bytes: 3 << 30, Of: "the page's WebAssembly memory"}
	synth := DefaultSynth()
	bigTrain, bigTest := synth, synth
	bigTrain.Train = 50_000_000
	bigTest.Test = 50_000_000
	img := DefaultImages()
	bigBatch, bigEval := img, img
	bigBatch.Batch = 60_000
	bigEval.EvalBatch = 4_000
	for _, tc := range []struct {
		what string
		err  error
		name string
		want string
	}{
		{"the default toy run", synth.CheckMemory(page), "", ""},
		{"the default image run", img.CheckMemory(page), "", ""},
		{"an unknown memory", bigBatch.CheckMemory(Memory{}), "", ""},
		{"50 M training points", bigTrain.CheckMemory(page), "train", "train 50000000 needs about 7.5 GiB for the toy run, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"50 M test points", bigTest.CheckMemory(page), "test", "test 50000000 needs about 7.5 GiB for the toy run, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"batch 60000", bigBatch.CheckMemory(page), "batch", "batch 60000 needs about 114.0 GiB for the ConvNet's step on fashion-mnist, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"eval-batch 4000", bigEval.CheckMemory(page), "eval-batch", "eval-batch 4000 needs about 7.7 GiB for the ConvNet's step on fashion-mnist, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"a 20000 matmul", BenchConfig{Model: "matmul", Batch: 1, Size: 20_000, Steps: 1}.CheckMemory(page), "size", "size 20000 needs about 4.5 GiB for three float32 matrices, more than the 3.0 GiB of the page's WebAssembly memory"},
		{"the default suite", DefaultSuite().CheckMemory(page), "", ""},
	} {
		var se *SettingError
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v, want no error", tc.what, tc.err)
		case tc.want == "":
		case !errors.As(tc.err, &se) || se.Name != tc.name || se.Msg != tc.want:
			t.Errorf("%s: %#v, want a SettingError of %s: %q", tc.what, tc.err, tc.name, tc.want)
		}
	}
}

// TestSettingsBounds checks that every whole-number setting's Max is
// enforced by the validation of the configurations that hold it, with the
// bound in the message.
func TestSettingsBounds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error { c := DefaultSynth(); c.Epochs = 100_001; return c.Validate() }(), "epochs must be at most 100000, got 100001"},
		{func() error { c := DefaultSynth(); c.Train = 100_000_001; return c.Validate() }(), "train must be at most 100000000, got 100000001"},
		{func() error { c := DefaultImages(); c.LimitTest = 10_000_001; return c.Validate() }(), "limit-test must be at most 10000000, got 10000001"},
		{func() error { c := DefaultImages(); c.BNRecalibrate = 100_001; return c.Validate() }(), "bn-recalibrate must be at most 100000, got 100001"},
		{BenchConfig{Model: "matmul", Batch: 1, Size: 32_769, Steps: 1}.Validate(), "size must be at most 32768, got 32769"},
		{CheckLambdas(make(Floats, 101)), "lambdas must list at most 100 values, got 101"},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("got %v, want %q", tc.err, tc.want)
		}
	}
}
