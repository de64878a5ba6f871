//go:build !(js && wasm)

package wasmsimd

// The module's 2×2 max pooling (kernels/cpu, pool_wasm.go), as package
// ref's MaxPool2 and MaxPool2Backward compute it, over planes planes of
// h×w floats (offsets in bytes, counts in floats):
//
//	maxpool(y, x, planes, h, w)
//	maxpoolback(dx, dy, x, planes, h, w)
//
// A window's maximum is its first largest value in the order top left,
// top right, bottom left, bottom right, taken by "greater than" as the
// reference does (so a NaN never wins over what came before it, and +0
// does not win over -0). maxpoolback writes 0 + dy at each window's
// maximum and +0 at its other three floats, and leaves the odd last row
// and column of dx alone (the caller clears them). Four windows at a time
// (two vectors of each row, their even and odd floats apart), then the
// rest of a row one window at a time.

// poolFunc returns maxpool, or with back maxpoolback.
func poolFunc(back bool) vecFunc {
	const (
		out = iota // y, or dx
		dy         // maxpoolback's only
	)
	first := 1 // the index of x
	if back {
		first = 2
	}
	x, planes, h, w := first, first+1, first+2, first+3
	nParams := w + 1
	params := i32s(nParams)
	l := locals{next: nParams}
	p, i, j, top, o, g := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	ho, wo, best := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	fbest, fv := l.add(f32, 1), l.add(f32, 1)
	vE, vO, vE2, vO2, vb, m1, m2, m3, vd := l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1)
	var f fn
	// evenOdd loads 8 floats at a+off and sets e, d to their even and odd
	// floats.
	evenOdd := func(a, off, e, d int) {
		f.get(a).vmem(opV128Load, off).get(a).vmem(opV128Load, off+16).shuffle32(0, 2, 4, 6).set(e)
		f.get(a).vmem(opV128Load, off).get(a).vmem(opV128Load, off+16).shuffle32(1, 3, 5, 7).set(d)
	}
	// wins sets m to cand > vb, then vb to cand where m.
	wins := func(cand, m int) {
		f.get(cand).get(vb).simd(opF32x4Gt).set(m)
		f.get(cand).get(vb).get(m).simd(opV128Bitselect).set(vb)
	}
	f.get(h).i32c(2).op(opI32DivS).set(ho)
	f.get(w).i32c(2).op(opI32DivS).set(wo)
	f.count(p, planes, func() {
		f.count(i, ho, func() {
			// top = x + ((p*h + 2i)*w)*4; o: the output row of y (dy for
			// back) = ((p*ho + i)*wo)*4; g: the top row of dx.
			f.get(p).get(h).op(opI32Mul).get(i).i32c(2).op(opI32Mul).op(opI32Add).get(w).op(opI32Mul).i32c(4).op(opI32Mul).set(g)
			f.get(x).get(g).op(opI32Add).set(top)
			f.get(out).get(g).op(opI32Add).set(g)
			f.get(p).get(ho).op(opI32Mul).get(i).op(opI32Add).get(wo).op(opI32Mul).i32c(4).op(opI32Mul)
			if back {
				f.get(dy)
			} else {
				f.get(out)
			}
			f.op(opI32Add).set(o)
			f.i32c(0).set(j)
			f.block().loop() // four windows at a time
			f.get(j).i32c(4).op(opI32Add).get(wo).op(opI32GtS).brIf(1)
			evenOdd(top, 0, vE, vO)
			f.get(top).get(w).i32c(4).op(opI32Mul).op(opI32Add).set(best) // best: the bottom row, for now
			evenOdd(best, 0, vE2, vO2)
			f.get(vE).set(vb)
			wins(vO, m1)
			wins(vE2, m2)
			wins(vO2, m3)
			if !back {
				f.get(o).get(vb).vmem(opV128Store, 0)
			} else {
				// vd = 0 + dy; each position keeps it where it won and
				// no later one did.
				f.v128zero().get(o).vmem(opV128Load, 0).simd(opF32x4Add).set(vd)
				f.get(vd).get(m3).simd(opV128And).set(vO2)                                                      // bottom right
				f.get(vd).get(m2).simd(opV128And).get(m3).simd(opV128AndNot).set(vE2)                           // bottom left
				f.get(vd).get(m1).simd(opV128And).get(m2).simd(opV128AndNot).get(m3).simd(opV128AndNot).set(vO) // top right
				f.get(vd).get(m1).simd(opV128AndNot).get(m2).simd(opV128AndNot).get(m3).simd(opV128AndNot).set(vE)
				for _, row := range []struct{ e, d, off int }{{vE, vO, 0}, {vE2, vO2, -1}} {
					if row.off < 0 {
						f.get(g).get(w).i32c(4).op(opI32Mul).op(opI32Add)
					} else {
						f.get(g)
					}
					f.tee(best)
					f.get(row.e).get(row.d).shuffle32(0, 4, 1, 5).vmem(opV128Store, 0)
					f.get(best).get(row.e).get(row.d).shuffle32(2, 6, 3, 7).vmem(opV128Store, 16)
				}
				f.get(g).i32c(32).op(opI32Add).set(g)
			}
			f.get(top).i32c(32).op(opI32Add).set(top)
			f.get(o).i32c(16).op(opI32Add).set(o)
			f.get(j).i32c(4).op(opI32Add).set(j)
			f.br(0)
			f.end().end()
			f.block().loop() // the rest, a window at a time
			f.get(j).get(wo).op(opI32GeS).brIf(1)
			// best: the byte offset in the window of its maximum so far;
			// fbest its value.
			f.i32c(0).set(best)
			f.get(top).op(opF32Load).mem(0).set(fbest)
			for _, d := range []int{4, -1, -2} { // right; bottom left, bottom right
				f.get(top)
				if d < 0 {
					f.get(w).i32c(4).op(opI32Mul).op(opI32Add)
					if d == -2 {
						f.i32c(4).op(opI32Add)
					}
				} else {
					f.i32c(d).op(opI32Add)
				}
				f.op(opF32Load).mem(0).tee(fv).get(fbest).op(opF32Gt)
				f.ifOp()
				f.get(fv).set(fbest)
				switch d {
				case 4:
					f.i32c(4).set(best)
				case -1:
					f.get(w).i32c(4).op(opI32Mul).set(best)
				default:
					f.get(w).i32c(4).op(opI32Mul).i32c(4).op(opI32Add).set(best)
				}
				f.end()
			}
			if !back {
				f.get(o).get(fbest).op(opF32Store).mem(0)
			} else {
				// The window's four floats: +0, then 0 + dy at the
				// maximum.
				f.get(g).f32c(0).op(opF32Store).mem(0)
				f.get(g).f32c(0).op(opF32Store).mem(4)
				f.get(g).get(w).i32c(4).op(opI32Mul).op(opI32Add).f32c(0).op(opF32Store).mem(0)
				f.get(g).get(w).i32c(4).op(opI32Mul).op(opI32Add).f32c(0).op(opF32Store).mem(4)
				f.get(g).get(best).op(opI32Add).f32c(0).get(o).op(opF32Load).mem(0).op(opF32Add).op(opF32Store).mem(0)
				f.get(g).i32c(8).op(opI32Add).set(g)
			}
			f.get(top).i32c(8).op(opI32Add).set(top)
			f.get(o).i32c(4).op(opI32Add).set(o)
			f.get(j).i32c(1).op(opI32Add).set(j)
			f.br(0)
			f.end().end()
		})
	})
	f.end()
	name := "maxpool"
	if back {
		name = "maxpoolback"
	}
	return vecFunc{name, params, l.body(f.code)}
}
