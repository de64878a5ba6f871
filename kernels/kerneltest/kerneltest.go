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
//
// Every operation also runs on views, as the model's arenas hold its
// parameters and gradients: the inputs views of one tensor whose other
// elements are NaN (an operation that reads outside its operands gets NaN),
// the outputs views of another whose other elements must keep their values
// (several outputs of one operation in one tensor).
package kerneltest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
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
// output (float32 sums of up to 5577 terms in BiasGrad and 2700 in
// Conv2DBackwardFilter; BatchNorm's cancelling expressions with their extra
// bounds), except two single values: the loss sum of Loss over 1096 rows,
// within 1.1e-6 of itself, and the gradient of the spherical LDA
// covariance, a single value summing N*C*D = 326700 products in stages,
// which is within 1e-5 of itself. RTol 1e-4 with
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

// op is a subtest of Test: the tests of one operation of kernels.Backend.
type op struct {
	name string
	fn   func(*testing.T, kernels.Backend, Tolerance)
}

// ops are the subtests of Test.
var ops = []op{
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
	{"Shapes", testShapes},
}

// Test runs the conformance suite on b: one subtest per operation of
// kernels.Backend (several per operation: one per shape or variant, and
// "views" ones whose operands are views of larger tensors). Subtest names
// are like "MatMul/tA=true,tB=false/65x63x129". The suite does about 0.3
// GFLOP in all, so that a slow software GPU can run it too; without -short
// it also runs BatchNorm on 70,000 channels.
func Test(t *testing.T, b kernels.Backend, tol Tolerance) {
	t.Logf("backend %s (%s), %v", b.Info().Name, b.Info().Adapter, tol)
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) { op.fn(t, b, tol) })
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after the suite: %v", err)
	}
}

// TestOps runs the subtests of Test for the operations named (as "MatMul"
// or "Conv2DBackwardFilter"), for a backend that differs from a tested one
// in how it runs a few operations: another kernel, or another dispatch.
func TestOps(t *testing.T, b kernels.Backend, tol Tolerance, names ...string) {
	for _, name := range names {
		i := slices.IndexFunc(ops, func(o op) bool { return o.name == name })
		if i < 0 {
			t.Fatalf("kerneltest: no operation %q", name)
		}
		t.Run(name, func(t *testing.T) { ops[i].fn(t, b, tol) })
	}
	if err := b.Sync(); err != nil {
		t.Errorf("Sync after the operations: %v", err)
	}
}

// env is the state of one subtest: its random source (seeded from the
// subtest's name, so that -run selects the same values), the description of
// the op for failure messages, the inputs to verify afterwards and, for
// operands that are views, the tensors around the outputs.
type env struct {
	t    *testing.T
	b    kernels.Backend
	tol  Tolerance
	rng  *rand.Rand
	desc string
	// inputs are checked by unchanged.
	inputs []input
	// views makes the operands views of larger tensors (see arena), and
	// guards are the tensors holding output views.
	views  bool
	guards []guard
}

// input is an input tensor (or a tensor holding input views) and the
// contents that it must keep: data for a Float32 tensor, idata for an Int32
// one.
type input struct {
	name  string
	x     kernels.Tensor
	data  []float32
	idata []int32
}

// guard is a tensor holding output views, with its contents before the op:
// its elements outside the views (spans) must keep them.
type guard struct {
	name  string
	x     kernels.Tensor
	data  []float32
	spans [][2]int
}

// arg is an operand of an op: its name, its contents (nil for an output)
// and its shape.
type arg struct {
	name  string
	data  []float32
	shape []int
}

func newEnv(t *testing.T, b kernels.Backend, tol Tolerance) *env {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return &env{t: t, b: b, tol: tol, rng: rand.New(rand.NewPCG(0x5eed, h.Sum64()))}
}

