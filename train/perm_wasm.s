#include "textflag.h"

// permInto's shuffle for js/wasm (see perm_wasm.go and perm_other.go):
// math/rand/v2's PCG-DXSM steps, Lemire's bounded draws and the swaps in
// WebAssembly's structured loops, which the browser compiles to plain
// machine loops, instead of Go's code, in which every taken branch is a jump
// through the function's dispatch table and bits.Mul64 a call.

// The constants of pcg.go: mulLo's 32-bit halves, cheapMul as an int64.
#define MUL_HI $2549297995355413924
#define MUL_LO $4865540595714422341
#define MUL_LO1 $1132846948
#define MUL_LO0 $2681009733
#define INC_HI $6364136223846793005
#define INC_LO $1442695040888963407
#define CHEAP_MUL $-2696494805208442699
#define LOW32 $0xffffffff

// ADVANCE(r, bytes) adds bytes to the pointer in register r.
#define ADVANCE(r, bytes) Get r; I64Const $bytes; I64Add; Set r

// PCG_NEXT: one step of pcg.Uint64 (R2, R3: the state's hi and lo; R5: the
// output; R7-R9 scratch). The high half of lo*mulLo in 32-bit halves as
// bits.Mul64's generic code: t = lo1*mulLo0 + (lo0*mulLo0)>>32, high =
// lo1*mulLo1 + t>>32 + ((t&LOW32) + lo0*mulLo1)>>32; then hi = high +
// hi*mulLo + lo*mulHi + incHi + carry, lo = lo*mulLo + incLo, and the DXSM
// output (hi ^ hi>>32)*cheapMul, ^ its >>48, times lo|1.
#define PCG_NEXT \
	Get R3; I64Const LOW32; I64And; Set R7; \
	Get R3; I64Const $32; I64ShrU; Set R8; \
	Get R8; I64Const MUL_LO0; I64Mul; Get R7; I64Const MUL_LO0; I64Mul; I64Const $32; I64ShrU; I64Add; Set R9; \
	Get R8; I64Const MUL_LO1; I64Mul; \
	Get R9; I64Const $32; I64ShrU; I64Add; \
	Get R9; I64Const LOW32; I64And; Get R7; I64Const MUL_LO1; I64Mul; I64Add; I64Const $32; I64ShrU; I64Add; \
	Get R2; I64Const MUL_LO; I64Mul; I64Add; \
	Get R3; I64Const MUL_HI; I64Mul; I64Add; \
	Set R9; \
	Get R3; I64Const MUL_LO; I64Mul; I64Const INC_LO; I64Add; Tee R3; \
	I64Const INC_LO; I64LtU; I64ExtendI32U; \
	Get R9; I64Add; I64Const INC_HI; I64Add; Set R2; \
	Get R2; Get R2; I64Const $32; I64ShrU; I64Xor; I64Const CHEAP_MUL; I64Mul; Tee R5; \
	Get R5; I64Const $48; I64ShrU; I64Xor; \
	Get R3; I64Const $1; I64Or; I64Mul; Set R5

// func permWasm(n int, p *int, src *pcg)
// p[k] = k for k < n, then for i = n-1 down to 1: j = a draw in [0, i]
// (n' = i+1: the low bits of a draw when n' is a power of two, else the
// high half of draw*n', drawing again while the low half is below
// -n' % n', tested only when it is below n'), swap p[i] and p[j]; the
// state goes back to src.
// R0: p, R1: i, R2, R3: the state's hi and lo, R4: n' (the fill's k),
// R5: the draw, R6: j (the fill's pointer), R7-R9: scratch, R10: src.
TEXT ·permWasm(SB), NOSPLIT, $0-24
	MOVD n+0(FP), R1
	MOVD p+8(FP), R0
	MOVD src+16(FP), R10
	I64Const $0
	Set R4
	Get R0
	Set R6
	Block
	Loop
		Get R4
		Get R1
		I64GeU
		BrIf $1
		Get R6
		I32WrapI64
		Get R4
		I64Store $0
		ADVANCE(R6, 8)
		ADVANCE(R4, 1)
		Br $0
	End
	End
	Get R10
	I32WrapI64
	I64Load $0
	Set R2
	Get R10
	I32WrapI64
	I64Load $8
	Set R3
	ADVANCE(R1, -1)
	Block
	Loop
		Get R1
		I64Eqz
		BrIf $1
		Get R1
		I64Const $1
		I64Add
		Set R4
		Block
		Loop
			PCG_NEXT
			Get R4
			Get R4
			I64Const $1
			I64Sub
			I64And
			I64Eqz
			If
				Get R5
				Get R4
				I64Const $1
				I64Sub
				I64And
				Set R6
				Br $2
			End
			Get R5
			Get R4
			I64Mul
			Tee R7
			Get R4
			I64LtU
			If
				Get R7
				I64Const $0
				Get R4
				I64Sub
				Get R4
				I64RemU
				I64LtU
				BrIf $1
			End
			Get R5
			I64Const $32
			I64ShrU
			Get R4
			I64Mul
			Get R5
			I64Const LOW32
			I64And
			Get R4
			I64Mul
			I64Const $32
			I64ShrU
			I64Add
			I64Const $32
			I64ShrU
			Set R6
		End
		End
		Get R1
		I64Const $3
		I64Shl
		Get R0
		I64Add
		Set R7
		Get R6
		I64Const $3
		I64Shl
		Get R0
		I64Add
		Set R8
		Get R7
		I32WrapI64
		I64Load $0
		Set R9
		Get R7
		I32WrapI64
		Get R8
		I32WrapI64
		I64Load $0
		I64Store $0
		Get R8
		I32WrapI64
		Get R9
		I64Store $0
		ADVANCE(R1, -1)
		Br $0
	End
	End
	Get R10
	I32WrapI64
	Get R2
	I64Store $0
	Get R10
	I32WrapI64
	Get R3
	I64Store $8
	RET
