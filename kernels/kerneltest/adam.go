package kerneltest

import (
	"fmt"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// adamParams are PyTorch's defaults with lr 1e-3; Step is set per step.
var adamParams = kernels.AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}

// testAdam runs three consecutive Adam steps (t = 1, 2, 3, a new gradient
// each) from zero moments and compares param, m and v after each step with
// ref.Adam run in float64 on its own state. The parameters are N(0, 0.01^2)
// so that their float32 rounding (about 1e-9) is far below the tolerance and
// the comparison resolves the updates (about 1e-3 each) to better than 0.1%.
func testAdam(t *testing.T, b kernels.Backend, tol Tolerance) {
	for _, n := range []int{1, 1000, 70001} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			e := newEnv(t, b, tol)
			pd := e.normal(n, 0, 0.01)
			param, m, v := Upload(b, []int{n}, pd), Upload(b, []int{n}, make([]float32, n)), Upload(b, []int{n}, make([]float32, n))
			wp, wm, wv := F64(pd), make([]float64, n), make([]float64, n)
			for step := 1; step <= 3; step++ {
				e.ins = nil
				gd := e.normal(n, 0.05, 0.1)
				grad := e.in("grad", gd, n)
				p := adamParams
				p.Step = step
				e.desc = fmt.Sprintf("Adam(n %d, %+v)", n, p)
				b.Adam(param, grad, m, v, p)
				ref.Adam(wp, F64(gd), wm, wv, p)
				e.check("param", param, wp)
				e.check("m", m, wm)
				e.check("v", v, wv)
				e.unchanged()
			}
		})
	}
}