// newViewEnv is newEnv with operands that are views (see arena).
func newViewEnv(t *testing.T, b kernels.Backend, tol Tolerance) *env {
	e := newEnv(t, b, tol)
	e.views = true
	return e
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

// in uploads an input (see ins).
func (e *env) in(name string, data []float32, shape ...int) kernels.Tensor {
	e.t.Helper()
	return e.ins(arg{name, data, shape})[0]
}

// ins uploads the inputs of an op and remembers them for unchanged. With
// e.views they are views of one tensor whose other elements are NaN, so
// that an op reading outside its operands gets NaN results, and that whole
// tensor must be unchanged.
func (e *env) ins(args ...arg) []kernels.Tensor {
	e.t.Helper()
	e.checkArgs(args)
	if e.views {
		x, data, _, vs := e.arena(func(int) float32 { return float32(math.NaN()) }, args)
		e.inputs = append(e.inputs, input{name: argNames(args), x: x, data: data})
		return vs
	}
	ts := make([]kernels.Tensor, len(args))
	for i, a := range args {
		ts[i] = Upload(e.b, a.shape, a.data)
		e.inputs = append(e.inputs, input{name: a.name, x: ts[i], data: a.data})
	}
	return ts
}

// out allocates an output (see outs).
func (e *env) out(shape ...int) kernels.Tensor {
	e.t.Helper()
	return e.outs(shape)[0]
}

// outs allocates the outputs of an op, filled with NaN. With e.views they
// are views of one tensor (so that one op writes several views of it) whose
// other elements must keep their values.
func (e *env) outs(shapes ...[]int) []kernels.Tensor {
	e.t.Helper()
	if e.views {
		args := make([]arg, len(shapes))
		for i, s := range shapes {
			args[i] = arg{"output", nil, s}
		}
		return e.guarded("outputs", args)
	}
	ts := make([]kernels.Tensor, len(shapes))
	for i, s := range shapes {
		ts[i] = e.b.Alloc(kernels.Float32, s...)
		e.b.Fill(ts[i], float32(math.NaN()))
	}
	return ts
}

// state uploads operands that an op updates in place (running statistics,
// the Loss statistics, Adam's parameters and moments, in-place ReLUs); with
// e.views they are views of one tensor, as outputs are.
func (e *env) state(args ...arg) []kernels.Tensor {
	e.t.Helper()
	e.checkArgs(args)
	if e.views {
		return e.guarded(argNames(args), args)
	}
	ts := make([]kernels.Tensor, len(args))
	for i, a := range args {
		ts[i] = Upload(e.b, a.shape, a.data)
	}
	return ts
}

// guarded returns views of a new tensor (see arena) whose elements outside
// the views hold distinct finite values, which unchanged checks.
func (e *env) guarded(name string, args []arg) []kernels.Tensor {
	x, data, spans, vs := e.arena(func(i int) float32 { return 1000 + float32(i) }, args)
	e.guards = append(e.guards, guard{name, x, data, spans})
	return vs
}

// labels uploads Int32 labels, which must be unchanged; with e.views as a
// view of a larger tensor whose other elements are -7, not a valid label.
func (e *env) labels(data []int32) kernels.Tensor {
	n := len(data)
	if !e.views {
		y := UploadInt(e.b, []int{n}, data)
		e.inputs = append(e.inputs, input{name: "labels", x: y, idata: data})
		return y
	}
	all := make([]int32, kernels.AlignUp(kernels.ViewAlign+n)+kernels.ViewAlign)
	for i := range all {
		all[i] = -7
	}
	copy(all[kernels.ViewAlign:], data)
	parent := UploadInt(e.b, []int{len(all)}, all)
	e.inputs = append(e.inputs, input{name: "labels' tensor", x: parent, idata: all})
	return e.b.View(parent, kernels.ViewAlign, n)
}

// arena lays out one view per operand in a new tensor: the first at
// kernels.ViewAlign, each next one at least ViewAlign elements past the end
// of the one before, at an offset that is a multiple of ViewAlign but not
// in general of the views' sizes, and ViewAlign elements after the last.
// The views hold the operands' data (NaN where that is nil) and every other
// element i holds fill(i). It returns the tensor, its contents, the views'
// spans [start, end) and the views.
func (e *env) arena(fill func(int) float32, args []arg) (kernels.Tensor, []float32, [][2]int, []kernels.Tensor) {
	spans := make([][2]int, len(args))
	off := kernels.ViewAlign
	for i, a := range args {
		n := kernels.Numel(a.shape)
		spans[i] = [2]int{off, off + n}
		off = kernels.AlignUp(off+n) + kernels.ViewAlign
	}
	data := make([]float32, off)
	for i := range data {
		data[i] = fill(i)
	}
	for i, a := range args {
		s := data[spans[i][0]:spans[i][1]]
		if a.data == nil {
			for j := range s {
				s[j] = float32(math.NaN())
			}
		} else {
			copy(s, a.data)
		}
	}
	x := Upload(e.b, []int{off}, data)
	vs := make([]kernels.Tensor, len(args))
	for i, a := range args {
		vs[i] = e.b.View(x, spans[i][0], a.shape...)
	}
	return x, data, spans, vs
}

// checkArgs fails t fatally when an operand has data of the wrong length.
func (e *env) checkArgs(args []arg) {
	e.t.Helper()
	for _, a := range args {
		if a.data != nil && len(a.data) != kernels.Numel(a.shape) {
			e.t.Fatalf("kerneltest: operand %s: %d values for shape %v", a.name, len(a.data), a.shape)
		}
	}
}

// argNames joins the operands' names with commas.
func argNames(args []arg) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.name
	}
	return strings.Join(s, ",")
}

