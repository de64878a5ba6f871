//go:build !(js && wasm)

package wasmsimd

// The module's transforms of the F(2x2, 3x3) convolutions (kernels/cpu,
// winograd.go), one image a call, four channels a vector. Channel counts
// are multiples of 4 (but wgframe's); offsets and ld are bytes, the rest
// counts.
//
//	wgframe(planes, x, c, h, w, wp)
//
// transposes the image's c planes of h×w floats at x into the framed
// plane at planes (wp pixels a row, c floats a pixel), pixel (y, x) at
// framed pixel (y+1, x+1), a row at a time as transpose does (the frame
// is not written).
//
//	wgin(v, planes, c, th, tw, wp, ld)
//
// sets, for each of the th×tw tiles t (row by row) and each point xi of
// the 4×4 transformed tile, the c floats at v + xi*ld + t*c*4 to (B^T d
// B)[xi], d the tile's 4×4 patch of the framed plane at planes (wp pixels
// a row, c floats a pixel; tile (ty, tx) starts at pixel (2ty, 2tx)).
//
//	wgout(out, m, d, th, tw, h, w, ld, spare)
//
// sets the 2×2 pixels of each tile, of d floats at out + (y*w + x)*d*4,
// to A^T m A, m the tile's 16 products at m + xi*ld + t*d*4; pixels past
// the h×w plane are written to spare (d floats) instead.
//
//	wggrad(z, dyt, d, th, tw, h, w, ld, zero)
//
// sets the 16 points at z + xi*ld + t*d*4 of each tile to (A dY A^T)[xi],
// dY the tile's 2×2 pixels of dyt (as out above), read from zero (d zero
// floats) past the plane.
//
// Each is the same float32 additions, subtractions and negations, in the
// same order, as the Go code: the same bits.

// wgPixel emits local = base + (y*w + x)*cb for the i32 expressions y, x
// emitted by their functions.
func (f *fn) wgPixel(local, base, w, cb int, y, x func()) {
	f.get(base)
	y()
	f.get(w).op(opI32Mul)
	x()
	f.op(opI32Add).get(cb).op(opI32Mul).op(opI32Add).set(local)
}

// wgCorners emits the four pixel addresses of tile (ty, tx) of an h×w
// plane at base into p..p+3 (row by row), alt for those past the plane.
func (f *fn) wgCorners(p, base, ty, tx, h, w, cb, alt int) {
	twice := func(v, add int) func() {
		return func() { f.get(v).i32c(2).op(opI32Mul).i32c(add).op(opI32Add) }
	}
	for k := range 4 {
		a, b := k/2, k%2
		f.wgPixel(p+k, base, w, cb, twice(ty, a), twice(tx, b))
		if k == 0 {
			continue
		}
		// p+k = inside ? p+k : alt.
		f.get(p + k).get(alt)
		f.get(ty).i32c(2).op(opI32Mul).i32c(a).op(opI32Add).get(h).op(opI32LtS)
		f.get(tx).i32c(2).op(opI32Mul).i32c(b).op(opI32Add).get(w).op(opI32LtS)
		f.op(opI32And).op(opSelect).set(p + k)
	}
}

// wgLoop emits the loop over the bytes j = 0, 16, ... < cb (cb >= 16) of
// each tile's channels.
func (f *fn) wgLoop(j, cb int, body func()) {
	f.i32c(0).set(j)
	f.loop()
	body()
	f.get(j).i32c(16).op(opI32Add).tee(j).get(cb).op(opI32LtS).brIf(0)
	f.end()
}

// vload emits local = the vector at addr + off + j (i32 locals).
func (f *fn) vload(local, addr, off, j int) {
	f.get(addr).get(off).op(opI32Add).get(j).op(opI32Add).vmem(opV128Load, 0).set(local)
}

// vstore emits the store of the vector that value emits at addr + off + j.
func (f *fn) vstore(addr, off, j int, value func()) {
	f.get(addr).get(off).op(opI32Add).get(j).op(opI32Add)
	value()
	f.vmem(opV128Store, 0)
}

