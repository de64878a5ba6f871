package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

// headLossRef returns ref.Loss's sum, correct count and gradient in float64.
func headLossRef(scores []float32, y []int32, n, c int, kind kernels.LossKind, lambda float32) (float64, int, []float64) {
	d := make([]float64, n*c)
	sum, correct := ref.Loss(d, kerneltest.F64(scores), y, n, c, kind, float64(lambda))
	return sum, correct, d
}

// headLabels returns n labels drawn uniformly from [0, c).
func headLabels(rng *rand.Rand, n, c int) []int32 {
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(rng.IntN(c))
	}
	return y
}

// TestHeadLoss checks Loss's statistics and gradient against ref.Loss for
// the three losses, with a tie in the scores and operands as views.
func TestHeadLoss(t *testing.T) {
	b := openBackend(t)
	for _, kind := range []kernels.LossKind{kernels.NLL, kernels.CE, kernels.DNLL} {
		for _, lambda := range []float32{0.01, 0.5} {
			for _, sz := range [][2]int{{1, 2}, {7, 4}, {65, 10}, {33, 100}, {300, 100}, {1030, 10}} {
				for _, grad := range []bool{false, true} {
					n, c := sz[0], sz[1]
					t.Run(fmt.Sprintf("%v/lambda=%g/%dx%d/grad=%v", kind, lambda, n, c, grad), func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(n*1000+c), uint64(kind)))
						scores := headNormal(rng, n*c, -2, 2)
						if n > 1 {
							for k := range c { // a tie: the first argmax counts
								scores[c+k] = 0.5
							}
						}
						y := headLabels(rng, n, c)
						// Operands as views at nonzero offsets.
						al := kernels.AlignUp
						buf := b.Alloc(kernels.Float32, kernels.ViewAlign+n*c)
						s := b.View(buf, kernels.ViewAlign, n, c)
						b.Write(s, scores)
						var ds kernels.Tensor
						if grad {
							dbuf := b.Alloc(kernels.Float32, kernels.ViewAlign+al(n*c)+1)
							b.Fill(dbuf, float32(math.NaN()))
							ds = b.View(dbuf, kernels.ViewAlign, n, c)
						}
						ybuf := b.Alloc(kernels.Int32, kernels.ViewAlign+n)
						yt := b.View(ybuf, kernels.ViewAlign, n)
						b.WriteInt(yt, y)
						statsBuf := b.Alloc(kernels.Float32, kernels.ViewAlign+kernels.StatsLen)
						stats := b.View(statsBuf, kernels.ViewAlign, kernels.StatsLen)
						b.Write(stats, []float32{0, 0, 0, -1})
						b.Loss(ds, stats, s, yt, kind, lambda, 3)
						b.Loss(ds, stats, s, yt, kind, lambda, 4)
						sum, correct, want := headLossRef(scores, y, n, c, kind, lambda)
						st := kerneltest.Download(t, b, stats)
						kerneltest.Compare(t, "stats[StatLoss]", nil, st[:1], []float64{2 * sum}, gpuTol)
						if st[kernels.StatCorrect] != float32(2*correct) || st[kernels.StatCount] != float32(2*n) || st[kernels.StatBadStep] != -1 {
							t.Errorf("stats = %v, want [%g %d %d -1]", st, 2*sum, 2*correct, 2*n)
						}
						if grad {
							kerneltest.Compare(t, "dscores", nil, kerneltest.Download(t, b, ds), want, gpuTol)
						}
						got, err := b.ReadInt(yt)
						if err != nil || fmt.Sprint(got) != fmt.Sprint(y) {
							t.Errorf("labels modified or unreadable (%v)", err)
						}
					})
				}
			}
		}
	}
}

// TestHeadLossBadStep checks the non-finite rule: the first step whose loss
// sum is not finite is recorded, and later ones are not.
func TestHeadLossBadStep(t *testing.T) {
	b := openBackend(t)
	n, c := 300, 5
	rng := rand.New(rand.NewPCG(5, 5))
	scores := headNormal(rng, n*c, 0, 1)
	y := headLabels(rng, n, c)
	bad := append([]float32{}, scores...)
	bad[270*c+int(y[270])] = float32(math.Inf(1))
	for _, kind := range []kernels.LossKind{kernels.NLL, kernels.CE, kernels.DNLL} {
		for _, grad := range []bool{false, true} {
			good, inf := kerneltest.Upload(b, []int{n, c}, scores), kerneltest.Upload(b, []int{n, c}, bad)
			yt := b.Alloc(kernels.Int32, n)
			b.WriteInt(yt, y)
			var ds kernels.Tensor
			if grad {
				ds = b.Alloc(kernels.Float32, n, c)
			}
			stats := kerneltest.Upload(b, []int{kernels.StatsLen}, []float32{0, 0, 0, -1})
			b.Loss(ds, stats, good, yt, kind, 0.5, 4)
			if st := kerneltest.Download(t, b, stats); st[kernels.StatBadStep] != -1 {
				t.Errorf("%v: finite loss recorded as bad: %v", kind, st)
			}
			b.Loss(ds, stats, inf, yt, kind, 0.5, 5)
			b.Loss(ds, stats, good, yt, kind, 0.5, 6)
			b.Loss(ds, stats, inf, yt, kind, 0.5, 7)
			st := kerneltest.Download(t, b, stats)
			if want, _, _ := headLossRef(bad, y, n, c, kind, 0.5); !math.IsInf(want, 0) && !math.IsNaN(want) {
				t.Fatalf("%v: the reference loss %v is finite", kind, want)
			}
			if st[kernels.StatBadStep] != 5 || st[kernels.StatCount] != float32(4*n) {
				t.Errorf("%v grad=%v: stats %v, want bad step 5 and count %d", kind, grad, st, 4*n)
			}
		}
	}
}
