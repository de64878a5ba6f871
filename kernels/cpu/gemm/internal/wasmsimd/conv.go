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
	params := make([]byte, nParams)
	for i := range params {
		params[i] = i32
	}
	l := locals{next: nParams}
	i, r, j, d, s, kh, kw, row := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	var f fn
	// count emits: for v = 0; v < limit; v++ { body }.
	count := func(v, limit int, body func()) {
		f.i32c(0).set(v)
		f.block().loop()
		f.get(v).get(limit).op(opI32GeS).brIf(1)
		body()
		f.get(v).i32c(1).op(opI32Add).set(v)
		f.br(0)
		f.end().end()
	}
	// Framing: w floats a row, exactly (the pads stay zero).
	count(i, imgs, func() {
		// d = planes + i*plane + (pad*wq + pad)*4; s = x + i*xstride.
		f.get(planes).get(i).get(plane).op(opI32Mul).op(opI32Add)
		f.get(pad).get(wq).op(opI32Mul).get(pad).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(d)
		f.get(x).get(i).get(xstride).op(opI32Mul).op(opI32Add).set(s)
		count(r, h, func() {
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
	count(kh, k, func() {
		count(kw, k, func() {
			count(i, imgs, func() {
				// d = col + ((kh*k + kw)*ld + i*hw)*4.
				f.get(col).get(kh).get(k).op(opI32Mul).get(kw).op(opI32Add).get(ld).op(opI32Mul)
				f.get(i).get(hw).op(opI32Mul).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(d)
				// s = planes + i*plane + (kh*wq + kw)*4.
				f.get(planes).get(i).get(plane).op(opI32Mul).op(opI32Add)
				f.get(kh).get(wq).op(opI32Mul).get(kw).op(opI32Add).i32c(4).op(opI32Mul).op(opI32Add).set(s)
				count(row, ho, func() {
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
