// Package kerneltest is a conformance suite for implementations of
// kernels.Backend, in the style of gonum's testblas: every backend's tests
// call Test, which runs one subtest per operation against the plain loops of
// package ref.
//
// The reference is computed in float64 from the same float32 inputs that the
// backend receives (drawn from a seeded PCG, so every run and every backend
// sees the same values), and the backend's float32 results are compared with
// it under a Tolerance. Data movement (Write, Read, Fill, Copy, View), ReLU,
// max pooling and the integer statistics of Loss are exact and are compared
// exactly.
//
// Outputs are filled with NaN before each operation, since operations write
// their outputs and never accumulate into them: a backend that reads them
// (beta*C with beta 0, a missing clear of an uncovered element) fails. Inputs
// are read back after each operation and must be unchanged.
package kerneltest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// Tolerance is the closeness test |got-want| <= ATol*max|want| + RTol*|want|,
// where max|want| is the largest magnitude of the tensor compared.
//
// The float32 rounding of a result alone is 2^-24 (6e-8) relative, so RTol
// is mostly there for the rounding of intermediate values (exp, log, sqrt,
// divisions, the whitening of the LDA head). Sums are different: a float32
// sum of k terms has an error of up to about k*2^-24 times the sum of |terms|
// (typically sqrt(k)*2^-24 for rounding errors of random sign), and when the
// terms have mixed signs that can be far larger than |sum| for the elements
// that nearly cancel. ATol bounds the error relative to the tensor's largest
// value instead, which is of the order of the sum of |terms| of its largest
// elements. Measured on the CPU backend (float32, blocked GEMM with fused
// multiply-adds) with the suite's sizes: at most 1e-6 of max|want| for every
// output (sums of up to 1568 terms in Conv2DBackwardFilter), except the
// gradient of the spherical LDA covariance, a single value summing N*C*D =
// 326700 products in stages, which is within 1e-5 of itself. RTol 1e-4 with
// ATol 1e-5 therefore leaves a margin of ten or more, for a backend that sums
// in another order too.
type Tolerance struct {
	RTol, ATol float64
}

// String describes a tolerance.
func (tol Tolerance) String() string {
	return fmt.Sprintf("rtol %g, atol %g*max|want|", tol.RTol, tol.ATol)
}

// Mismatch returns "" when every element of got is within tol of want, and
// otherwise a description of the failures: how many, the tolerance, and the
// worst element (relative to its bound) with its index in shape. NaN or
// infinite elements of got fail unless want holds the same value.
func (tol Tolerance) Mismatch(shape []int, got []float32, want []float64) string {
	return tol.MismatchWithin(shape, got, want, nil)
}

// MismatchWithin is Mismatch with extra[i] added to the bound of element i
// (extra may be nil), for the known rounding of float32 expressions that
// cancel.
func (tol Tolerance) MismatchWithin(shape []int, got []float32, want, extra []float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d values, want %d", len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		if !math.IsInf(w, 0) {
			scale = max(scale, math.Abs(w))
		}
	}
	bad, worst, at := 0, 0.0, 0
	for i, g := range got {
		w := want[i]
		if float64(g) == w || math.IsNaN(w) && math.IsNaN(float64(g)) {
			continue
		}
		d := math.Abs(float64(g) - w)
		lim := tol.ATol*scale + tol.RTol*math.Abs(w)
		if extra != nil {
			lim += extra[i]
		}
		if d <= lim {
			continue
		}
		r := d / lim
		if math.IsNaN(r) {
			r = math.Inf(1)
		}
		if bad == 0 || r > worst {
			worst, at = r, i
		}
		bad++
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d values off (%v, max|want| %.4g); worst %s = %.8g, want %.10g (|diff| %.3g, %.3g times the bound)",
		bad, len(got), tol, scale, index(shape, at, len(got)), got[at], want[at], math.Abs(float64(got[at])-want[at]), worst)
}

