//go:build !(js && wasm)

package wasmsimd

// The module's unfolding of the framed convolutions (kernels/cpu,
// frame.go), one channel of a group of images a call:
//
//	unfold(col, planes, x, imgs, h, w, xstride, plane, pad, wq, k, ho, wo, hw, ld)
//
// first copies the channel's h×w plane of each image (at byte offset x,
// the next image's xstride bytes on) into the data area of its framed
// plane (at planes, plane bytes apart; row stride wq floats, after pad
// rows and pad columns), exactly; then gathers, for each tap (kh, kw) in
// order and each image, the ho rows of wo floats at stride wq from offset
// kh*wq+kw of its framed plane into the tap's row of the unfolded matrix
// (at col, ld floats a tap; hw floats an image). The gathers copy whole
// vectors: up to 3 floats past each row, which the next row overwrites,
// and 3 past the channel's last row; they read up to 3 floats past a
// framed row (a framed plane has 7 floats of slack). Counts are floats
// but x, col, planes, xstride and plane, which are bytes.

// unfoldFunc returns the unfold routine.
func unfoldFunc() vecFunc {
	const (
		col = iota
		planes
		x
		imgs
		h
		w
		xstride
		plane
		pad
		wq
		k
		ho
		wo
		hw
		ld
		nParams
	)
	params := i32s(nParams)
	l := locals{next: nParams}
	i, r, j, d, s, kh, kw, row := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	var f fn
	// Framing: w floats a row, exactly (the pads stay zero).
	f.count(i, imgs, func() {
		// d = planes + i*plane + (pad*wq + pad)*4; s = x + i*xstride.
		f.get(planes).get(i).get(plane).op(opI32Mul).op(opI32Add)
		f.get(pad).get(wq).op(opI32Mul).get(pad).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(d)
		f.get(x).get(i).get(xstride).op(opI32Mul).op(opI32Add).set(s)
		f.count(r, h, func() {
			f.i32c(0).set(j)
			f.block().loop() // whole vectors
			f.get(j).i32c(4).op(opI32Add).get(w).op(opI32GtS).brIf(1)
			f.get(d).get(j).i32c(4).op(opI32Mul).op(opI32Add)
			f.get(s).get(j).i32c(4).op(opI32Mul).op(opI32Add).vmem(opV128Load, 0).vmem(opV128Store, 0)
			f.get(j).i32c(4).op(opI32Add).set(j)
			f.br(0)
			f.end().end()
			f.block().loop() // the tail
			f.get(j).get(w).op(opI32GeS).brIf(1)
			f.get(d).get(j).i32c(4).op(opI32Mul).op(opI32Add)
			f.get(s).get(j).i32c(4).op(opI32Mul).op(opI32Add).op(opF32Load).mem(0).op(opF32Store).mem(0)
			f.get(j).i32c(1).op(opI32Add).set(j)
			f.br(0)
			f.end().end()
			f.get(d).get(wq).i32c(4).op(opI32Mul).op(opI32Add).set(d)
			f.get(s).get(w).i32c(4).op(opI32Mul).op(opI32Add).set(s)
		})
	})
	// Gathering: whole vectors of each row of wo floats.
	f.count(kh, k, func() {
		f.count(kw, k, func() {
			f.count(i, imgs, func() {
				// d = col + ((kh*k + kw)*ld + i*hw)*4.
				f.get(col).get(kh).get(k).op(opI32Mul).get(kw).op(opI32Add).get(ld).op(opI32Mul)
				f.get(i).get(hw).op(opI32Mul).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(d)
				// s = planes + i*plane + (kh*wq + kw)*4.
				f.get(planes).get(i).get(plane).op(opI32Mul).op(opI32Add)
				f.get(kh).get(wq).op(opI32Mul).get(kw).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(s)
				f.count(row, ho, func() {
					f.i32c(0).set(j)
					f.loop() // at least one vector: wo >= 1
					f.get(d).get(j).op(opI32Add)
					f.get(s).get(j).op(opI32Add).vmem(opV128Load, 0).vmem(opV128Store, 0)
					f.get(j).i32c(16).op(opI32Add).tee(j).get(wo).i32c(4).op(opI32Mul).op(opI32LtS).brIf(0)
					f.end()
					f.get(d).get(wo).i32c(4).op(opI32Mul).op(opI32Add).set(d)
					f.get(s).get(wq).i32c(4).op(opI32Mul).op(opI32Add).set(s)
				})
			})
		})
	})
	f.end()
	return vecFunc{"unfold", params, l.body(f.code)}
}

