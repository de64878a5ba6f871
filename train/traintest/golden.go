// Package traintest checks a kernels.Backend through whole models and
// their training against the PyTorch reference values in ../shared/golden:
// a model's forward, loss, gradients and Adam steps (Golden), and a short
// training run step by step (Trajectory, Lockstep). Every backend's tests
// call Golden, in the style of gonum's testblas.
//
// The checks report to a TB, which *testing.T satisfies, and take the golden
// files already read (CheckHeadCases, CheckCase), so that they also run where
// there is neither "go test" nor a file system: Check runs them and sums
// them up for the browser program of browsertest/golden, which fetches the
// files and runs them on WebGPU in the page.
// HeadCases and Golden are the wrappers for tests, which read the files from
// ../shared/golden.
package traintest

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// TB is what the checks report to: the part of testing.TB they use. Fatalf
// must not return (testing.T stops the test; the browser program unwinds to
// the section it is running).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Counter is implemented by a TB that counts the checks: every comparison
// (Compare, CompareKink and the checks of CheckCase that are not
// comparisons) calls Count with its name before reporting any failure.
type Counter interface {
	Count(name string)
}

// count tells t of a check, when t counts them.
func count(t TB, name string) {
	if c, ok := t.(Counter); ok {
		c.Count(name)
	}
}

// Tolerance is a closeness test |got-want| <= ATol*scale + RTol*|want|, where
// scale is the largest |want| of the tensor compared: an absolute floor
// relative to the tensor's magnitude, since float32 sums of thousands of
// terms in a different order differ by about 1e-7 of their largest partial sums.
type Tolerance struct {
	RTol, ATol float64
}

// Case is one golden model file.
type Case struct {
	File  string
	Spec  model.Spec
	Steps int
}

// compare picks Compare, or CompareKink for what the backward pass of a
// ConvNet's encoder produces.
func (c Case) compare(t TB, name string, got, want []float32, tol Tolerance) {
	t.Helper()
	if c.Spec.Encoder == model.EncoderConvNet && strings.Contains(name, "enc.") || strings.HasPrefix(name, "adam/") && c.Spec.Encoder == model.EncoderConvNet {
		CompareKink(t, name, got, want, tol)
		return
	}
	Compare(t, name, got, want, tol)
}

// Cases are the golden model files of ../shared/golden.
var Cases = []Case{
	{"mlp_synthetic", model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2, Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3}, 5},
	{"convnet_fmnist", model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9, Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3}, 3},
	{"convnet_cifar", model.Spec{Encoder: model.EncoderConvNet, Input: []int{3, 32, 32}, Classes: 10, Dim: 9, Head: model.HeadLDA, Cov: kernels.Diagonal, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3}, 2},
}

// CaseNamed returns the case of Cases whose file is name
// ("mlp_synthetic").
func CaseNamed(name string) (Case, bool) {
	for _, c := range Cases {
		if c.File == name {
			return c, true
		}
	}
	return Case{}, false
}