// index formats the flat index i as a multi-index of shape.
func index(shape []int, i, n int) string {
	if len(shape) < 2 || kernels.Numel(shape) != n {
		return fmt.Sprintf("[%d]", i)
	}
	idx := make([]string, len(shape))
	r := i
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(r % shape[d])
		r /= shape[d]
	}
	return fmt.Sprintf("[%s] (flat %d)", strings.Join(idx, ","), i)
}

// Compare fails t when got is not within tol of want; name should say which
// op and which output, and shape is the output's shape.
func Compare(t testing.TB, name string, shape []int, got []float32, want []float64, tol Tolerance) {
	t.Helper()
	if msg := tol.Mismatch(shape, got, want); msg != "" {
		t.Errorf("%s %v: %s", name, shape, msg)
	}
}

// Upload returns a new Float32 tensor of the given shape holding data.
func Upload(b kernels.Backend, shape []int, data []float32) kernels.Tensor {
	x := b.Alloc(kernels.Float32, shape...)
	b.Write(x, data)
	return x
}

// UploadInt returns a new Int32 tensor of the given shape holding data.
func UploadInt(b kernels.Backend, shape []int, data []int32) kernels.Tensor {
	x := b.Alloc(kernels.Int32, shape...)
	b.WriteInt(x, data)
	return x
}

// Download reads a Float32 tensor, failing t fatally on a device error.
func Download(t testing.TB, b kernels.Backend, x kernels.Tensor) []float32 {
	t.Helper()
	v, err := b.Read(x)
	if err != nil {
		t.Fatalf("Read %v: %v", x.Shape(), err)
	}
	return v
}

// DownloadInt reads an Int32 tensor, failing t fatally on a device error.
func DownloadInt(t testing.TB, b kernels.Backend, x kernels.Tensor) []int32 {
	t.Helper()
	v, err := b.ReadInt(x)
	if err != nil {
		t.Fatalf("ReadInt %v: %v", x.Shape(), err)
	}
	return v
}

// Test runs the conformance suite on b: one subtest per operation of
// kernels.Backend (several per operation, one per shape or variant), plus
// operations on views. Subtest names are like
// "MatMul/tA=true,tB=false/65x63x129". The suite does about 0.15 GFLOP in
// all, so that a slow software GPU can run it too.
func Test(t *testing.T, b kernels.Backend, tol Tolerance) {
	t.Logf("backend %s (%s), %v", b.Info().Name, b.Info().Adapter, tol)
	for _, op := range []struct {
		name string
		fn   func(*testing.T, kernels.Backend, Tolerance)
	}{
		{"Info", testInfo},
		{"Alloc", testAlloc},
		{"WriteRead", testWriteRead},
		{"WriteReadInt", testWriteReadInt},
		{"Fill", testFill},
		{"Copy", testCopy},
		{"View", testView},
		{"MatMul", testMatMul},
		{"BiasGrad", testBiasGrad},
		{"Conv2D", testConv2D},
		{"Conv2DBackwardData", testConv2DBackwardData},
		{"Conv2DBackwardFilter", testConv2DBackwardFilter},
		{"BatchNormTrain", testBatchNormTrain},
		{"BatchNormEval", testBatchNormEval},
		{"BatchNormBackward", testBatchNormBackward},
		{"ReLU", testReLU},
		{"ReLUBackward", testReLUBackward},
		{"MaxPool2", testMaxPool2},
		{"MaxPool2Backward", testMaxPool2Backward},
		{"GlobalAvgPool", testGlobalAvgPool},
		{"GlobalAvgPoolBackward", testGlobalAvgPoolBackward},
		{"LDA", testLDA},
		{"LDABackward", testLDABackward},
		{"Loss", testLoss},
		{"Adam", testAdam},
		{"Views", testViews},
		{"Shapes", testShapes},
	} {
		t.Run(op.name, func(t *testing.T) { op.fn(t, b, tol) })
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after the suite: %v", err)
	}
}

// env is the state of one subtest: its random source (seeded from the
// subtest's name, so that -run selects the same values), the description of
// the op for failure messages and the inputs to verify afterwards.
type env struct {
	t    *testing.T
	b    kernels.Backend
	tol  Tolerance
	rng  *rand.Rand
	desc string
	ins  []input
}

