//go:build !(js && wasm)

package wasmsimd

// The module's Adam update (kernels/cpu, elem_simd.go), as package ref's
// Adam computes it in float32, over n parameters (offsets in bytes; the
// float32 constants as the caller rounds them):
//
//	adam(param, grad, m, v, n, b1, c1, b2, c2, step, sqrtbc2, eps)
//
//	m = b1*m + c1*g
//	v = b2*v + c2*g*g
//	param = param - step*m / (sqrt(v)/sqrtbc2 + eps)
//
// every operation the reference's, in its order (c1 = 1-b1, c2 = 1-b2,
// step = lr/(1-b1^t), sqrtbc2 = sqrt(1-b2^t)): the same bits. A vector at
// a time, then the last n%4 parameters one at a time.

// adamFunc returns the adam routine.
func adamFunc() vecFunc {
	const (
		param = iota
		grad
		m
		v
		n
		b1
		c1
		b2
		c2
		step
		sqrtbc2
		eps
		nParams
	)
	types := cat(i32s(5), []byte{f32, f32, f32, f32, f32, f32, f32})
	l := locals{next: nParams}
	i, nb := l.add(i32, 1), l.add(i32, 1)
	consts := l.add(v128, 7) // the splats of b1 ... eps
	g, mv, vv := l.add(v128, 1), l.add(v128, 1), l.add(v128, 1)
	gs, ms, vs := l.add(f32, 1), l.add(f32, 1), l.add(f32, 1)
	var f fn
	f.get(n).i32c(4).op(opI32Mul).set(nb)
	for k := range 7 {
		f.get(b1 + k).simd(opF32x4Splat).set(consts + k)
	}
	// update emits one update of the vector (vec) or float at byte i.
	update := func(vec bool) {
		load := func(base int) {
			f.get(base).get(i).op(opI32Add)
			if vec {
				f.vmem(opV128Load, 0)
			} else {
				f.op(opF32Load).mem(0)
			}
		}
		store := func() {
			if vec {
				f.vmem(opV128Store, 0)
			} else {
				f.op(opF32Store).mem(0)
			}
		}
		k := func(c int) { // a constant
			if vec {
				f.get(consts + c - b1)
			} else {
				f.get(c)
			}
		}
		arith := func(vo int, so byte) {
			if vec {
				f.simd(vo)
			} else {
				f.op(so)
			}
		}
		gl, ml, vl := g, mv, vv
		if !vec {
			gl, ml, vl = gs, ms, vs
		}
		load(grad)
		f.set(gl)
		// m = b1*m + c1*g
		f.get(m).get(i).op(opI32Add)
		k(b1)
		load(m)
		arith(opF32x4Mul, opF32Mul)
		k(c1)
		f.get(gl)
		arith(opF32x4Mul, opF32Mul)
		arith(opF32x4Add, opF32Add)
		f.tee(ml)
		store()
		// v = b2*v + (c2*g)*g
		f.get(v).get(i).op(opI32Add)
		k(b2)
		load(v)
		arith(opF32x4Mul, opF32Mul)
		k(c2)
		f.get(gl)
		arith(opF32x4Mul, opF32Mul)
		f.get(gl)
		arith(opF32x4Mul, opF32Mul)
		arith(opF32x4Add, opF32Add)
		f.tee(vl)
		store()
		// param = param - (step*m) / (sqrt(v)/sqrtbc2 + eps)
		f.get(param).get(i).op(opI32Add)
		load(param)
		k(step)
		f.get(ml)
		arith(opF32x4Mul, opF32Mul)
		f.get(vl)
		arith(opF32x4Sqrt, opF32Sqrt)
		k(sqrtbc2)
		arith(opF32x4Div, opF32Div)
		k(eps)
		arith(opF32x4Add, opF32Add)
		arith(opF32x4Div, opF32Div)
		arith(opF32x4Sub, opF32Sub)
		store()
	}
	f.i32c(0).set(i)
	f.block().loop() // whole vectors
	f.get(i).i32c(16).op(opI32Add).get(nb).op(opI32GtS).brIf(1)
	update(true)
	f.get(i).i32c(16).op(opI32Add).set(i)
	f.br(0)
	f.end().end()
	f.block().loop() // the tail
	f.get(i).get(nb).op(opI32GeS).brIf(1)
	update(false)
	f.get(i).i32c(4).op(opI32Add).set(i)
	f.br(0)
	f.end().end()
	f.end()
	return vecFunc{"adam", types, l.body(f.code)}
}
