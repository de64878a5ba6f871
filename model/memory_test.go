package model

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// heapBytes returns the live heap after a collection.
func heapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestStepBytesBoundsTheHeap measures the heap that a model takes on the
// CPU backend through a training step and an evaluation at a batch size,
// and checks that StepBytes is at least that and at most twice it (plus 1
// MiB, which toy models' heaps of a few hundred kB vary by between native
// threads and WebAssembly): the bound that front ends check before
// allocating is neither too low (an out-of-memory crash) nor so high that
// it refuses what fits.
func TestStepBytesBoundsTheHeap(t *testing.T) {
	conv := Spec{Encoder: EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9, Head: HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
	cifar := conv
	cifar.Input, cifar.Classes, cifar.Dim, cifar.Cov = []int{3, 32, 32}, 100, 99, kernels.Full
	mlp := Spec{Encoder: EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2, Head: HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
	none := mlp
	none.Encoder = EncoderNone
	for _, tc := range []struct {
		spec  Spec
		batch int
	}{{conv, 48}, {cifar, 24}, {mlp, 4096}, {none, 4096}} {
		t.Run(fmt.Sprintf("%v_%v_b%d", tc.spec.Encoder, tc.spec.Input, tc.batch), func(t *testing.T) {
			before := heapBytes()
			be := cpu.New()
			m, err := New(be, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			x := be.Alloc(kernels.Float32, append([]int{tc.batch}, tc.spec.Input...)...)
			y := be.Alloc(kernels.Int32, tc.batch)
			m.TrainStep(x, y)
			m.Forward(x, false)
			used := heapBytes() - before
			runtime.KeepAlive(m)
			est := StepBytes(tc.spec, tc.batch)
			t.Logf("measured %d bytes, StepBytes %d (%.2fx)", used, est, float64(est)/float64(used))
			if est < used || est > 2*used+1<<20 {
				t.Errorf("StepBytes = %d, want between the measured %d and twice that plus 1 MiB", est, used)
			}
		})
	}
}

// TestStepBytesSaturates checks that a batch whose memory overflows an
// int64 gives the largest estimate rather than a negative one.
func TestStepBytesSaturates(t *testing.T) {
	s := Spec{Encoder: EncoderConvNet, Input: []int{3, 1 << 8, 1 << 10}, Classes: 10, Dim: 9}
	if got := StepBytes(s, 1<<40); got != maxSpecBytes {
		t.Errorf("StepBytes of a batch of 2^40 = %d, want %d", got, maxSpecBytes)
	}
}

// TestConvNetStepMemory measures the memory of the ConvNet's training
// step at the paper's batch of 256 on the CPU backend (on at most two
// threads: the backend's scratch grows with them), which in the page must
// stay well under the 1 GiB of WebAssembly memory that phones and many
// laptops refuse. A WebAssembly memory never shrinks, so what counts is
// the heap's peak, garbage included, which is at most what the model and
// its first two steps allocate in all: at most 640 MiB (838 MiB before
// the gradients shared two buffers). A step after the first must allocate
// little (a few KB on one thread; natively a few MiB of scratch that the
// pools of two threads miss), so that garbage does not pile up step after
// step, and StepBytes must lie between the live heap and twice it.
func TestConvNetStepMemory(t *testing.T) {
	const batch, maxAlloc, maxGarbage = 256, 640 << 20, 16 << 20
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(min(2, runtime.GOMAXPROCS(0))))
	spec := Spec{Encoder: EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9, Head: HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
	allocated := func() int64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.TotalAlloc)
	}
	before, alloc0 := heapBytes(), allocated()
	be := cpu.New()
	m, err := New(be, spec)
	if err != nil {
		t.Fatal(err)
	}
	x := be.Alloc(kernels.Float32, batch, 1, 28, 28)
	y := be.Alloc(kernels.Int32, batch)
	m.TrainStep(x, y) // allocates the activations
	alloc1 := allocated()
	m.TrainStep(x, y)
	alloc2 := allocated()
	live := heapBytes() - before
	runtime.KeepAlive(m)
	est := StepBytes(spec, batch)
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	t.Logf("batch %d: allocated %.0f MiB in all (%.0f MiB by the second step), live %.0f MiB, StepBytes %.0f MiB (%.2fx the live heap)",
		batch, mib(alloc2-alloc0), mib(alloc2-alloc1), mib(live), mib(est), float64(est)/float64(live))
	if alloc2-alloc0 > maxAlloc {
		t.Errorf("the model and two steps allocate %.0f MiB, more than %d MiB", mib(alloc2-alloc0), maxAlloc>>20)
	}
	if alloc2-alloc1 > maxGarbage {
		t.Errorf("a step after the first allocates %.1f MiB, more than %d MiB", mib(alloc2-alloc1), maxGarbage>>20)
	}
	if est < live || est > 2*live {
		t.Errorf("StepBytes = %d, want between the measured %d and twice that", est, live)
	}
}

// TestGradientsTakeTurns checks that the layers that write an input
// gradient, in the order of the backward pass (the softmax head's layer,
// then the encoder's from the last), alternate between the two stores of
// registry.grad, so that none writes into the store that holds its output
// gradient.
func TestGradientsTakeTurns(t *testing.T) {
	conv := Spec{Encoder: EncoderConvNet, Input: []int{1, 8, 8}, Classes: 3, Dim: 2, Head: HeadSoftmax, Loss: kernels.CE, LR: 1e-3}
	mlp := Spec{Encoder: EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2, Head: HeadSoftmax, Loss: kernels.CE, LR: 1e-3}
	for _, s := range []Spec{conv, mlp} {
		m, err := New(cpu.New(), s)
		if err != nil {
			t.Fatal(err)
		}
		var stores []*store
		for _, l := range append(m.Encoder.Layers, m.Head.(SoftmaxHead).Linear) {
			switch l := l.(type) {
			case *Conv2d:
				stores = append(stores, l.dx.st)
			case *BatchNorm2d:
				stores = append(stores, l.dx.st)
			case *MaxPool2:
				stores = append(stores, l.dx.st)
			case *GlobalAvgPool:
				stores = append(stores, l.dx.st)
			case *Linear:
				stores = append(stores, l.dx.st)
			case *ReLU:
			default:
				t.Fatalf("%v: layer %T unknown to the test", s.Encoder, l)
			}
		}
		for i := 1; i < len(stores); i++ {
			if stores[i] == stores[i-1] || (stores[i] != m.Encoder.grads[0] && stores[i] != m.Encoder.grads[1]) {
				t.Errorf("%v: input gradients %d and %d (counting from the first layer) do not take turns in the two stores", s.Encoder, i-1, i)
			}
		}
	}
}
