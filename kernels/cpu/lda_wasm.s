#include "textflag.h"

// The LDA head's discriminants for js/wasm (see lda_wasm.go), row by row
// with WebAssembly's structured loops, which the browser compiles to plain
// machine loops, instead of Go's code, in which every taken branch is a
// jump through the function's dispatch table.

// func ldaRowsWasm(n, c, d int, z, a, m, off, w, delta *float32)
// For each of the n rows of z[n,d] and delta[n,c]: w[r] = sum over j of
// a[r*d+j]*z[j] (in order, from 0), then delta[k] = off[k] - q/2 with q =
// sum over j of (w[j]-m[k*d+j])^2 (in order, from 0); w is d floats of
// scratch.
// R0: rows left, R1: c, R2: d, R3: z row, R4: a, R5: m, R6: off, R7: w,
// R8: delta row, R9: outer index, R10: inner index, R11: a or m walker,
// R12: 4*d; F0: sum, F1: e.
TEXT ·ldaRowsWasm(SB), NOSPLIT, $0-72
	MOVD n+0(FP), R0
	MOVD c+8(FP), R1
	MOVD d+16(FP), R2
	MOVD z+24(FP), R3
	MOVD a+32(FP), R4
	MOVD m+40(FP), R5
	MOVD off+48(FP), R6
	MOVD w+56(FP), R7
	MOVD delta+64(FP), R8
	Get R2
	I64Const $2
	I64Shl
	Set R12
	Block
	Loop
		Get R0
		I64Eqz
		BrIf $1
		// w[r] = sum over j of a[r*d+j]*z[j]
		Get R4
		Set R11
		I64Const $0
		Set R9
		Block
		Loop
			Get R9
			Get R2
			I64GeU
			BrIf $1
			F32Const $(0.0)
			Set F0
			I64Const $0
			Set R10
			Block
			Loop
				Get R10
				Get R2
				I64GeU
				BrIf $1
				Get F0
				Get R11
				I32WrapI64
				F32Load $0
				Get R3
				Get R10
				I64Const $2
				I64Shl
				I64Add
				I32WrapI64
				F32Load $0
				F32Mul
				F32Add
				Set F0
				Get R11
				I64Const $4
				I64Add
				Set R11
				Get R10
				I64Const $1
				I64Add
				Set R10
				Br $0
			End
			End
			Get R7
			Get R9
			I64Const $2
			I64Shl
			I64Add
			I32WrapI64
			Get F0
			F32Store $0
			Get R9
			I64Const $1
			I64Add
			Set R9
			Br $0
		End
		End
		// delta[k] = off[k] - (sum over j of (w[j]-m[k*d+j])^2)/2
		Get R5
		Set R11
		I64Const $0
		Set R9
		Block
		Loop
			Get R9
			Get R1
			I64GeU
			BrIf $1
			F32Const $(0.0)
			Set F0
			I64Const $0
			Set R10
			Block
			Loop
				Get R10
				Get R2
				I64GeU
				BrIf $1
				Get R7
				Get R10
				I64Const $2
				I64Shl
				I64Add
				I32WrapI64
				F32Load $0
				Get R11
				I32WrapI64
				F32Load $0
				F32Sub
				Tee F1
				Get F1
				F32Mul
				Get F0
				F32Add
				Set F0
				Get R11
				I64Const $4
				I64Add
				Set R11
				Get R10
				I64Const $1
				I64Add
				Set R10
				Br $0
			End
			End
			Get R9
			I64Const $2
			I64Shl
			Tee R10
			Get R8
			I64Add
			I32WrapI64
			Get R6
			Get R10
			I64Add
			I32WrapI64
			F32Load $0
			Get F0
			F32Const $(2.0)
			F32Div
			F32Sub
			F32Store $0
			Get R9
			I64Const $1
			I64Add
			Set R9
			Br $0
		End
		End
		Get R3
		Get R12
		I64Add
		Set R3
		Get R8
		Get R1
		I64Const $2
		I64Shl
		I64Add
		Set R8
		Get R0
		I64Const $1
		I64Sub
		Set R0
		Br $0
	End
	End
	RET
