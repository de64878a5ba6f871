//go:build !(js && wasm)

package wasmsimd

// The module's BatchNorm routines, for the CPU backend's passes over the
// planes of one channel (kernels/cpu, bn.go): n planes of hw floats, each
// stride bytes after the one before, at byte offsets x, y, dy, dx. The
// sums run in float64, in two f64x2 accumulators of lanes 0-1 and 2-3
// (then their lanes, then the planes' tails, added in that order), and
// are stored at out; every float32 operation is the one of
// ref.BatchNormTrainChannel and ref.BatchNormBackwardChannel, in the same
// order, so the elementwise results are the same bits:
//
//	bnsum(out, x, n, hw, stride)                  out[0] = Σ x
//	bnsumsq(out, x, n, hw, stride, mu)            out[0] = Σ (x-mu)²
//	bnscale(y, x, n, hw, stride, alpha, shift)    y = x*alpha + shift
//	bngradsums(out, dy, x, n, hw, stride, mean, invstd)
//	                                              out[0] = Σ dy, out[1] = Σ dy*(x-mean)*invstd
//	bngradinput(dx, dy, x, n, hw, stride, mean, invstd, k, m, db, dg)
//	                                              dx = k*(m*dy - db - (x-mean)*invstd*dg)
//
// (out is two float64s, the sums that are not float32 operations.)

// vecFunc is a routine of the module: its export name, parameter types
// and body.
type vecFunc struct {
	name   string
	params []byte
	body   []byte
}

// bnFuncs returns the BatchNorm routines.
func bnFuncs() []vecFunc {
	five := []byte{i32, i32, i32, i32, i32}
	return []vecFunc{
		{"bnsum", five, bnSum(false)},
		{"bnsumsq", cat(five, []byte{f32}), bnSum(true)},
		{"bnscale", cat(five, []byte{f32, f32}), bnScale()},
		{"bngradsums", cat(five, []byte{i32, f32, f32}), bnGradSums()},
		{"bngradinput", cat(five, []byte{i32, f32, f32, f32, f32, f32, f32}), bnGradInput()},
	}
}

// locals hands out the locals of a function body after its parameters,
// by type, and encodes their declaration.
type locals struct {
	next  int
	decls []byte
	n     int
}

// add declares count locals of type t and returns the first's index.
func (l *locals) add(t byte, count int) int {
	first := l.next
	l.next += count
	l.decls = cat(l.decls, u32(count), []byte{t})
	l.n++
	return first
}

// body returns the function body of code with these locals.
func (l *locals) body(code []byte) []byte { return cat(vec(l.n, l.decls), code) }

// i32s returns n i32 parameter types.
func i32s(n int) []byte {
	t := make([]byte, n)
	for i := range t {
		t[i] = i32
	}
	return t
}

// count emits: for v = 0; v < limit; v++ { body } (v and limit locals).
func (f *fn) count(v, limit int, body func()) {
	f.i32c(0).set(v)
	f.block().loop()
	f.get(v).get(limit).op(opI32GeS).brIf(1)
	body()
	f.get(v).i32c(1).op(opI32Add).set(v)
	f.br(0)
	f.end().end()
}

// planes emits the loop over the n planes (param local n) of hw floats
// (param hw), stride bytes apart (param stride), whose first planes start
// at the byte offsets in the param locals bases: cur holds, for each, the
// offset of the floats at hand; vector processes the four floats at cur,
// scalar the one float of a plane's tail. n is counted down to 0.
func (f *fn) planes(n, hw, stride int, bases, cur []int, left int, vector, scalar func()) {
	step := func(by int) {
		for _, c := range cur {
			f.get(c).i32c(by).op(opI32Add).set(c)
		}
	}
	f.block().loop() // planes
	f.get(n).i32c(1).op(opI32LtS).brIf(1)
	for k, b := range bases {
		f.get(b).set(cur[k])
	}
	f.get(hw).set(left)
	f.block().loop() // four floats at a time
	f.get(left).i32c(4).op(opI32LtS).brIf(1)
	vector()
	step(16)
	f.get(left).i32c(4).op(opI32Sub).set(left)
	f.br(0)
	f.end().end()
	f.block().loop() // the tail, one float at a time
	f.get(left).i32c(1).op(opI32LtS).brIf(1)
	scalar()
	step(4)
	f.get(left).i32c(1).op(opI32Sub).set(left)
	f.br(0)
	f.end().end()
	for _, b := range bases {
		f.get(b).get(stride).op(opI32Add).set(b)
	}
	f.get(n).i32c(1).op(opI32Sub).set(n)
	f.br(0)
	f.end().end()
}

