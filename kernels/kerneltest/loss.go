package kerneltest

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// lossKinds are the loss variants of the Loss tests.
var lossKinds = []struct {
	name   string
	kind   kernels.LossKind
	lambda float32
}{
	{"nll", kernels.NLL, 0},
	{"ce", kernels.CE, 0},
	{"dnll,lambda=0.01", kernels.DNLL, 0.01},
	{"dnll,lambda=0.5", kernels.DNLL, 0.5},
}

// lossBatches are the numbers of rows of the successive Loss calls of one
// subtest, whose statistics accumulate: more than four times the 256 rows
// of a workgroup, a few, and one.
var lossBatches = []int{1030, 65, 1}

// lossBatch returns scores[n,c] in N(-1, 2^2) and labels, half of them the
// row's argmax so that the correct count is neither 0 nor n; row 1 is a
// tie of all c scores labelled 0, which counts as correct since the first
// argmax does.
func lossBatch(e *env, n, c int) ([]float32, []int32) {
	scores := e.normal(n*c, -1, 2)
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(e.rng.IntN(c))
		if e.rng.IntN(2) == 0 {
			row := scores[i*c : (i+1)*c]
			for k := range row {
				if row[k] > row[y[i]] {
					y[i] = int32(k)
				}
			}
		}
	}
	if n > 1 {
		for k := range c {
			scores[c+k] = 0.5
		}
		y[1] = 0
	}
	return scores, y
}

// testLoss checks, for every loss, the gradient (when dscores is not nil)
// and the statistics accumulated over the batches of lossBatches, of C = 2,
// 10 or 100 classes, and with every operand a view (the labels of an Int32
// tensor); then the recording of the first non-finite step.
func testLoss(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, lk := range lossKinds {
		for _, c := range []int{2, 10, 100} {
			for _, withGrad := range []bool{true, false} {
				name := fmt.Sprintf("%s/C%d", lk.name, c)
				if !withGrad {
					name += ",nodscores"
				}
				t.Run(name, func(t *testing.T) { checkLoss(newEnv(t, b, tol), lk.kind, lk.lambda, c, withGrad) })
			}
		}
	}
	for _, withGrad := range []bool{true, false} {
		name := "views/dnll,lambda=0.01/C10"
		if !withGrad {
			name += ",nodscores"
		}
		t.Run(name, func(t *testing.T) { checkLoss(newViewEnv(t, b, tol), kernels.DNLL, 0.01, 10, withGrad) })
	}
	for _, lk := range lossKinds {
		for _, withGrad := range []bool{true, false} {
			name := "BadStep/" + lk.name
			if !withGrad {
				name += ",nodscores"
			}
			t.Run(name, func(t *testing.T) { checkBadStep(newEnv(t, b, tol), lk.kind, lk.lambda, withGrad) })
		}
	}
}

// checkLoss runs one case of Loss in e (its operands views when e has views) and compares the outputs with package ref's.
func checkLoss(e *env, kind kernels.LossKind, lambda float32, c int, withGrad bool) {
	stats := e.state(arg{"stats", []float32{0, 0, 0, -1}, []int{kernels.StatsLen}})[0]
	var sum float64
	var correct, count int
	for call, n := range lossBatches {
		sd, yd := lossBatch(e, n, c)
		scores, y := e.in("scores", sd, n, c), e.labels(yd)
		var ds kernels.Tensor
		if withGrad {
			ds = e.out(n, c)
		}
		e.desc = fmt.Sprintf("Loss(call %d, scores [%d %d], %v, lambda %g, dscores %v, views %v)", call+1, n, c, kind, lambda, withGrad, e.views)
		e.b.Loss(ds, stats, scores, y, kind, lambda, 3+call)
		want := make([]float64, n*c)
		var wantDS []float64
		if withGrad {
			wantDS = want
		}
		s, k := ref.Loss(wantDS, F64(sd), yd, n, c, kind, float64(lambda))
		sum, correct, count = sum+s, correct+k, count+n
		if withGrad {
			e.check("dscores", ds, want)
		}
		e.unchanged()
		st := Download(e.t, e.b, stats)
		Compare(e.t, e.desc+": stats[StatLoss]", []int{1}, st[kernels.StatLoss:kernels.StatLoss+1], []float64{sum}, e.tol)
		for _, x := range []struct {
			name string
			slot int
			want float32
		}{
			{"StatCorrect", kernels.StatCorrect, float32(correct)},
			{"StatCount", kernels.StatCount, float32(count)},
			{"StatBadStep", kernels.StatBadStep, -1},
		} {
			if st[x.slot] != x.want {
				e.t.Errorf("%s: stats[%s] = %g, want %g", e.desc, x.name, st[x.slot], x.want)
			}
		}
	}
}

// checkBadStep runs four batches of 300 rows through Loss after setting
// stats to {0, 0, 0, -1}: finite, then one with a +Inf score at the label
// of row 270, past the first 256 rows (a -Inf loss for NLL, NaN for CE and
// DNLL), finite, and non-finite again. StatBadStep must stay -1, become the
// step of the first bad batch and keep it; StatCount must count every row.
func checkBadStep(e *env, kind kernels.LossKind, lambda float32, withGrad bool) {
	const n, c, badRow = 300, 5, 270
	b := e.b
	stats := Upload(b, []int{kernels.StatsLen}, []float32{0, 0, 0, -1})
	steps := []int{1, 12345, 12346, 23456}
	wantBad := []float32{-1, 12345, 12345, 12345}
	for call, step := range steps {
		sd, yd := lossBatch(e, n, c)
		bad := call%2 == 1
		if bad {
			sd[badRow*c+int(yd[badRow])] = float32(math.Inf(1))
			if s, _ := ref.Loss(nil, F64(sd), yd, n, c, kind, float64(lambda)); !math.IsInf(s, 0) && !math.IsNaN(s) {
				e.t.Fatalf("Loss(%v): the reference loss of a +Inf score is %g", kind, s)
			}
		}
		scores, y := Upload(b, []int{n, c}, sd), UploadInt(b, []int{n}, yd)
		var ds kernels.Tensor
		if withGrad {
			ds = b.Alloc(kernels.Float32, n, c)
		}
		b.Loss(ds, stats, scores, y, kind, lambda, step)
		st := Download(e.t, b, stats)
		desc := fmt.Sprintf("Loss(%v, call %d, step %d, +Inf score %v, dscores %v)", kind, call+1, step, bad, withGrad)
		if st[kernels.StatBadStep] != wantBad[call] {
			e.t.Errorf("%s: stats[StatBadStep] = %g, want %g", desc, st[kernels.StatBadStep], wantBad[call])
		}
		if want := float32(n * (call + 1)); st[kernels.StatCount] != want {
			e.t.Errorf("%s: stats[StatCount] = %g, want %g", desc, st[kernels.StatCount], want)
		}
		if call == 0 {
			s, _ := ref.Loss(nil, F64(sd), yd, n, c, kind, float64(lambda))
			Compare(e.t, desc+": stats[StatLoss]", []int{1}, st[:1], []float64{s}, e.tol)
		}
	}
}
