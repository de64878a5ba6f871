#include "textflag.h"

// expPolyTo's loop in float32 for js/wasm (see exp_wasm.go): the same
// float64 operations in the same order, in WebAssembly's structured loops
// with select for its branches, two elements at a time with their
// operations interleaved.
//
// Some steps differ in form, not in value. float64(k), k = int(v) for
// |v| < 1100, is trunc(v) (F64Trunc; -0 for v in (-1, 0), which changes
// none of the results); and 2^k is built from the low bits of
// trunc(v) + 1.5·2^52, which are those of k (the sum is exact), instead of
// converting to an integer and back, which WebAssembly makes costly. Of
// the arguments expPolyTo gives to math.Exp, only NaNs go back to Go: near
// zero, |x| < 2^-28, where math.Exp returns 1 + x, the polynomial's
// float64 result is within 2^-27 of 1 too, so both round to the float32 1;
// and beyond ±700 math.Exp's result rounds to the float32 +Inf or +0,
// which the loop stores itself.

// Each element has its lane of registers: x, kb (an R register: the bits
// of float64(k) + 1.5·2^52) and the float64 kf (float64(k), then t), hi,
// lo, r, c.

// LOAD(off, x): x = float64(src[off]) (R2: src; off in bytes).
#define LOAD(off, x) Get R2; I32WrapI64; F32Load $off; F64PromoteF32; Set x

// SPECIAL(x) pushes whether x is beyond ±700 or NaN: !(|x| < 700). The
// loop takes those one by one.
#define SPECIAL(x) Get x; F64Abs; F64Const $(700.0); F64Lt; I32Eqz

// REDUCE(x, kb, kf, hi, lo): kf = float64(k) for k = int(log2e*x - 0.5)
// if x < 0, else int(log2e*x + 0.5); kb = the bits of kf + 1.5·2^52;
// hi = x - kf*ln2Hi; lo = kf*ln2Lo.
#define REDUCE(x, kb, kf, hi, lo) \
	F64Const $(1.44269504088896338700e+00); Get x; F64Mul; Tee kf; F64Const $(0.5); F64Sub; \
	Get kf; F64Const $(0.5); F64Add; Get x; F64Const $(0.0); F64Lt; Select; F64Trunc; Tee kf; \
	F64Const $(6755399441055744.0); F64Add; I64ReinterpretF64; Set kb; \
	Get x; Get kf; F64Const $(6.93147180369123816490e-01); F64Mul; F64Sub; Set hi; \
	Get kf; F64Const $(1.90821492927058770002e-10); F64Mul; Set lo

// POLY(hi, lo, r, t, c): r = hi - lo; t = r*r;
// c = r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5)))).
#define POLY(hi, lo, r, t, c) \
	Get hi; Get lo; F64Sub; Tee r; Get r; F64Mul; Set t; \
	Get r; Get t; F64Const $(1.66666666666666657415e-01); Get t; F64Const $(-2.77777777770155933842e-03); \
	Get t; F64Const $(6.61375632143793436117e-05); Get t; F64Const $(-1.65339022054652515390e-06); \
	Get t; F64Const $(4.13813679705723846039e-08); \
	F64Mul; F64Add; F64Mul; F64Add; F64Mul; F64Add; F64Mul; F64Add; F64Mul; F64Sub; Set c

// STORE(off, kb, hi, lo, r, c): dst[off] =
// float32((1 - ((lo - (r*c)/(2-c)) - hi)) * 2^k), 2^k having the bits
// (kb + 1023) << 52 (R1: dst; off in bytes).
#define STORE(off, kb, hi, lo, r, c) \
	Get R1; I32WrapI64; \
	F64Const $(1.0); Get lo; Get r; Get c; F64Mul; F64Const $(2.0); Get c; F64Sub; F64Div; F64Sub; Get hi; F64Sub; F64Sub; \
	Get kb; I64Const $1023; I64Add; I64Const $52; I64Shl; F64ReinterpretI64; F64Mul; F32DemoteF64; F32Store $off

// ADVANCE(k): R1 (dst) and R2 (src) move k elements on, R3 (i) counts
// them, R0 (left) counts them off.
#define ADVANCE(k) \
	Get R1; I64Const $(4*k); I64Add; Set R1; Get R2; I64Const $(4*k); I64Add; Set R2; \
	Get R3; I64Const $k; I64Add; Set R3; Get R0; I64Const $k; I64Sub; Set R0

// func expTo32Wasm(n int, dst, src *float32) int
// Sets dst[i] = e^src[i] as expPolyTo does for i = 0, 1, ... until n or the
// first src[i] that is NaN (which expPolyTo gives to math.Exp), and returns
// that i.
// R0: elements left, R1: dst, R2: src, R3: i; lanes R4, F16-F21 and R5,
// F22-F27 (x, kf and t, hi, lo, r, c).
TEXT ·expTo32Wasm(SB), NOSPLIT, $0-32
	MOVD n+0(FP), R0
	MOVD dst+8(FP), R1
	MOVD src+16(FP), R2
	I64Const $0
	Set R3
	Block
	Loop
		// two at a time while neither is special
		Block
		Loop
			Get R0
			I64Const $2
			I64LtU
			BrIf $1
			LOAD(0, F16)
			LOAD(4, F22)
			SPECIAL(F16)
			SPECIAL(F22)
			I32Or
			BrIf $1
			REDUCE(F16, R4, F17, F18, F19)
			REDUCE(F22, R5, F23, F24, F25)
			POLY(F18, F19, F20, F17, F21)
			POLY(F24, F25, F26, F23, F27)
			STORE(0, R4, F18, F19, F20, F21)
			STORE(4, R5, F24, F25, F26, F27)
			ADVANCE(2)
			Br $0
		End
		End
		// then one, unless it is NaN or there is none; if special, its
		// result is +Inf for x >= 700, +0 for x <= -700
		Get R0
		I64Eqz
		BrIf $1
		LOAD(0, F16)
		Get F16
		Get F16
		F64Ne
		BrIf $1
		SPECIAL(F16)
		If
			Get R1
			I32WrapI64
			I32Const $0x7f800000
			I32Const $0
			Get F16
			F64Const $(0.0)
			F64Gt
			Select
			I32Store $0
		Else
			REDUCE(F16, R4, F17, F18, F19)
			POLY(F18, F19, F20, F17, F21)
			STORE(0, R4, F18, F19, F20, F21)
		End
		ADVANCE(1)
		Br $0
	End
	End
	Get SP
	Get R3
	I64Store ret+24(FP)
	RET
