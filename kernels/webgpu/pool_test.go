package webgpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/kerneltest"
	"github.com/deeplda/deeplda/kernels/ref"
)

// maxPoolShapes include odd H and W (floor mode drops the last row or
// column), planes of one row or column (no window at all) and 28x28 with
// 64 and 65 channels.
var maxPoolShapes = [][]int{
	{2, 3, 7, 9}, {5, 3, 5, 6}, {1, 65, 2, 2}, {2, 1, 3, 3}, {2, 64, 28, 28},
	{1, 3, 28, 27}, {1, 1, 1, 1}, {1, 2, 1, 5}, {2, 2, 6, 1},
}

// poolInput returns values for x: kind "normal" draws N(0,1); "ties" draws
// from {-1, -0, 0, 1} so most windows have several equal maxima (and -0
// ties with 0); "constant" makes every window a four-way tie.
func (h *npHarness) poolInput(kind string, n int) []float32 {
	switch kind {
	case "ties":
		levels := []float32{-1, float32(math.Copysign(0, -1)), 0, 1}
		x := make([]float32, n)
		for i := range x {
			x[i] = levels[h.rng.IntN(len(levels))]
		}
		return x
	case "constant":
		x := make([]float32, n)
		for i := range x {
			x[i] = 0.5
		}
		return x
	}
	return h.normal(n, 0, 1)
}

// TestMaxPool2 checks the pooled values and the routing of the gradient to
// the first maximum of each window (with exact ties), every element of dx
// being written.
func TestMaxPool2(t *testing.T) {
	h := newNPHarness(t)
	i := 0
	for _, kind := range []string{"normal", "ties", "constant"} {
		for _, shape := range maxPoolShapes {
			i++
			view := i%2 == 0
			n, c, hh, w := shape[0], shape[1], shape[2], shape[3]
			yshape := []int{n, c, hh / 2, w / 2}
			desc := fmt.Sprintf("MaxPool2(x %v %s, views %v)", shape, kind, view)
			xd := h.poolInput(kind, kernels.Numel(shape))
			x := h.in(view, xd, shape...)
			y := h.out(view, yshape...)
			h.b.MaxPool2(y, x)
			wy := make([]float64, kernels.Numel(yshape))
			ref.MaxPool2(wy, kerneltest.F64(xd), n*c, hh, w)
			h.exact(desc, "y", y, wy)

			// dy values are distinct from 0 so a misrouted gradient shows.
			dyd := h.uniform(kernels.Numel(yshape), 1, 2)
			dy := h.in(view, dyd, yshape...)
			dx := h.out(view, shape...)
			h.b.MaxPool2Backward(dx, dy, x)
			wdx := make([]float64, len(xd))
			ref.MaxPool2Backward(wdx, kerneltest.F64(dyd), kerneltest.F64(xd), n*c, hh, w)
			h.exact(desc, "dx", dx, wdx)
			h.checkGuards(desc)
		}
	}
	if err := h.b.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestMaxPool2FirstMaximum pins the tie rule on one plane: each window's
// maxima are equal, so the gradient must go to the first in window order.
func TestMaxPool2FirstMaximum(t *testing.T) {
	h := newNPHarness(t)
	// Windows (row-major): (0,0) wins alone by being first of four equal;
	// (0,1) ties (0,1)&(1,1); (1,0) ties (1,0)&(1,1); (1,1) only (1,1).
	xd := []float32{
		3, 3, 0, 5, 9,
		3, 3, 0, 5, 9,
		1, 0, 2, 1, 9,
		4, 4, 2, 7, 9,
		9, 9, 9, 9, 9,
	}
	x := h.in(false, xd, 1, 1, 5, 5)
	y := h.out(false, 1, 1, 2, 2)
	h.b.MaxPool2(y, x)
	h.exact("MaxPool2(pinned)", "y", y, []float64{3, 5, 4, 7})
	dy := h.in(false, []float32{10, 20, 30, 40}, 1, 1, 2, 2)
	dx := h.out(false, 1, 1, 5, 5)
	h.b.MaxPool2Backward(dx, dy, x)
	h.exact("MaxPool2Backward(pinned)", "dx", dx, []float64{
		10, 0, 0, 20, 0,
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 0,
		30, 0, 0, 40, 0,
		0, 0, 0, 0, 0,
	})
}

// globalAvgShapes cover both GlobalAvgPool kernels: one invocation per
// plane (HW < 256) and one workgroup per plane (HW >= 256, 28x28).
var globalAvgShapes = [][]int{
	{2, 3, 7, 7}, {1, 1, 1, 1}, {2, 3, 1, 7}, {3, 5, 15, 17}, {2, 65, 16, 16},
	{5, 64, 28, 28}, {1, 3, 28, 28}, {2, 1, 40, 33},
}

// TestGlobalAvgPool checks the forward and backward global average pool;
// without -short also with more planes than a grid row holds workgroups
// (one workgroup per plane; 67 MB of input).
func TestGlobalAvgPool(t *testing.T) {
	h := newNPHarness(t)
	shapes := globalAvgShapes
	if !testing.Short() {
		shapes = append(shapes[:len(shapes):len(shapes)], []int{257, 256, 16, 16})
	}
	for i, shape := range shapes {
		view := i%2 == 1
		nc, hw := shape[0]*shape[1], shape[2]*shape[3]
		desc := fmt.Sprintf("GlobalAvgPool(x %v, views %v)", shape, view)
		// Offset values so that the sums do not cancel to nothing.
		xd := h.normal(kernels.Numel(shape), 0.5, 1)
		x := h.in(view, xd, shape...)
		y := h.out(view, shape[0], shape[1])
		h.b.GlobalAvgPool(y, x)
		wy := make([]float64, nc)
		ref.GlobalAvgPool(wy, kerneltest.F64(xd), nc, hw)
		h.close(desc, "y", y, wy)

		dyd := h.normal(nc, 0, 1)
		dy := h.in(view, dyd, shape[0], shape[1])
		dx := h.out(view, shape...)
		h.b.GlobalAvgPoolBackward(dx, dy)
		wdx := make([]float64, len(xd))
		ref.GlobalAvgPoolBackward(wdx, kerneltest.F64(dyd), nc, hw)
		h.close(desc, "dx", dx, wdx)
		h.checkGuards(desc)
	}
	if err := h.b.Sync(); err != nil {
		t.Fatal(err)
	}
}
