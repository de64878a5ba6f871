package model_test

import (
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train/traintest"
)

func seqOf(xs ...kernels.Tensor) iter.Seq[kernels.Tensor] { return slices.Values(xs) }

// TestRecalibrateGolden checks one recalibration batch against PyTorch:
// after one training-mode forward from running statistics (0, 1) with
// momentum 0.1, the golden after_forward buffers are 0.1*batch statistic +
// 0.9*initial, so the batch statistics (which a recalibration over that
// single batch must give) are (after - 0.9*init)/0.1.
func TestRecalibrateGolden(t *testing.T) {
	f := traintest.Open(t, "convnet_fmnist")
	be := cpu.New()
	c := traintest.Cases[1]
	m, err := model.New(be, c.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadState(f, "init/"); err != nil {
		t.Fatal(err)
	}
	xt := f.Tensors["x"]
	x := be.Alloc(kernels.Float32, xt.Shape...)
	be.Write(x, xt.F32)
	n, err := m.RecalibrateBatchNorm(seqOf(x))
	if err != nil || n != 1 {
		t.Fatalf("%d batches, %v", n, err)
	}
	tol := traintest.CPUTolerance
	for _, b := range m.Buffers {
		after, init := f.Tensors["after_forward/"+b.Name].F32, f.Tensors["init/"+b.Name].F32
		want := make([]float32, len(after))
		for i := range want {
			want[i] = float32((float64(after[i]) - 0.9*float64(init[i])) / 0.1)
		}
		got, _ := be.Read(b.T)
		traintest.Compare(t, b.Name, got, want, tol)
	}
	for _, bn := range m.BatchNorms() {
		if bn.Momentum != 0.1 || *bn.Tracked != 1 {
			t.Errorf("%s: momentum %v, num_batches_tracked %d after one batch", bn.RunMean.Name, bn.Momentum, *bn.Tracked)
		}
	}
}

func smallConvNet(t *testing.T) *model.Model {
	t.Helper()
	m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderConvNet, Input: []int{2, 8, 8}, Classes: 3, Dim: 2,
		Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func randomBatch(be kernels.Backend, n int, shift float64, seed uint64) kernels.Tensor {
	rng := rand.New(rand.NewPCG(seed, 9))
	v := make([]float32, n*2*8*8)
	for i := range v {
		v[i] = float32(rng.NormFloat64() + shift)
	}
	x := be.Alloc(kernels.Float32, n, 2, 8, 8)
	be.Write(x, v)
	return x
}

// TestRecalibrateAverages checks the cumulative average: recalibrating over
// batches A and B gives the mean of the statistics of A alone and of B
// alone, whatever the statistics were before; parameters do not move, and
// SetBatchNormStats restores the previous statistics.
func TestRecalibrateAverages(t *testing.T) {
	m := smallConvNet(t)
	be := m.Backend
	a, b := randomBatch(be, 6, 0, 1), randomBatch(be, 6, 2, 2)
	// Move the statistics away from their initial values first.
	m.Encoder.Forward(randomBatch(be, 5, -1, 3), true)
	before, err := m.BatchNormStats()
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]float32{}
	for _, p := range m.Params {
		params[p.Name], _ = be.Read(p.Value)
	}

	stats := func(xs ...kernels.Tensor) model.BNStats {
		n, err := m.RecalibrateBatchNorm(seqOf(xs...))
		if err != nil || n != len(xs) {
			t.Fatalf("%d batches of %d, %v", n, len(xs), err)
		}
		s, err := m.BatchNormStats()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sa, sb, sab := stats(a), stats(b), stats(a, b)
	worst := 0.0
	for l := range sab.Mean {
		for i := range sab.Mean[l] {
			for _, pair := range [][3]float32{{sab.Mean[l][i], sa.Mean[l][i], sb.Mean[l][i]}, {sab.Var[l][i], sa.Var[l][i], sb.Var[l][i]}} {
				want := (float64(pair[1]) + float64(pair[2])) / 2
				worst = max(worst, math.Abs(float64(pair[0])-want)/(1e-6+math.Abs(want)))
			}
		}
		if sab.Tracked[l] != 2 {
			t.Errorf("layer %d: num_batches_tracked %d after 2 batches", l, sab.Tracked[l])
		}
	}
	if worst > 1e-5 {
		t.Errorf("recalibration over two batches is not the mean of the two: relative error %.3g", worst)
	}
	for _, p := range m.Params {
		v, _ := be.Read(p.Value)
		if !slices.Equal(v, params[p.Name]) {
			t.Errorf("%s changed", p.Name)
		}
	}
	for _, bn := range m.BatchNorms() {
		if bn.Momentum != 0.1 {
			t.Errorf("momentum %v after recalibration", bn.Momentum)
		}
	}
	m.SetBatchNormStats(before)
	restored, _ := m.BatchNormStats()
	for l := range before.Mean {
		if !slices.Equal(restored.Mean[l], before.Mean[l]) || !slices.Equal(restored.Var[l], before.Var[l]) || restored.Tracked[l] != before.Tracked[l] {
			t.Fatalf("layer %d not restored", l)
		}
	}
	// No batch: nothing changes.
	if n, err := m.RecalibrateBatchNorm(seqOf()); n != 0 || err != nil {
		t.Errorf("no batch: %d, %v", n, err)
	}
	after, _ := m.BatchNormStats()
	if !slices.Equal(after.Mean[0], before.Mean[0]) {
		t.Error("an empty recalibration changed the statistics")
	}
	if len(m.BatchNorms()) != 6 {
		t.Errorf("%d BatchNorm layers in the ConvNet", len(m.BatchNorms()))
	}
	defer func() {
		if recover() == nil {
			t.Error("SetBatchNormStats with the wrong number of layers did not panic")
		}
	}()
	m.SetBatchNormStats(model.BNStats{})
}

// TestRecalibrateNoBatchNorm: models without BatchNorm are left alone.
func TestRecalibrateNoBatchNorm(t *testing.T) {
	m := newMLP(t, 1)
	x := m.Backend.Alloc(kernels.Float32, 4, 2)
	if n, err := m.RecalibrateBatchNorm(seqOf(x)); n != 0 || err != nil {
		t.Errorf("MLP: %d, %v", n, err)
	}
	if s, err := m.BatchNormStats(); err != nil || len(s.Mean) != 0 {
		t.Errorf("MLP statistics %+v, %v", s, err)
	}
}