// transposeFunc returns the transpose routine, which the framed
// convolutions' outputs take from the products' [pixels, channels] layout
// to [channels, pixels], adding the bias (bias 0: none):
//
//	transpose(dst, src, rows, cols, lds, ldd, bias)
//
// sets dst[c*ldd + r] = src[r*lds + c] (+ bias[c]) for r < rows, c < cols
// (counts and strides in floats, offsets in bytes), in 4×4 blocks of
// vectors, then the remaining rows and columns one float at a time. The
// addition is the one float32 addition of the plain loop: the same bits.
func transposeFunc() vecFunc {
	const (
		dst = iota
		src
		rows
		cols
		lds
		ldd
		bias
		nParams
	)
	l := locals{next: nParams}
	t := newTransposeLocals(&l)
	var f fn
	f.transpose(dst, src, rows, cols, lds, ldd, bias, t)
	f.end()
	return vecFunc{"transpose", i32s(nParams), l.body(f.code)}
}

// transposeLocals are the locals that the transposition's code uses.
type transposeLocals struct{ r, c, s, d, fv, v int }

// newTransposeLocals declares the transposition's locals in l.
func newTransposeLocals(l *locals) transposeLocals {
	t := transposeLocals{r: l.add(i32, 1), c: l.add(i32, 1), s: l.add(i32, 1), d: l.add(i32, 1)}
	t.fv = l.add(f32, 1)
	t.v = l.add(v128, 8) // v..v+3 the rows read, v+4..v+7 the pairs
	return t
}

// transpose emits the transposition of transposeFunc, its arguments in
// the i32 locals dst, src, rows, cols, lds, ldd and bias.
func (f *fn) transpose(dst, src, rows, cols, lds, ldd, bias int, t transposeLocals) {
	r, c, s, d, fv, v := t.r, t.c, t.s, t.d, t.fv, t.v
	// at emits: local = base + (i*ld + j)*4 (i, j, ld locals).
	at := func(local, base, i, ld, j int) {
		f.get(base).get(i).get(ld).op(opI32Mul).get(j).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(local)
	}
	// The 4×4 blocks.
	f.i32c(0).set(r)
	f.block().loop()
	f.get(r).i32c(4).op(opI32Add).get(rows).op(opI32GtS).brIf(1)
	f.i32c(0).set(c)
	f.block().loop()
	f.get(c).i32c(4).op(opI32Add).get(cols).op(opI32GtS).brIf(1)
	at(s, src, r, lds, c)
	for k := range 4 {
		f.get(s).vmem(opV128Load, 0).set(v + k)
		f.get(s).get(lds).i32c(4).op(opI32Mul).op(opI32Add).set(s)
	}
	f.transpose4x4(v)
	f.get(bias).ifOp()
	for k := range 4 {
		f.get(v+k).get(bias).get(c).i32c(4).op(opI32Mul).op(opI32Add).vmem(opV128Load32Splat, 4*k).simd(opF32x4Add).set(v + k)
	}
	f.end()
	at(d, dst, c, ldd, r)
	for k := range 4 {
		f.get(d).get(v+k).vmem(opV128Store, 0)
		f.get(d).get(ldd).i32c(4).op(opI32Mul).op(opI32Add).set(d)
	}
	f.get(c).i32c(4).op(opI32Add).set(c)
	f.br(0)
	f.end().end()
	// The remaining columns of these four rows.
	f.block().loop()
	f.get(c).get(cols).op(opI32GeS).brIf(1)
	for k := range 4 {
		f.get(r).i32c(k).op(opI32Add).set(s) // s: the row
		f.scalarMove(dst, src, s, c, lds, ldd, bias, d, fv)
	}
	f.get(c).i32c(1).op(opI32Add).set(c)
	f.br(0)
	f.end().end()
	f.get(r).i32c(4).op(opI32Add).set(r)
	f.br(0)
	f.end().end()
	// The remaining rows, every column.
	f.block().loop()
	f.get(r).get(rows).op(opI32GeS).brIf(1)
	f.count(c, cols, func() { f.scalarMove(dst, src, r, c, lds, ldd, bias, d, fv) })
	f.get(r).i32c(1).op(opI32Add).set(r)
	f.br(0)
	f.end().end()
}