// addHalves adds the float64s of the four float32s of the v128 local v to
// the f64x2 accumulators lo (lanes 0 and 1) and hi (lanes 2 and 3).
func (f *fn) addHalves(v, lo, hi int) {
	f.get(lo).get(v).simd(opF64x2PromoteLow).simd(opF64x2Add).set(lo)
	f.get(hi).get(v).get(v).shuffleHigh().simd(opF64x2PromoteLow).simd(opF64x2Add).set(hi)
}

// addSquaredHalves is addHalves of the squares, in float64, of v's lanes
// (d: a v128 local for the float64 pair).
func (f *fn) addSquaredHalves(v, lo, hi, d int) {
	f.get(v).simd(opF64x2PromoteLow).tee(d).get(d).simd(opF64x2Mul).get(lo).simd(opF64x2Add).set(lo)
	f.get(v).get(v).shuffleHigh().simd(opF64x2PromoteLow).tee(d).get(d).simd(opF64x2Mul).get(hi).simd(opF64x2Add).set(hi)
}

// storeSum stores at out+off the sum of the accumulators lo and hi (their
// four lanes) and the scalar s: ((lo0 + lo1) + (hi0 + hi1)) + s.
func (f *fn) storeSum(out, off, lo, hi, s int) {
	f.get(out)
	f.get(lo).simd(opF64x2ExtractLane).lane(0).get(lo).simd(opF64x2ExtractLane).lane(1).op(opF64Add)
	f.get(hi).simd(opF64x2ExtractLane).lane(0).get(hi).simd(opF64x2ExtractLane).lane(1).op(opF64Add)
	f.op(opF64Add).get(s).op(opF64Add)
	f.op(opF64Store).mem(off)
}

// bnSum returns the body of bnsum, or with squares of bnsumsq.
func bnSum(squares bool) []byte {
	const (
		out = iota
		x
		n
		hw
		stride
		mu // bnsumsq's
	)
	l := locals{next: stride + 1}
	if squares {
		l.next++
	}
	cur, left := l.add(i32, 1), l.add(i32, 1)
	s, d := l.add(f64, 1), l.add(f64, 1)
	v, lo, hi, vmu, dv := l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1)
	var f fn
	if squares {
		f.get(mu).simd(opF32x4Splat).set(vmu)
	}
	f.planes(n, hw, stride, []int{x}, []int{cur}, left, func() {
		f.get(cur).vmem(opV128Load, 0)
		if squares {
			f.get(vmu).simd(opF32x4Sub).set(v)
			f.addSquaredHalves(v, lo, hi, dv)
			return
		}
		f.set(v)
		f.addHalves(v, lo, hi)
	}, func() {
		f.get(cur).op(opF32Load).mem(0)
		if squares {
			f.get(mu).op(opF32Sub).op(opF64PromoteF32).tee(d).get(d).op(opF64Mul)
		} else {
			f.op(opF64PromoteF32)
		}
		f.get(s).op(opF64Add).set(s)
	})
	f.storeSum(out, 0, lo, hi, s)
	f.end()
	return l.body(f.code)
}