// testViews runs ops on views into larger tensors at offsets that are
// multiples of kernels.ViewAlign but not of the views' sizes, and checks both
// the results and that the parents' elements outside the views are untouched.
func testViews(t *testing.T, b kernels.Backend, tol Tolerance) {
	t.Run("MatMul", func(t *testing.T) {
		e := newEnv(t, b, tol)
		const m, n, k = 65, 63, 33
		ad, bd, biasd := e.normal(m*k, 0, 1), e.normal(k*n, 0, 1), e.normal(n, 0, 1)
		// One input arena: a at 64, b after it, bias after that.
		offA := kernels.ViewAlign
		offB := offA + kernels.AlignUp(m*k)
		offBias := offB + kernels.AlignUp(k*n)
		inArena := e.normal(offBias+kernels.AlignUp(n), 0, 1)
		copy(inArena[offA:], ad)
		copy(inArena[offB:], bd)
		copy(inArena[offBias:], biasd)
		arena := e.in("input arena", inArena, len(inArena))
		a, bm, bias := b.View(arena, offA, m, k), b.View(arena, offB, k, n), b.View(arena, offBias, n)
		// The output at offset 64 of a larger tensor.
		outArena, outData := sentinelArena(e, kernels.ViewAlign+m*n+kernels.ViewAlign)
		c := b.View(outArena, kernels.ViewAlign, m, n)
		e.desc = fmt.Sprintf("MatMul(c view [%d %d] at %d, a view at %d, b view at %d, bias view at %d)", m, n, kernels.ViewAlign, offA, offB, offBias)
		b.MatMul(c, a, bm, bias, false, false)
		want := make([]float64, m*n)
		ref.MatMul(want, F64(ad), F64(bd), F64(biasd), m, n, k, false, false)
		e.check("c", c, want)
		checkOutside(e, "c's parent", outArena, outData, kernels.ViewAlign, m*n)
		e.unchanged()
	})

	t.Run("Conv2D", func(t *testing.T) {
		e := newEnv(t, b, tol)
		g, p, xs, ws, ys := convSetup(convCases[4])
		nx, nw, ny := kernels.Numel(xs), kernels.Numel(ws), kernels.Numel(ys)
		xd, wd, dyd := e.normal(nx, 0, 1), e.normal(nw, 0, 0.1), e.normal(ny, 0, 1)
		offX, offW, offDY := kernels.ViewAlign, kernels.ViewAlign+kernels.AlignUp(nx), kernels.ViewAlign+kernels.AlignUp(nx)+kernels.AlignUp(nw)
		inArena := e.normal(offDY+ny, 0, 1)
		copy(inArena[offX:], xd)
		copy(inArena[offW:], wd)
		copy(inArena[offDY:], dyd)
		arena := e.in("input arena", inArena, len(inArena))
		x, w, dy := b.View(arena, offX, xs...), b.View(arena, offW, ws...), b.View(arena, offDY, ys...)
		// All three outputs in one arena, each at a different offset.
		offY, offDX, offDW := kernels.ViewAlign, kernels.ViewAlign+kernels.AlignUp(ny), kernels.ViewAlign+kernels.AlignUp(ny)+kernels.AlignUp(nx)
		outArena, outData := sentinelArena(e, offDW+nw+7)
		y, dx, dw := b.View(outArena, offY, ys...), b.View(outArena, offDX, xs...), b.View(outArena, offDW, ws...)
		e.desc = fmt.Sprintf("Conv2D and its backward passes on views (x %v, w %v)", xs, ws)
		b.Conv2D(y, x, w, nil, p)
		b.Conv2DBackwardData(dx, dy, w, p)
		b.Conv2DBackwardFilter(dw, dy, x, p)
		wy, wdx, wdw := make([]float64, ny), make([]float64, nx), make([]float64, nw)
		ref.Conv2D(wy, F64(xd), F64(wd), nil, g)
		ref.Conv2DBackwardData(wdx, F64(dyd), F64(wd), g)
		ref.Conv2DBackwardFilter(wdw, F64(dyd), F64(xd), g)
		e.check("y", y, wy)
		e.check("dx", dx, wdx)
		e.check("dw", dw, wdw)
		got := Download(t, b, outArena)
		for i := range got {
			inside := i >= offY && i < offY+ny || i >= offDX && i < offDX+nx || i >= offDW && i < offDW+nw
			if !inside && got[i] != outData[i] {
				t.Errorf("%s: output arena [%d] outside the views changed to %g", e.desc, i, got[i])
				break
			}
		}
		e.unchanged()
	})

	t.Run("BiasGrad,ReLU", func(t *testing.T) {
		e := newEnv(t, b, tol)
		shape := []int{2, 33, 7, 7}
		nd := kernels.Numel(shape)
		data := reluInput(e, nd)
		arena, arenaData := sentinelArena(e, 2*kernels.ViewAlign+nd+kernels.ViewAlign)
		b.Write(b.View(arena, 2*kernels.ViewAlign, nd), data)
		copy(arenaData[2*kernels.ViewAlign:], data)
		x := b.View(arena, 2*kernels.ViewAlign, shape...)
		dbArena, dbData := sentinelArena(e, kernels.ViewAlign+shape[1]+1)
		db := b.View(dbArena, kernels.ViewAlign, shape[1])
		e.desc = fmt.Sprintf("BiasGrad(view of %v) then ReLU in place on it", shape)
		b.BiasGrad(db, x)
		wdb := make([]float64, shape[1])
		ref.BiasGrad(wdb, F64(data), shape[0], shape[1], 49)
		e.check("db", db, wdb)
		checkOutside(e, "db's parent", dbArena, dbData, kernels.ViewAlign, shape[1])
		b.ReLU(x, x)
		want := make([]float32, nd)
		ref.ReLU(want, data)
		e.exact("y", x, want)
		checkOutside(e, "x's parent", arena, arenaData, 2*kernels.ViewAlign, nd)
	})

	t.Run("Adam", func(t *testing.T) {
		// An arena of three parameters; Adam runs on the middle one only.
		e := newEnv(t, b, tol)
		const n = 1000
		off := kernels.AlignUp(77)
		total := off + kernels.AlignUp(n) + 5
		pd, gd := e.normal(total, 0, 0.01), e.normal(total, 0, 0.1)
		param, grad := Upload(b, []int{total}, pd), e.in("grad arena", gd, total)
		m, v := Upload(b, []int{total}, make([]float32, total)), Upload(b, []int{total}, make([]float32, total))
		p := adamParams
		p.Step = 1
		e.desc = fmt.Sprintf("Adam(view of %d at %d in %d)", n, off, total)
		b.Adam(b.View(param, off, n), b.View(grad, off, n), b.View(m, off, n), b.View(v, off, n), p)
		wp, wm, wv := F64(pd[off:off+n]), make([]float64, n), make([]float64, n)
		ref.Adam(wp, F64(gd[off:off+n]), wm, wv, p)
		e.check("param", b.View(param, off, n), wp)
		e.check("m", b.View(m, off, n), wm)
		e.check("v", b.View(v, off, n), wv)
		checkOutside(e, "param", param, pd, off, n)
		checkOutside(e, "m", m, make([]float32, total), off, n)
		checkOutside(e, "v", v, make([]float32, total), off, n)
		e.unchanged()
	})
}

// sentinelArena returns an n-element tensor of recognisable values (not NaN,
// so that a view's contents can be checked separately) and its contents.
func sentinelArena(e *env, n int) (kernels.Tensor, []float32) {
	data := make([]float32, n)
	for i := range data {
		data[i] = 1000 + float32(i)
	}
	return Upload(e.b, []int{n}, data), data
}

// checkOutside fails unless the elements of parent outside [off, off+n) still
// hold data.
func checkOutside(e *env, name string, parent kernels.Tensor, data []float32, off, n int) {
	e.t.Helper()
	got := Download(e.t, e.b, parent)
	for i := range got {
		if (i < off || i >= off+n) && got[i] != data[i] {
			e.t.Errorf("%s: %s [%d] outside the view [%d, %d) = %g, was %g", e.desc, name, i, off, off+n, got[i], data[i])
			return
		}
	}
}