// scalarMove emits dst[c*ldd + r] = src[r*lds + c] (+ bias[c] where bias
// is not 0) for the locals r and c; tmp is an i32 local, fv an f32 one.
// (The sum is computed in either case, bias[c] then read from the first
// floats of the memory, and select keeps the plain value without a bias:
// adding 0 would turn -0 into +0.)
func (f *fn) scalarMove(dst, src, r, c, lds, ldd, bias, tmp, fv int) {
	f.get(dst).get(c).get(ldd).op(opI32Mul).get(r).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(tmp)
	f.get(tmp)
	f.get(src).get(r).get(lds).op(opI32Mul).get(c).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).op(opF32Load).mem(0).tee(fv)
	f.get(bias).get(c).i32c(4).op(opI32Mul).op(opI32Add).op(opF32Load).mem(0).op(opF32Add)
	f.get(fv).get(bias).op(opSelect)
	f.op(opF32Store).mem(0)
}

// packColsFunc returns packcols, the packing of operands stored by columns
// (gemm's packCols over whole micro-panels):
//
//	packcols(dst, src, lds, w, kb, panels)
//
// transposes, for each of panels micro-panels q, the w rows of kb floats
// at src + q*w*lds*4 (row stride lds floats) into kb rows of w floats at
// dst + q*w*kb*4: dst[p*w + r] = src[r*lds + p]. w is a multiple of 4;
// 4×4 blocks of vectors, then the last kb%4 columns one float at a time.
func packColsFunc() vecFunc {
	const (
		dst = iota
		src
		lds
		w
		kb
		panels
		nParams
	)
	params := i32s(nParams)
	l := locals{next: nParams}
	q, g, p, s, d, k, rows := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	v := l.add(v128, 8)
	var f fn
	f.get(w).i32c(4).op(opI32DivS).set(rows) // rows: 4-row groups a panel
	f.count(q, panels, func() {
		f.count(g, rows, func() {
			// s: row q*w + 4g of src; d: column 4g of the panel's rows.
			f.get(src).get(q).get(w).op(opI32Mul).get(g).i32c(4).op(opI32Mul).op(opI32Add).get(lds).op(opI32Mul).i32c(4).op(opI32Mul).op(opI32Add).set(s)
			f.get(dst).get(q).get(w).op(opI32Mul).get(kb).op(opI32Mul).get(g).i32c(4).op(opI32Mul).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(d)
			f.i32c(0).set(p)
			f.block().loop() // 4×4 blocks
			f.get(p).i32c(4).op(opI32Add).get(kb).op(opI32GtS).brIf(1)
			for r := range 4 {
				f.get(s).get(lds).i32c(4*r).op(opI32Mul).op(opI32Add).get(p).i32c(4).op(opI32Mul).op(opI32Add).vmem(opV128Load, 0).set(v + r)
			}
			f.transpose4x4(v)
			for r := range 4 {
				// dst row p+r: d + (p+r)*w*4.
				f.get(d).get(p).i32c(r).op(opI32Add).get(w).op(opI32Mul).i32c(4).op(opI32Mul).op(opI32Add).get(v+r).vmem(opV128Store, 0)
			}
			f.get(p).i32c(4).op(opI32Add).set(p)
			f.br(0)
			f.end().end()
			f.block().loop() // the last columns
			f.get(p).get(kb).op(opI32GeS).brIf(1)
			for r := range 4 {
				f.get(d).get(p).get(w).op(opI32Mul).i32c(r).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(k)
				f.get(k)
				f.get(s).get(lds).i32c(4 * r).op(opI32Mul).op(opI32Add).get(p).i32c(4).op(opI32Mul).op(opI32Add).op(opF32Load).mem(0)
				f.op(opF32Store).mem(0)
			}
			f.get(p).i32c(1).op(opI32Add).set(p)
			f.br(0)
			f.end().end()
		})
	})
	f.end()
	return vecFunc{"packcols", params, l.body(f.code)}
}

// transpose4x4 transposes the 4×4 floats in the v128 locals v..v+3 (rows
// a, b, c, d become columns), through v+4..v+7: first (a0 b0 a1 b1),
// (a2 b2 a3 b3) and the same of c and d, then their halves.
func (f *fn) transpose4x4(v int) {
	f.get(v).get(v+1).shuffle32(0, 4, 1, 5).set(v + 4)
	f.get(v).get(v+1).shuffle32(2, 6, 3, 7).set(v + 5)
	f.get(v+2).get(v+3).shuffle32(0, 4, 1, 5).set(v + 6)
	f.get(v+2).get(v+3).shuffle32(2, 6, 3, 7).set(v + 7)
	f.get(v+4).get(v+6).shuffle32(0, 1, 4, 5).set(v)
	f.get(v+4).get(v+6).shuffle32(2, 3, 6, 7).set(v + 1)
	f.get(v+5).get(v+7).shuffle32(0, 1, 4, 5).set(v + 2)
	f.get(v+5).get(v+7).shuffle32(2, 3, 6, 7).set(v + 3)
}