type input struct {
	name string
	x    kernels.Tensor
	data []float32
}

func newEnv(t *testing.T, b kernels.Backend, tol Tolerance) *env {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return &env{t: t, b: b, tol: tol, rng: rand.New(rand.NewPCG(0x5eed, h.Sum64()))}
}

// normal returns n values mean + scale*N(0,1).
func (e *env) normal(n int, mean, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(mean + scale*e.rng.NormFloat64())
	}
	return s
}

// uniform returns n values uniform in [lo, hi).
func (e *env) uniform(n int, lo, hi float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(lo + (hi-lo)*e.rng.Float64())
	}
	return s
}

// in uploads an input and remembers it for unchanged.
func (e *env) in(name string, data []float32, shape ...int) kernels.Tensor {
	e.t.Helper()
	if len(data) != kernels.Numel(shape) {
		e.t.Fatalf("kerneltest: input %s: %d values for shape %v", name, len(data), shape)
	}
	x := Upload(e.b, shape, data)
	e.ins = append(e.ins, input{name, x, data})
	return x
}

// out allocates an output and fills it with NaN.
func (e *env) out(shape ...int) kernels.Tensor {
	x := e.b.Alloc(kernels.Float32, shape...)
	e.b.Fill(x, float32(math.NaN()))
	return x
}

// check compares the Float32 tensor x with the reference want.
func (e *env) check(name string, x kernels.Tensor, want []float64) {
	e.t.Helper()
	Compare(e.t, e.desc+": "+name, x.Shape(), Download(e.t, e.b, x), want, e.tol)
}

// exact fails unless x holds exactly want (by value: -0 equals +0).
func (e *env) exact(name string, x kernels.Tensor, want []float32) {
	e.t.Helper()
	got := Download(e.t, e.b, x)
	if msg := ExactMismatch(x.Shape(), got, want); msg != "" {
		e.t.Errorf("%s: %s %v: %s", e.desc, name, x.Shape(), msg)
	}
}

// ExactMismatch returns "" when got holds exactly want (by value: -0 equals
// +0, and NaN equals NaN), and otherwise a description of the differences:
// how many, and the first with its index in shape.
func ExactMismatch(shape []int, got, want []float32) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d values, want %d", len(got), len(want))
	}
	bad, first := 0, -1
	for i := range got {
		if got[i] != want[i] && !(got[i] != got[i] && want[i] != want[i]) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d values differ (exact comparison); first %s = %.8g, want %.8g",
		bad, len(got), index(shape, first, len(got)), got[first], want[first])
}

// unchanged fails for every input that the op modified.
func (e *env) unchanged() {
	e.t.Helper()
	for _, in := range e.ins {
		got := Download(e.t, e.b, in.x)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(in.data[i]) {
				e.t.Errorf("%s: input %s %v was modified: %s = %.8g, was %.8g",
					e.desc, in.name, in.x.Shape(), index(in.x.Shape(), i, len(got)), got[i], in.data[i])
				break
			}
		}
	}
}

// F64 converts float32 values to float64 exactly (nil stays nil, as for an
// absent bias).
func F64(s []float32) []float64 {
	if s == nil {
		return nil
	}
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = float64(v)
	}
	return d
}

// F32 rounds float64 values to float32.
func F32(s []float64) []float32 {
	d := make([]float32, len(s))
	for i, v := range s {
		d[i] = float32(v)
	}
	return d
}

// shapeName formats a shape as 2x3x7x7, or "scalar".
func shapeName(shape []int) string {
	if len(shape) == 0 {
		return "scalar"
	}
	return dimsName(shape...)
}

// dimsName formats a shape as 2x3x7x7.
func dimsName(shape ...int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "x")
}

func testInfo(t *testing.T, b kernels.Backend, _ Tolerance) {
	if info := b.Info(); info.Name == "" {
		t.Errorf("Info().Name is empty (Adapter %q)", info.Adapter)
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync: %v", err)
	}
}