// check compares the Float32 tensor x with the reference want.
func (e *env) check(name string, x kernels.Tensor, want []float64) {
	e.t.Helper()
	e.checkWithin(name, x, want, nil)
}

// checkWithin is check with extra[i] added to the bound of element i (see
// Tolerance.MismatchWithin).
func (e *env) checkWithin(name string, x kernels.Tensor, want, extra []float64) {
	e.t.Helper()
	if msg := e.tol.MismatchWithin(x.Shape(), Download(e.t, e.b, x), want, extra); msg != "" {
		e.t.Errorf("%s: %s %v: %s", e.desc, name, x.Shape(), msg)
	}
}

// checkStat is check for a per-channel statistic or parameter gradient, a
// single float32 sum per element accurate to about 1e-6 on every backend:
// it is held to RTol 1e-4 and ATol 1e-5 at most, since a reduction that
// drops or repeats one term in a thousand is still within a tolerance of
// 1e-3.
func (e *env) checkStat(name string, x kernels.Tensor, want []float64) {
	e.t.Helper()
	tol := Tolerance{RTol: min(e.tol.RTol, 1e-4), ATol: min(e.tol.ATol, 1e-5)}
	if msg := tol.Mismatch(x.Shape(), Download(e.t, e.b, x), want); msg != "" {
		e.t.Errorf("%s: %s %v: %s", e.desc, name, x.Shape(), msg)
	}
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

// unchanged fails for every input that the op modified (bit for bit, NaN
// for NaN), and for every element outside the views of a guarded tensor
// that it wrote.
func (e *env) unchanged() {
	e.t.Helper()
	for _, in := range e.inputs {
		if in.idata != nil {
			for i, v := range DownloadInt(e.t, e.b, in.x) {
				if v != in.idata[i] {
					e.t.Errorf("%s: input %s %v was modified: [%d] = %d, was %d", e.desc, in.name, in.x.Shape(), i, v, in.idata[i])
					break
				}
			}
			continue
		}
		got := Download(e.t, e.b, in.x)
		for i := range got {
			if !sameBits(got[i], in.data[i]) {
				e.t.Errorf("%s: input %s %v was modified: %s = %.8g, was %.8g",
					e.desc, in.name, in.x.Shape(), index(in.x.Shape(), i, len(got)), got[i], in.data[i])
				break
			}
		}
	}
	for _, g := range e.guards {
		got := Download(e.t, e.b, g.x)
		for i := range got {
			inside := false
			for _, s := range g.spans {
				inside = inside || i >= s[0] && i < s[1]
			}
			if !inside && !sameBits(got[i], g.data[i]) {
				e.t.Errorf("%s: the tensor of the views %s: [%d], outside every view, = %.8g, was %.8g", e.desc, g.name, i, got[i], g.data[i])
				break
			}
		}
	}
}

// sameBits reports whether a and b have the same bits, or are both NaN.
func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
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
