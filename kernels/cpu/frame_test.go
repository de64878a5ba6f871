package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// TestColValue checks colValue, which the unfolding shared out between
// threads uses to set again the floats that a channel's copies write past
// its end (unfoldShared), against the whole unfolded matrix of a group of
// images in the middle of a batch, for the geometries of the framed layout.
func TestColValue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, g := range []ref.Conv{
		{N: 6, Ci: 3, H: 7, W: 7, K: 3, Pad: 1},
		{N: 6, Ci: 2, H: 6, W: 9, K: 3, Pad: 0},
		{N: 6, Ci: 2, H: 9, W: 6, K: 3, Pad: 2},
		{N: 6, Ci: 3, H: 5, W: 8, K: 5, Pad: 2},
	} {
		g.Stride, g.Co = 1, 1
		g.Ho, g.Wo = g.H+2*g.Pad-g.K+1, g.W+2*g.Pad-g.K+1
		f, ok := newFrame(g, 1)
		if !ok {
			t.Fatalf("%+v has no framed layout", g)
		}
		x := make([]float32, g.N*g.Ci*g.H*g.W)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		const n0, imgs = 2, 3
		col, planes := make([]float32, f.colLen()), make([]float32, imgs*f.plane)
		f.unfold(col, planes, x, n0, imgs)
		kk, ld := g.K*g.K, imgs*f.hw
		for c := 0; c < g.Ci; c++ {
			for tap := 0; tap < kk; tap++ {
				for p := 0; p < ld; p++ {
					if got, want := f.colValue(x, n0, c, tap, p), col[(c*kk+tap)*ld+p]; got != want {
						t.Fatalf("%+v: channel %d, tap %d, column %d: %v, unfold %v", g, c, tap, p, got, want)
					}
				}
			}
		}
	}
}

// TestFramedConv checks the three convolution ops of the framed layout
// against package ref (in float64) for the geometries it covers, with 1 to
// 3 workers and groups of 1 image to all of them, so that a last group
// with fewer images occurs too. One input holds infinities in its first and last columns, which
// the discarded columns read: they must not turn finite gradients into NaN.
func TestFramedConv(t *testing.T) {
	geoms := []ref.Conv{
		{N: 5, Ci: 3, H: 7, W: 7, Co: 4, K: 3, Pad: 1},
		{N: 5, Ci: 2, H: 6, W: 9, Co: 3, K: 3, Pad: 0},
		{N: 5, Ci: 2, H: 9, W: 6, Co: 3, K: 3, Pad: 2},
		{N: 5, Ci: 3, H: 5, W: 8, Co: 2, K: 5, Pad: 2},
		{N: 5, Ci: 4, H: 4, W: 5, Co: 3, K: 1, Pad: 0},
	}
	defer func(c int) { frameColumns = c }(frameColumns)
	r := rand.New(rand.NewPCG(5, 6))
	normal := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, g := range geoms {
		g.Stride = 1
		p := kernels.ConvParams{Stride: 1, Pad: g.Pad}
		g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
		xs, ws, ys := []int{g.N, g.Ci, g.H, g.W}, []int{g.Co, g.Ci, g.K, g.K}, []int{g.N, g.Co, g.Ho, g.Wo}
		for _, inf := range []bool{false, true} {
			xd, wd, bd, dyd := normal(kernels.Numel(xs)), normal(kernels.Numel(ws)), normal(g.Co), normal(kernels.Numel(ys))
			if inf {
				for h := 0; h < g.H; h++ {
					xd[(3*g.Ci*g.H+h)*g.W] = float32(math.Inf(1))
					xd[(3*g.Ci*g.H+h)*g.W+g.W-1] = float32(math.Inf(-1))
				}
			}
			wantY := make([]float64, kernels.Numel(ys))
			ref.Conv2D(wantY, f64(xd), f64(wd), f64(bd), g)
			wantDx := make([]float64, kernels.Numel(xs))
			ref.Conv2DBackwardData(wantDx, f64(dyd), f64(wd), g)
			wantDw := make([]float64, kernels.Numel(ws))
			ref.Conv2DBackwardFilter(wantDw, f64(dyd), f64(xd), g)
			for _, run := range []struct{ workers, columns int }{{1, 1}, {1, 100}, {1, 1 << 20}, {2, 100}, {3, 1 << 20}} {
				frameColumns = run.columns
				b := &Backend{workers: run.workers}
				f, ok := newFrame(g, run.workers)
				if !ok {
					t.Fatalf("%+v has no framed layout", g)
				}
				name := fmt.Sprintf("%+v, inf %v, %d workers, groups of %d", g, inf, run.workers, f.group)
				up := func(d []float32, shape []int) kernels.Tensor {
					x := b.Alloc(kernels.Float32, shape...)
					b.Write(x, d)
					return x
				}
				x, w, bias, dy := up(xd, xs), up(wd, ws), up(bd, []int{g.Co}), up(dyd, ys)
				y, dx, dw := b.Alloc(kernels.Float32, ys...), b.Alloc(kernels.Float32, xs...), b.Alloc(kernels.Float32, ws...)
				b.Conv2D(y, x, w, bias, p)
				b.Conv2DBackwardData(dx, dy, w, p)
				b.Conv2DBackwardFilter(dw, dy, x, p)
				for _, c := range []struct {
					op   string
					got  kernels.Tensor
					want []float64
				}{{"Conv2D", y, wantY}, {"Conv2DBackwardData", dx, wantDx}, {"Conv2DBackwardFilter", dw, wantDw}} {
					if err := closeTo(F32(c.got), c.want); err != nil {
						t.Errorf("%s, %s: %v", c.op, name, err)
					}
				}
			}
		}
	}
}

func f64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// closeTo checks got against want within 1e-5 of want's largest finite
// magnitude plus 1e-4 relative; non-finite values must match exactly.
func closeTo(got []float32, want []float64) error {
	scale := 0.0
	for _, w := range want {
		if !math.IsInf(w, 0) && !math.IsNaN(w) {
			scale = max(scale, math.Abs(w))
		}
	}
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(w) || math.IsInf(w, 0) {
			if !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
				return fmt.Errorf("element %d: got %v, want %v", i, g, w)
			}
			continue
		}
		if math.Abs(g-w) > 1e-5*scale+1e-4*math.Abs(w) || math.IsNaN(g) {
			return fmt.Errorf("element %d: got %v, want %v", i, g, w)
		}
	}
	return nil
}
