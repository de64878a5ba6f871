//go:build !(js && wasm)

package wasmsimd

// The module's ReLU pair (kernels/cpu, relu_simd.go), as package ref's
// ReLU and ReLUBackward compute them, over n floats (offsets in bytes):
//
//	relu(y, x, n)             y = +0 where x < 0, else x (-0 and NaN pass)
//	reluback(dx, dy, y, n)    dx = dy where y > 0, else +0
//
// A vector at a time, as a mask of the comparison and-ed with the bits,
// then the last n%4 floats one at a time.

// reluFunc returns relu, or with back reluback.
func reluFunc(back bool) vecFunc {
	nParams := 3
	if back {
		nParams = 4
	}
	out, in, y, n := 0, 1, 2, nParams-1 // y: reluback's only
	l := locals{next: nParams}
	i, nb := l.add(i32, 1), l.add(i32, 1)
	var f fn
	f.get(n).i32c(4).op(opI32Mul).set(nb)
	addr := func(base int) { f.get(base).get(i).op(opI32Add) }
	f.i32c(0).set(i)
	f.block().loop() // whole vectors
	f.get(i).i32c(16).op(opI32Add).get(nb).op(opI32GtS).brIf(1)
	addr(out)
	if back {
		addr(in)
		f.vmem(opV128Load, 0)
		addr(y)
		f.vmem(opV128Load, 0).v128zero().simd(opF32x4Gt).simd(opV128And)
	} else {
		addr(in)
		f.vmem(opV128Load, 0)
		addr(in)
		f.vmem(opV128Load, 0).v128zero().simd(opF32x4Lt).simd(opV128AndNot)
	}
	f.vmem(opV128Store, 0)
	f.get(i).i32c(16).op(opI32Add).set(i)
	f.br(0)
	f.end().end()
	f.block().loop() // the tail
	f.get(i).get(nb).op(opI32GeS).brIf(1)
	addr(out)
	if back {
		addr(in)
		f.op(opF32Load).mem(0).f32c(0)
		addr(y)
		f.op(opF32Load).mem(0).f32c(0).op(opF32Gt)
	} else {
		f.f32c(0)
		addr(in)
		f.op(opF32Load).mem(0)
		addr(in)
		f.op(opF32Load).mem(0).f32c(0).op(opF32Lt)
	}
	f.op(opSelect).op(opF32Store).mem(0)
	f.get(i).i32c(4).op(opI32Add).set(i)
	f.br(0)
	f.end().end()
	f.end()
	name := "relu"
	if back {
		name = "reluback"
	}
	return vecFunc{name, i32s(nParams), l.body(f.code)}
}
