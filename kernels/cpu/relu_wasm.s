#include "textflag.h"

// The ReLU pair for js/wasm: WebAssembly's structured loops, which the
// browser compiles to plain machine loops, and its select instruction
// instead of Go's branches (each taken branch of Go code in WebAssembly is
// a jump through the function's dispatch table). Eight elements per
// iteration, then the rest one by one.

// func reluWasm(n int, y, x *float32)
// y[i] = 0 if x[i] < 0, else x[i] (-0 and NaN pass through), as ref.ReLU.
// R0: y, R1: x, R2: elements left.
TEXT ·reluWasm(SB), NOSPLIT, $0-24
	MOVD n+0(FP), R2
	MOVD y+8(FP), R0
	MOVD x+16(FP), R1
	Block
	Loop
	Get R2
	I64Const $8
	I64LtU
	BrIf $1
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $0
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $0
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $4
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $4
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $8
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $8
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $12
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $12
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $16
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $16
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $20
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $20
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $24
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $24
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $28
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $28
	Get R0
	I64Const $32
	I64Add
	Set R0
	Get R1
	I64Const $32
	I64Add
	Set R1
	Get R2
	I64Const $8
	I64Sub
	Set R2
	Br $0
	End
	End
	Block
	Loop
	Get R2
	I64Const $1
	I64LtU
	BrIf $1
	Get R0
	I32WrapI64
	F32Const $(0.0)
	Get R1
	I32WrapI64
	F32Load $0
	Tee F0
	Get F0
	F32Const $(0.0)
	F32Lt
	Select
	F32Store $0
	Get R0
	I64Const $4
	I64Add
	Set R0
	Get R1
	I64Const $4
	I64Add
	Set R1
	Get R2
	I64Const $1
	I64Sub
	Set R2
	Br $0
	End
	End
	RET

// func reluBackwardWasm(n int, dx, dy, y *float32)
// dx[i] = dy[i] if y[i] > 0, else 0, as ref.ReLUBackward.
// R0: dx, R1: dy, R2: y, R3: elements left.
TEXT ·reluBackwardWasm(SB), NOSPLIT, $0-32
	MOVD n+0(FP), R3
	MOVD dx+8(FP), R0
	MOVD dy+16(FP), R1
	MOVD y+24(FP), R2
	Block
	Loop
	Get R3
	I64Const $8
	I64LtU
	BrIf $1
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $0
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $0
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $0
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $4
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $4
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $4
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $8
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $8
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $8
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $12
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $12
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $12
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $16
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $16
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $16
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $20
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $20
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $20
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $24
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $24
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $24
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $28
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $28
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $28
	Get R0
	I64Const $32
	I64Add
	Set R0
	Get R1
	I64Const $32
	I64Add
	Set R1
	Get R2
	I64Const $32
	I64Add
	Set R2
	Get R3
	I64Const $8
	I64Sub
	Set R3
	Br $0
	End
	End
	Block
	Loop
	Get R3
	I64Const $1
	I64LtU
	BrIf $1
	Get R0
	I32WrapI64
	Get R1
	I32WrapI64
	F32Load $0
	F32Const $(0.0)
	Get R2
	I32WrapI64
	F32Load $0
	F32Const $(0.0)
	F32Gt
	Select
	F32Store $0
	Get R0
	I64Const $4
	I64Add
	Set R0
	Get R1
	I64Const $4
	I64Add
	Set R1
	Get R2
	I64Const $4
	I64Add
	Set R2
	Get R3
	I64Const $1
	I64Sub
	Set R3
	Br $0
	End
	End
	RET
