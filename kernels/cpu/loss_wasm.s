#include "textflag.h"
#include "wasm_macros.h"

// The DNLL loss's pass over the rows for js/wasm (see loss_wasm.go), with
// WebAssembly's structured loops and select, which the browser compiles to
// plain machine loops and conditional moves, instead of Go's code, in which
// every taken branch is a jump through the function's dispatch table.

// func dnllRowsWasm(n, c int, scores, exps *float32, y *int32, lambda, nf float32, grad int) (sum float32, correct int)
// For each of the n rows of scores[n,c] and exps[n,c] = e^scores, in order:
// s = the exps of the row summed in order; when grad != 0 the row of exps
// becomes lambda*e/nf, (lambda*e-1)/nf at the label; the row counts as
// correct when its first argmax is the label; sum += -score_label +
// lambda*s. A label outside [0, c) stops it with correct = -1.
// The gradient is (lambda*e - [k = label])/nf in one division: lambda*e - 0
// is lambda*e, so it is the reference's lambda*e/nf, overwritten at the
// label by (lambda*e-1)/nf, bit for bit.
// R0: rows left, R1: c, R2: scores row, R3: exps row, R4: y, R5: grad,
// R6: correct, R7: row bytes, R8: label, R9: best, R10: k, R11: 4k,
// R12: label bytes; F0: lambda, F1: nf, F2: sum, F4: s, F5: row[best],
// F6: v, F7: e.
TEXT ·dnllRowsWasm(SB), NOSPLIT, $0-72
	MOVD n+0(FP), R0
	MOVD c+8(FP), R1
	MOVD scores+16(FP), R2
	MOVD exps+24(FP), R3
	MOVD y+32(FP), R4
	MOVD grad+48(FP), R5
	Get SP; F32Load lambda+40(FP); Set F0
	Get SP; F32Load nf+44(FP); Set F1
	I64Const $0; Set R6
	F32Const $(0.0); Set F2
	Get R1; I64Const $2; I64Shl; Set R7
	ROWS(R0)
		// the label; one outside [0, c) stops it with correct = -1
		Get R4; I32WrapI64; I64Load32S $0; Tee R8
		Get R1; I64GeU
		If
			I64Const $-1; Set R6
			Br $2
		End
		Get R8; I64Const $2; I64Shl; Set R12
		F32Const $(0.0); Set F4
		I64Const $0; Set R9
		LOAD(R2, 0); Set F5
		I64Const $0; Set R11
		FOR(R10, R1)
			// best, row[best] = k, v if v > row[best]
			AT(R2, R11); F32Load $0; Set F6
			Get R10; Get R9; Get F6; Get F5; F32Gt; Select; Set R9
			Get F6; Get F5; Get F6; Get F5; F32Gt; Select; Set F5
			// s += e; with grad, the exp becomes (lambda*e - [k = label])/nf
			AT(R3, R11); F32Load $0; Set F7
			Get F4; Get F7; F32Add; Set F4
			Get R5; I64Eqz; I32Eqz
			If
				AT(R3, R11)
				Get F0; Get F7; F32Mul
				F32Const $(1.0); F32Const $(0.0); Get R10; Get R8; I64Eq; Select
				F32Sub
				Get F1; F32Div
				F32Store $0
			End
			ADVANCE(R11, 4)
		NEXT(R10, 1)
		// correct += best == label
		Get R6; Get R9; Get R8; I64Eq; I64ExtendI32U; I64Add; Set R6
		// sum += -score_label + lambda*s
		Get F2
		AT(R2, R12); F32Load $0; F32Neg
		Get F0; Get F4; F32Mul
		F32Add; F32Add; Set F2
		ADD(R2, R7)
		ADD(R3, R7)
		ADVANCE(R4, 4)
	END_ROWS(R0)
	Get SP; Get F2; F32Store sum+56(FP)
	Get SP; Get R6; I64Store correct+64(FP)
	RET