// vbin returns the emitter of a op b (v128 locals).
func (f *fn) vbin(a int, o int, b int) func() {
	return func() { f.get(a).get(b).simd(o) }
}

// wgFrameFunc returns the wgframe routine.
func wgFrameFunc() vecFunc {
	const (
		planes = iota
		x
		c
		h
		w
		wp
		nParams
	)
	l := locals{next: nParams}
	y, dst, src, hw, none := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	t := newTransposeLocals(&l)
	var f fn
	f.get(h).get(w).op(opI32Mul).set(hw)
	f.count(y, h, func() {
		// dst = planes + ((y+1)*wp + 1)*c*4; src = x + y*w*4.
		f.get(planes).get(y).i32c(1).op(opI32Add).get(wp).op(opI32Mul).i32c(1).op(opI32Add).get(c).op(opI32Mul).i32c(4).op(opI32Mul).op(opI32Add).set(dst)
		f.get(x).get(y).get(w).op(opI32Mul).i32c(4).op(opI32Mul).op(opI32Add).set(src)
		f.transpose(dst, src, c, w, hw, c, none, t)
	})
	f.end()
	return vecFunc{"wgframe", i32s(nParams), l.body(f.code)}
}

// wgInFunc returns the wgin routine.
func wgInFunc() vecFunc {
	const (
		v = iota
		planes
		c
		th
		tw
		wp
		ld
		nParams
	)
	l := locals{next: nParams}
	ty, tx, j, base, out, cb := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	offIn, offOut := l.add(i32, 16), l.add(i32, 16)
	d, e := l.add(v128, 16), l.add(v128, 16)
	var f fn
	f.get(c).i32c(4).op(opI32Mul).set(cb)
	for k := range 16 {
		f.i32c(k / 4).get(wp).op(opI32Mul).i32c(k % 4).op(opI32Add).get(cb).op(opI32Mul).set(offIn + k)
		f.i32c(k).get(ld).op(opI32Mul).set(offOut + k)
	}
	f.count(ty, th, func() {
		f.count(tx, tw, func() {
			f.wgPixel(base, planes, wp, cb, func() { f.get(ty).i32c(2).op(opI32Mul) }, func() { f.get(tx).i32c(2).op(opI32Mul) })
			f.wgPixel(out, v, tw, cb, func() { f.get(ty) }, func() { f.get(tx) })
			f.wgLoop(j, cb, func() {
				for k := range 16 {
					f.vload(d+k, base, offIn+k, j)
				}
				// e = B^T d, by columns q.
				for q := range 4 {
					f.vbin(d+q, opF32x4Sub, d+8+q)()
					f.set(e + q)
					f.vbin(d+4+q, opF32x4Add, d+8+q)()
					f.set(e + 4 + q)
					f.vbin(d+8+q, opF32x4Sub, d+4+q)()
					f.set(e + 8 + q)
					f.vbin(d+4+q, opF32x4Sub, d+12+q)()
					f.set(e + 12 + q)
				}
				// v = e B, by rows r.
				for r := range 4 {
					e0, e1, e2, e3 := e+4*r, e+4*r+1, e+4*r+2, e+4*r+3
					f.vstore(out, offOut+4*r, j, f.vbin(e0, opF32x4Sub, e2))
					f.vstore(out, offOut+4*r+1, j, f.vbin(e1, opF32x4Add, e2))
					f.vstore(out, offOut+4*r+2, j, f.vbin(e2, opF32x4Sub, e1))
					f.vstore(out, offOut+4*r+3, j, f.vbin(e1, opF32x4Sub, e3))
				}
			})
		})
	})
	f.end()
	return vecFunc{"wgin", i32s(nParams), l.body(f.code)}
}