// Open reads a golden file from ../shared/golden. When the folder is missing
// the test fails under CI and is skipped loudly elsewhere (sharedtest.Dir).
func Open(t testing.TB, name string) *safetensors.File {
	t.Helper()
	f, err := safetensors.ReadFile(filepath.Join(sharedtest.Dir(t, "golden"), name+".safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// RelErr returns ||got-want||_2 / ||want||_2.
func RelErr(got, want []float32) float64 {
	var d, w float64
	for i := range want {
		d += (float64(got[i]) - float64(want[i])) * (float64(got[i]) - float64(want[i]))
		w += float64(want[i]) * float64(want[i])
	}
	return math.Sqrt(d / max(w, 1e-300))
}

// KinkRelErr bounds ||got-want||_2/||want||_2 for values computed through a
// ReLU whose input is within float32 rounding of zero, in the PyTorch run or
// in ours: the two runs then take different sides of the kink for that
// element, and everything computed from it (the encoder's lower gradients,
// then Adam's updates, which are close to lr*sign(gradient) in the first
// steps) differs by more than rounding. Measured on the golden ConvNet files:
// relative errors up to 4e-3 below such a flip, at most 1.4e-5 elsewhere.
const KinkRelErr = 2e-2

// Compare fails t for each element of got outside tol of want.
func Compare(t TB, name string, got, want []float32, tol Tolerance) {
	t.Helper()
	count(t, name)
	if msg := mismatch(got, want, tol); msg != "" {
		t.Errorf("%s: %s", name, msg)
	}
}

// CompareKink is Compare for values downstream of a ReLU kink: it accepts
// got when every element is within tol, or else when the relative L2 error
// is within KinkRelErr (and logs that it did).
func CompareKink(t TB, name string, got, want []float32, tol Tolerance) {
	t.Helper()
	count(t, name)
	msg := mismatch(got, want, tol)
	if msg == "" {
		return
	}
	if len(got) == len(want) {
		if r := RelErr(got, want); r <= KinkRelErr {
			t.Logf("%s: %s; relative L2 error %.2e is within the ReLU-kink bound %g", name, msg, r, KinkRelErr)
			return
		}
	}
	t.Errorf("%s: %s; relative L2 error %.2e exceeds the ReLU-kink bound %g too", name, msg, RelErr(got, want), KinkRelErr)
}

func mismatch(got, want []float32, tol Tolerance) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	bad, worst, at := 0, 0.0, 0
	for i := range got {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		lim := tol.ATol*scale + tol.RTol*math.Abs(float64(want[i]))
		if !(d <= lim) {
			if bad == 0 || d/lim > worst {
				worst, at = d/lim, i
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Sprintf("%d of %d values off; worst [%d] = %.8g, want %.8g (%.3g times the tolerance)", bad, len(got), at, got[at], want[at], worst)
	}
	return ""
}

func load(t TB, be kernels.Backend, c Case, f *safetensors.File) (*model.Model, kernels.Tensor, kernels.Tensor) {
	t.Helper()
	m, err := model.New(be, c.Spec)
	if err != nil {
		t.Fatalf("%s: %v", c.File, err)
	}
	if err := m.LoadState(f, "init/"); err != nil {
		t.Fatalf("%s: %v", c.File, err)
	}
	xt, yt := f.Tensors["x"], f.Tensors["y"]
	if xt.F32 == nil || yt.I32 == nil {
		t.Fatalf("%s: golden file lacks x (F32) or y (I32)", c.File)
	}
	x := be.Alloc(kernels.Float32, xt.Shape...)
	be.Write(x, xt.F32)
	y := be.Alloc(kernels.Int32, yt.Shape...)
	be.WriteInt(y, yt.I32)
	return m, x, y
}

func read(t TB, be kernels.Backend, x kernels.Tensor) []float32 {
	t.Helper()
	v, err := be.Read(x)
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	return v
}

// noisyGrad reports parameters whose true gradient is zero, so that their
// float32 values are rounding noise: biases of convolutions followed by
// BatchNorm (the normalisation removes any per-channel shift).
func noisyGrad(name string) bool {
	return strings.HasPrefix(name, "enc.conv") && strings.HasSuffix(name, ".bias")
}

// Golden runs every golden model file through the model on be, one subtest
// per file (see CheckCase).
func Golden(t *testing.T, be kernels.Backend, tol Tolerance) {
	for _, c := range Cases {
		t.Run(c.File, func(t *testing.T) { CheckCase(t, be, c, Open(t, c.File), tol) })
	}
}

// CheckCase runs the golden model file f of case c through the model on be:
// the training-mode forward (z, delta, loss), every gradient, the BatchNorm
// running statistics after one forward, then Adam (the loss before each step,
// the final parameters and buffers, and the eval-mode delta).
func CheckCase(t TB, be kernels.Backend, c Case, f *safetensors.File, tol Tolerance) {
	t.Helper()
	want := func(name string) []float32 {
		v, ok := f.Tensors[name]
		if !ok {
			t.Fatalf("golden file %s lacks %q", c.File, name)
		}
		return v.F32
	}
	m, x, y := load(t, be, c, f)
	m.ResetStats()
	z, delta := m.Forward(x, true)
	Compare(t, "z", read(t, be, z), want("z"), tol)
	Compare(t, "delta", read(t, be, delta), want("delta"), tol)
	for _, b := range m.Buffers {
		Compare(t, "after_forward/"+b.Name, read(t, be, b.T), want("after_forward/"+b.Name), tol)
	}

	m, x, y = load(t, be, c, f)
	m.ResetStats()
	m.Gradients(x, y)
	st, err := m.ReadStats()
	if err != nil {
		t.Fatalf("reading the loss: %v", err)
	}
	Compare(t, "loss", []float32{float32(st.Loss)}, want("loss"), tol)
	for _, p := range m.Params {
		g := read(t, be, p.Grad)
		w := want("grad/" + p.Name)
		if noisyGrad(p.Name) {
			// Zero in exact arithmetic: compare against the scale of the
			// weight gradient of the same layer.
			wscale := want("grad/" + strings.TrimSuffix(p.Name, "bias") + "weight")
			Compare(t, "grad/"+p.Name, g, w, Tolerance{ATol: tol.ATol * maxAbs(wscale) / max(maxAbs(w), 1e-30)})
			continue
		}
		c.compare(t, "grad/"+p.Name, g, w, tol)
	}

	m, x, y = load(t, be, c, f)
	losses := make([]float32, c.Steps)
	for i := range losses {
		m.ResetStats()
		m.TrainStep(x, y)
		st, err := m.ReadStats()
		if err != nil {
			t.Fatalf("reading the loss of Adam step %d: %v", i+1, err)
		}
		losses[i] = float32(st.Loss)
	}
	Compare(t, "adam/losses", losses, want("adam/losses"), tol)
	for _, p := range m.Params {
		name := "adam/final/" + p.Name
		if noisyGrad(p.Name) {
			// Adam normalises the gradient, so a noise gradient still moves
			// the bias by up to lr per step, in any direction.
			count(t, name)
			init := want("init/" + p.Name)
			got := read(t, be, p.Value)
			for i := range got {
				if d := math.Abs(float64(got[i] - init[i])); d > float64(c.Steps)*c.Spec.LR*1.001 {
					t.Errorf("%s[%d] moved %g, more than steps*lr", name, i, d)
				}
			}
			continue
		}
		if c.Spec.Encoder == model.EncoderConvNet && strings.HasPrefix(p.Name, "enc.") {
			// Below a ReLU-kink flip Adam's first steps move each parameter
			// by about lr*sign(gradient), so a flipped sign of a tiny
			// gradient moves it 2*lr the other way.
			Compare(t, name, read(t, be, p.Value), want(name), Tolerance{RTol: tol.RTol, ATol: 2 * float64(c.Steps) * c.Spec.LR / max(maxAbs(want(name)), 1e-30)})
			continue
		}
		c.compare(t, name, read(t, be, p.Value), want(name), tol)
	}
	for _, b := range m.Buffers {
		c.compare(t, "adam/final/"+b.Name, read(t, be, b.T), want("adam/final/"+b.Name), tol)
	}
	_, delta = m.Forward(x, false)
	c.compare(t, "adam/eval_delta", read(t, be, delta), want("adam/eval_delta"), tol)
}

func maxAbs(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s = max(s, math.Abs(float64(x)))
	}
	return s
}

// HeadCases checks the LDA head, the losses and the softmax head of
// head_cases.safetensors on be (see CheckHeadCases).
func HeadCases(t *testing.T, be kernels.Backend, tol Tolerance) {
	CheckHeadCases(t, be, Open(t, "head_cases"), tol)
}

// CheckHeadCases checks the LDA head, the losses and the softmax head of
// the golden file f (head_cases.safetensors) on be: delta, the NLL, CE and
// DNLL losses, and the gradients of DNLL (lambda 0.5) and CE for z and every
// parameter.
func CheckHeadCases(t TB, be kernels.Backend, f *safetensors.File, tol Tolerance) {
	t.Helper()
	get := func(name string) safetensors.Tensor {
		v, ok := f.Tensors[name]
		if !ok {
			t.Fatalf("golden file head_cases lacks %q", name)
		}
		return v
	}
	upload := func(name string) kernels.Tensor {
		v := get(name)
		if v.DType == safetensors.I32 {
			x := be.Alloc(kernels.Int32, v.Shape...)
			be.WriteInt(x, v.I32)
			return x
		}
		x := be.Alloc(kernels.Float32, v.Shape...)
		be.Write(x, v.F32)
		return x
	}
	for _, kind := range []kernels.CovKind{kernels.Spherical, kernels.Diagonal, kernels.Full} {
		p := kind.String() + "/"
		covName := "log_var"
		if kind == kernels.Full {
			covName = "raw_tril"
		}
		z, y, prior, mu, cov := upload(p+"z"), upload(p+"y"), upload(p+"prior_logits"), upload(p+"mu"), upload(p+covName)
		zs, ms := z.Shape(), mu.Shape()
		n, c := zs[0], ms[0]
		delta := be.Alloc(kernels.Float32, n, c)
		be.LDA(delta, z, prior, mu, cov, kind)
		Compare(t, p+"delta", read(t, be, delta), get(p+"delta").F32, tol)
		for _, lc := range []struct {
			name   string
			loss   kernels.LossKind
			lambda float32
			grads  string
		}{
			{"loss_nll", kernels.NLL, 0, ""},
			{"loss_ce", kernels.CE, 0, "grad_ce"},
			{"loss_dnll_0.01", kernels.DNLL, 0.01, ""},
			{"loss_dnll_0.5", kernels.DNLL, 0.5, "grad_dnll_0.5"},
			{"loss_dnll_1.0", kernels.DNLL, 1, ""},
		} {
			stats := be.Alloc(kernels.Float32, kernels.StatsLen)
			dd := be.Alloc(kernels.Float32, n, c)
			be.Loss(dd, stats, delta, y, lc.loss, lc.lambda, 1)
			st := read(t, be, stats)
			Compare(t, p+lc.name, []float32{st[kernels.StatLoss] / float32(n)}, get(p+lc.name).F32, tol)
			if lc.grads == "" {
				continue
			}
			dz, dprior, dmu, dcov := be.Alloc(kernels.Float32, zs...), be.Alloc(kernels.Float32, c), be.Alloc(kernels.Float32, ms...), be.Alloc(kernels.Float32, cov.Shape()...)
			be.LDABackward(dz, dprior, dmu, dcov, dd, z, prior, mu, cov, kind)
			g := p + lc.grads + "/"
			Compare(t, g+"z", read(t, be, dz), get(g+"z").F32, tol)
			Compare(t, g+"prior_logits", read(t, be, dprior), get(g+"prior_logits").F32, tol)
			Compare(t, g+"mu", read(t, be, dmu), get(g+"mu").F32, tol)
			Compare(t, g+covName, read(t, be, dcov), get(g+covName).F32, tol)
		}
	}

	// The softmax head: a linear layer with cross-entropy.
	z, y, w, b := upload("softmax/z"), upload("softmax/y"), upload("softmax/weight"), upload("softmax/bias")
	n, c := z.Shape()[0], w.Shape()[0]
	logits := be.Alloc(kernels.Float32, n, c)
	be.MatMul(logits, z, w, b, false, true)
	Compare(t, "softmax/logits", read(t, be, logits), get("softmax/logits").F32, tol)
	stats := be.Alloc(kernels.Float32, kernels.StatsLen)
	dl := be.Alloc(kernels.Float32, n, c)
	be.Loss(dl, stats, logits, y, kernels.CE, 0, 1)
	st := read(t, be, stats)
	Compare(t, "softmax/loss_ce", []float32{st[kernels.StatLoss] / float32(n)}, get("softmax/loss_ce").F32, tol)
	dw, db, dz := be.Alloc(kernels.Float32, w.Shape()...), be.Alloc(kernels.Float32, c), be.Alloc(kernels.Float32, z.Shape()...)
	be.MatMul(dw, dl, z, nil, true, false)
	be.BiasGrad(db, dl)
	be.MatMul(dz, dl, w, nil, false, false)
	Compare(t, "softmax/grad_ce/weight", read(t, be, dw), get("softmax/grad_ce/weight").F32, tol)
	Compare(t, "softmax/grad_ce/bias", read(t, be, db), get("softmax/grad_ce/bias").F32, tol)
	Compare(t, "softmax/grad_ce/z", read(t, be, dz), get("softmax/grad_ce/z").F32, tol)
}

// String describes a tolerance.
func (tol Tolerance) String() string {
	return fmt.Sprintf("rtol %g, atol %g x max|want|", tol.RTol, tol.ATol)
}
