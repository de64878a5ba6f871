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

// lossBatch returns scores[n,c] in N(-1, 2^2) and labels, half of them the
// row's argmax so that the correct count is neither 0 nor n.
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
	return scores, y
}

// testLoss checks, for every loss, the gradient (when dscores is not nil)
// and the statistics accumulated over two batches (of 65 and 7 rows of C
// classes), then the recording of the first non-finite step.
func testLoss(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, lk := range lossKinds {
		for _, c := range []int{10, 100} {
			for _, withGrad := range []bool{true, false} {
				name := fmt.Sprintf("%s/C%d", lk.name, c)
				if !withGrad {
					name += ",nodscores"
				}
				t.Run(name, func(t *testing.T) {
					e := newEnv(t, b, tol)
					stats := Upload(b, []int{kernels.StatsLen}, []float32{0, 0, 0, -1})
					var sum float64
					var correct, count int
					for call, n := range []int{65, 7} {
						e.ins = nil
						sd, yd := lossBatch(e, n, c)
						scores, y := e.in("scores", sd, n, c), UploadInt(b, []int{n}, yd)
						var ds kernels.Tensor
						if withGrad {
							ds = e.out(n, c)
						}
						e.desc = fmt.Sprintf("Loss(call %d, scores [%d %d], %s, dscores %v)", call+1, n, c, lk.name, withGrad)
						b.Loss(ds, stats, scores, y, lk.kind, lk.lambda, 3+call)
						want := make([]float64, n*c)
						var wantDS []float64
						if withGrad {
							wantDS = want
						}
						s, k := ref.Loss(wantDS, F64(sd), yd, n, c, lk.kind, float64(lk.lambda))
						sum, correct, count = sum+s, correct+k, count+n
						if withGrad {
							e.check("dscores", ds, want)
						}
						e.unchanged()
						for i, v := range DownloadInt(t, b, y) {
							if v != yd[i] {
								t.Errorf("%s: labels modified: [%d] = %d, was %d", e.desc, i, v, yd[i])
								break
							}
						}
						st := Download(t, b, stats)
						Compare(t, e.desc+": stats[StatLoss]", []int{1}, st[kernels.StatLoss:kernels.StatLoss+1], []float64{sum}, tol)
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
								t.Errorf("%s: stats[%s] = %g, want %g", e.desc, x.name, st[x.slot], x.want)
							}
						}
					}
				})
			}
		}
	}
	for _, lk := range lossKinds {
		t.Run("BadStep/"+lk.name, func(t *testing.T) { checkBadStep(newEnv(t, b, tol), lk.kind, lk.lambda) })
	}
}

// checkBadStep runs four batches through Loss after setting stats to
// {0, 0, 0, -1}: finite, then one with a +Inf score at a label (a -Inf loss
// for NLL, NaN for CE and DNLL), finite, and non-finite again. StatBadStep
// must stay -1, become the step of the first bad batch and keep it;
// StatCount must count every row.
func checkBadStep(e *env, kind kernels.LossKind, lambda float32) {
	const n, c = 9, 5
	b := e.b
	stats := Upload(b, []int{kernels.StatsLen}, []float32{0, 0, 0, -1})
	steps := []int{1, 12345, 12346, 23456}
	wantBad := []float32{-1, 12345, 12345, 12345}
	for call, step := range steps {
		sd, yd := lossBatch(e, n, c)
		bad := call%2 == 1
		if bad {
			r := 1 + call
			sd[r*c+int(yd[r])] = float32(math.Inf(1))
		}
		scores, y := Upload(b, []int{n, c}, sd), UploadInt(b, []int{n}, yd)
		var ds kernels.Tensor
		if call == 0 {
			ds = b.Alloc(kernels.Float32, n, c)
		}
		b.Loss(ds, stats, scores, y, kind, lambda, step)
		st := Download(e.t, b, stats)
		desc := fmt.Sprintf("Loss(%v, call %d, step %d, +Inf score %v)", kind, call+1, step, bad)
		if st[kernels.StatBadStep] != wantBad[call] {
			e.t.Errorf("%s: stats[StatBadStep] = %g, want %g", desc, st[kernels.StatBadStep], wantBad[call])
		}
		if want := float32(n * (call + 1)); st[kernels.StatCount] != want {
			e.t.Errorf("%s: stats[StatCount] = %g, want %g", desc, st[kernels.StatCount], want)
		}
		if !bad && call == 0 {
			s, _ := ref.Loss(nil, F64(sd), yd, n, c, kind, float64(lambda))
			Compare(e.t, desc+": stats[StatLoss]", []int{1}, st[:1], []float64{s}, e.tol)
		}
	}
}