// wgOutFunc returns the wgout routine.
func wgOutFunc() vecFunc {
	const (
		out = iota
		m
		d
		th
		tw
		h
		w
		ld
		spare
		nParams
	)
	l := locals{next: nParams}
	ty, tx, j, src, cb := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	offM, p := l.add(i32, 16), l.add(i32, 4)
	mt, s := l.add(v128, 16), l.add(v128, 8)
	var f fn
	f.get(d).i32c(4).op(opI32Mul).set(cb)
	for k := range 16 {
		f.i32c(k).get(ld).op(opI32Mul).set(offM + k)
	}
	zero := l.add(i32, 1) // offset 0, for the stores at p+k
	f.count(ty, th, func() {
		f.count(tx, tw, func() {
			f.wgPixel(src, m, tw, cb, func() { f.get(ty) }, func() { f.get(tx) })
			f.wgCorners(p, out, ty, tx, h, w, cb, spare)
			f.wgLoop(j, cb, func() {
				for k := range 16 {
					f.vload(mt+k, src, offM+k, j)
				}
				// s = A^T m, by columns q.
				for q := range 4 {
					f.get(mt + q).get(mt + 4 + q).simd(opF32x4Add).get(mt + 8 + q).simd(opF32x4Add).set(s + q)
					f.get(mt + 4 + q).get(mt + 8 + q).simd(opF32x4Sub).get(mt + 12 + q).simd(opF32x4Sub).set(s + 4 + q)
				}
				// y = s A, by rows a.
				for a := range 2 {
					s0, s1, s2, s3 := s+4*a, s+4*a+1, s+4*a+2, s+4*a+3
					f.vstore(p+2*a, zero, j, func() { f.get(s0).get(s1).simd(opF32x4Add).get(s2).simd(opF32x4Add) })
					f.vstore(p+2*a+1, zero, j, func() { f.get(s1).get(s2).simd(opF32x4Sub).get(s3).simd(opF32x4Sub) })
				}
			})
		})
	})
	f.end()
	return vecFunc{"wgout", i32s(nParams), l.body(f.code)}
}

// wgGradFunc returns the wggrad routine.
func wgGradFunc() vecFunc {
	const (
		z = iota
		dyt
		d
		th
		tw
		h
		w
		ld
		zeros
		nParams
	)
	l := locals{next: nParams}
	ty, tx, j, out, cb := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	offZ, p, zero := l.add(i32, 16), l.add(i32, 4), l.add(i32, 1)
	g, e := l.add(v128, 4), l.add(v128, 8)
	var f fn
	f.get(d).i32c(4).op(opI32Mul).set(cb)
	for k := range 16 {
		f.i32c(k).get(ld).op(opI32Mul).set(offZ + k)
	}
	f.count(ty, th, func() {
		f.count(tx, tw, func() {
			f.wgPixel(out, z, tw, cb, func() { f.get(ty) }, func() { f.get(tx) })
			f.wgCorners(p, dyt, ty, tx, h, w, cb, zeros)
			f.wgLoop(j, cb, func() {
				for k := range 4 {
					f.vload(g+k, p+k, zero, j)
				}
				// e = A dY (4x2): g0, g1, g0+g2, g1+g3, g0-g2, g1-g3, -g2, -g3.
				f.get(g).set(e)
				f.get(g + 1).set(e + 1)
				f.vbin(g, opF32x4Add, g+2)()
				f.set(e + 2)
				f.vbin(g+1, opF32x4Add, g+3)()
				f.set(e + 3)
				f.vbin(g, opF32x4Sub, g+2)()
				f.set(e + 4)
				f.vbin(g+1, opF32x4Sub, g+3)()
				f.set(e + 5)
				f.get(g + 2).simd(opF32x4Neg).set(e + 6)
				f.get(g + 3).simd(opF32x4Neg).set(e + 7)
				// z = e A^T, by rows r: e0, e0+e1, e0-e1, -e1.
				for r := range 4 {
					e0, e1 := e+2*r, e+2*r+1
					f.vstore(out, offZ+4*r, j, func() { f.get(e0) })
					f.vstore(out, offZ+4*r+1, j, f.vbin(e0, opF32x4Add, e1))
					f.vstore(out, offZ+4*r+2, j, f.vbin(e0, opF32x4Sub, e1))
					f.vstore(out, offZ+4*r+3, j, func() { f.get(e1).simd(opF32x4Neg) })
				}
			})
		})
	})
	f.end()
	return vecFunc{"wggrad", i32s(nParams), l.body(f.code)}
}