// bnScale returns the body of bnscale.
func bnScale() []byte {
	const (
		y = iota
		x
		n
		hw
		stride
		alpha
		shift
	)
	l := locals{next: shift + 1}
	cy, cx, left := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	va, vs := l.add(v128, 1), l.add(v128, 1)
	var f fn
	f.get(alpha).simd(opF32x4Splat).set(va)
	f.get(shift).simd(opF32x4Splat).set(vs)
	f.planes(n, hw, stride, []int{y, x}, []int{cy, cx}, left, func() {
		f.get(cy).get(cx).vmem(opV128Load, 0).get(va).simd(opF32x4Mul).get(vs).simd(opF32x4Add).vmem(opV128Store, 0)
	}, func() {
		f.get(cy).get(cx).op(opF32Load).mem(0).get(alpha).op(opF32Mul).get(shift).op(opF32Add).op(opF32Store).mem(0)
	})
	f.end()
	return l.body(f.code)
}

// bnGradSums returns the body of bngradsums.
func bnGradSums() []byte {
	const (
		out = iota
		dy
		x
		n
		hw
		stride
		mean
		invstd
	)
	l := locals{next: invstd + 1}
	cdy, cx, left := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	sb, sg, t := l.add(f64, 1), l.add(f64, 1), l.add(f32, 1)
	vdy, vt, vm, vi, blo, bhi, glo, ghi := l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1)
	var f fn
	f.get(mean).simd(opF32x4Splat).set(vm)
	f.get(invstd).simd(opF32x4Splat).set(vi)
	f.planes(n, hw, stride, []int{dy, x}, []int{cdy, cx}, left, func() {
		f.get(cdy).vmem(opV128Load, 0).set(vdy)
		f.addHalves(vdy, blo, bhi)
		// dy*(x-mean)*invstd
		f.get(vdy).get(cx).vmem(opV128Load, 0).get(vm).simd(opF32x4Sub).simd(opF32x4Mul).get(vi).simd(opF32x4Mul).set(vt)
		f.addHalves(vt, glo, ghi)
	}, func() {
		f.get(cdy).op(opF32Load).mem(0).tee(t).op(opF64PromoteF32).get(sb).op(opF64Add).set(sb)
		f.get(t).get(cx).op(opF32Load).mem(0).get(mean).op(opF32Sub).op(opF32Mul).get(invstd).op(opF32Mul)
		f.op(opF64PromoteF32).get(sg).op(opF64Add).set(sg)
	})
	f.storeSum(out, 0, blo, bhi, sb)
	f.storeSum(out, 8, glo, ghi, sg)
	f.end()
	return l.body(f.code)
}

// bnGradInput returns the body of bngradinput.
func bnGradInput() []byte {
	const (
		dx = iota
		dy
		x
		n
		hw
		stride
		mean
		invstd
		k
		m
		db
		dg
	)
	l := locals{next: dg + 1}
	cdx, cdy, cx, left := l.add(i32, 1), l.add(i32, 1), l.add(i32, 1), l.add(i32, 1)
	vmean, vinv, vk, vm, vdb, vdg := l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1), l.add(v128, 1)
	var f fn
	for _, p := range [][2]int{{mean, vmean}, {invstd, vinv}, {k, vk}, {m, vm}, {db, vdb}, {dg, vdg}} {
		f.get(p[0]).simd(opF32x4Splat).set(p[1])
	}
	f.planes(n, hw, stride, []int{dx, dy, x}, []int{cdx, cdy, cx}, left, func() {
		// k * ((m*dy - db) - ((x-mean)*invstd)*dg)
		f.get(cdx).get(vk)
		f.get(vm).get(cdy).vmem(opV128Load, 0).simd(opF32x4Mul).get(vdb).simd(opF32x4Sub)
		f.get(cx).vmem(opV128Load, 0).get(vmean).simd(opF32x4Sub).get(vinv).simd(opF32x4Mul).get(vdg).simd(opF32x4Mul)
		f.simd(opF32x4Sub).simd(opF32x4Mul).vmem(opV128Store, 0)
	}, func() {
		f.get(cdx).get(k)
		f.get(m).get(cdy).op(opF32Load).mem(0).op(opF32Mul).get(db).op(opF32Sub)
		f.get(cx).op(opF32Load).mem(0).get(mean).op(opF32Sub).get(invstd).op(opF32Mul).get(dg).op(opF32Mul)
		f.op(opF32Sub).op(opF32Mul).op(opF32Store).mem(0)
	})
	f.end()
	return l.body(f.code)
}
