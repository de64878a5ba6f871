#include "textflag.h"
#include "wasm_macros.h"

// The ReLU pair for js/wasm: WebAssembly's structured loops, which the
// browser compiles to plain machine loops, and integer masks of the
// elements' bits instead of branches (each taken branch of Go code in
// WebAssembly is a jump through the function's dispatch table, and a float
// select is compiled to a branch that random signs mispredict). Eight
// elements per iteration, then the rest one by one.

// RELU(off): y[off] = +0 if x[off] < 0, else x[off], as the bits of x
// and-ed with (x < 0) - 1 (R0: y, R1: x; off in bytes).
#define RELU(off) Get R0; I32WrapI64; Get R1; I32WrapI64; F32Load $off; Tee F0; I32ReinterpretF32; Get F0; F32Const $(0.0); F32Lt; I32Const $1; I32Sub; I32And; F32ReinterpretI32; F32Store $off

// RELU_BACK(off): dx[off] = dy[off] if y[off] > 0, else +0, as the bits of
// dy and-ed with 0 - (y > 0) (R0: dx, R1: dy, R2: y).
#define RELU_BACK(off) Get R0; I32WrapI64; I32Const $0; Get R2; I32WrapI64; F32Load $off; F32Const $(0.0); F32Gt; I32Sub; Get R1; I32WrapI64; F32Load $off; I32ReinterpretF32; I32And; F32ReinterpretI32; F32Store $off

// func reluWasm(n int, y, x *float32)
// y[i] = 0 if x[i] < 0, else x[i] (-0 and NaN pass through), as ref.ReLU.
// R0: y, R1: x, R2: elements left.
TEXT ·reluWasm(SB), NOSPLIT, $0-24
	MOVD n+0(FP), R2
	MOVD y+8(FP), R0
	MOVD x+16(FP), R1
	LOOP_WHILE(R2, 8)
	RELU(0); RELU(4); RELU(8); RELU(12); RELU(16); RELU(20); RELU(24); RELU(28)
	ADVANCE(R0, 32); ADVANCE(R1, 32)
	END_LOOP(R2, 8)
	LOOP_WHILE(R2, 1)
	RELU(0)
	ADVANCE(R0, 4); ADVANCE(R1, 4)
	END_LOOP(R2, 1)
	RET

// func reluBackwardWasm(n int, dx, dy, y *float32)
// dx[i] = dy[i] if y[i] > 0, else 0, as ref.ReLUBackward.
// R0: dx, R1: dy, R2: y, R3: elements left.
TEXT ·reluBackwardWasm(SB), NOSPLIT, $0-32
	MOVD n+0(FP), R3
	MOVD dx+8(FP), R0
	MOVD dy+16(FP), R1
	MOVD y+24(FP), R2
	LOOP_WHILE(R3, 8)
	RELU_BACK(0); RELU_BACK(4); RELU_BACK(8); RELU_BACK(12); RELU_BACK(16); RELU_BACK(20); RELU_BACK(24); RELU_BACK(28)
	ADVANCE(R0, 32); ADVANCE(R1, 32); ADVANCE(R2, 32)
	END_LOOP(R3, 8)
	LOOP_WHILE(R3, 1)
	RELU_BACK(0)
	ADVANCE(R0, 4); ADVANCE(R1, 4); ADVANCE(R2, 4)
	END_LOOP(R3, 1)
	RET
