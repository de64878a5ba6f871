#include "textflag.h"
#include "wasm_macros.h"

// The LDA head's discriminants for js/wasm (see lda_wasm.go), row by row
// with WebAssembly's structured loops, which the browser compiles to plain
// machine loops, instead of Go's code, in which every taken branch is a
// jump through the function's dispatch table.

// DOT(s, a, x, j, end) sets float register s to the sum from +0, in order
// over the byte offsets j below register end, of the floats from the
// walker a (left past them) times those at x+j.
#define DOT(s, a, x, j, end) F32Const $(0.0); Set s; FOR(j, end); Get s; LOAD(a, 0); AT(x, j); F32Load $0; F32Mul; F32Add; Set s; ADVANCE(a, 4); NEXT(j, 4)

// CLASS(g, total, grow, colSum, k) loads the score gradient g = grow[k]
// (k in bytes), then total += g and colSum[k] += g.
#define CLASS(g, total, grow, colSum, k) AT(grow, k); F32Load $0; Set g; Get total; Get g; F32Add; Set total; UPDATE(colSum, k, 0, F32Add, g)

// func ldaRowsWasm(n, c, d int, z, a, m, off, w, delta *float32)
// For each of the n rows of z[n,d] and delta[n,c]: w[r] = sum over j of
// a[r*d+j]*z[j] (in order, from 0), then delta[k] = off[k] - q/2 with q =
// sum over j of (w[j]-m[k*d+j])^2 (in order, from 0); w is d floats of
// scratch.
// R0: rows left, R1: 4*c, R2: 4*d, R3: z row, R4: a, R5: m, R6: off, R7: w,
// R8: delta row, R9: outer offset, R10: inner offset, R11: a or m walker;
// F0: sum, F1: e.
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
	BYTES(R1); BYTES(R2)
	ROWS(R0)
		// w[i] = sum over j of a[i*d+j]*z[j]
		Get R4; Set R11
		FOR(R9, R2)
			DOT(F0, R11, R3, R10, R2)
			AT(R7, R9); Get F0; F32Store $0
		NEXT(R9, 4)
		// delta[k] = off[k] - (sum over j of (w[j]-m[k*d+j])^2)/2
		Get R5; Set R11
		FOR(R9, R1)
			F32Const $(0.0); Set F0
			FOR(R10, R2)
				AT(R7, R10); F32Load $0
				LOAD(R11, 0)
				F32Sub; Tee F1; Get F1; F32Mul
				Get F0; F32Add; Set F0
				ADVANCE(R11, 4)
			NEXT(R10, 4)
			AT(R8, R9)
			AT(R6, R9); F32Load $0
			Get F0; F32Const $(2.0); F32Div; F32Sub
			F32Store $0
		NEXT(R9, 4)
		ADD(R3, R2)
		ADD(R8, R1)
	END_ROWS(R0)
	RET

// func ldaBackwardRowsWasm(n, c, d int, z, ddelta, a, m, dw, dz, colSum, dm, dA, total *float32)
// ldaParts.backwardRowsGo row by row, for the n rows of z[n,d], the
// score gradients g = ddelta[n,c] and dz[n,d], adding to the sums
// colSum[c], dm[c,d], dA[d,d] and total (which ref starts from zero); a[d,d]
// is the whitening, m[c,d] the whitened means, dw d floats of scratch. For
// each row, in the order of ref's loops over the rows for each sum:
//	w[i] = sum over j of a[i*d+j]*z[j] (in dz, until it is set)
//	for each class k: total += g[k]; colSum[k] += g[k]; for each j:
//	    ge = g[k]*(w[j]-m[k*d+j]); dw[j] -= ge (from 0); dm[k*d+j] += ge
//	dz[i] = sum over j of a[j*d+i]*dw[j]; dA[i*d+j] += dw[i]*z[j]
// R0: rows left, R1: 4*c, R2: 4*d, R3: z row, R4: g row, R5: a, R6: m,
// R7: dw, R8: dz row, R9: colSum, R10: dm, R11: dA walker, R12: outer
// offset, R13: inner offset, R14: a or m walker, R15: 4*d*d;
// F0: sum, F1: g[k], F2: total, F3: ge, F4: dw[i].
TEXT ·ldaBackwardRowsWasm(SB), NOSPLIT, $0-104
	MOVD n+0(FP), R0
	MOVD c+8(FP), R1
	MOVD d+16(FP), R2
	MOVD z+24(FP), R3
	MOVD ddelta+32(FP), R4
	MOVD a+40(FP), R5
	MOVD m+48(FP), R6
	MOVD dw+56(FP), R7
	MOVD dz+64(FP), R8
	MOVD colSum+72(FP), R9
	MOVD dm+80(FP), R10
	MOVD dA+88(FP), R11
	BYTES(R1); BYTES(R2)
	Get R2; Get R2; I64Mul; I64Const $2; I64ShrU; Set R15
	MOVD total+96(FP), R12
	LOAD(R12, 0); Set F2
	ROWS(R0)
		// w[i] = sum over j of a[i*d+j]*z[j], in dz[i]; dw[i] = 0.
		Get R5; Set R14
		FOR(R12, R2)
			DOT(F0, R14, R3, R13, R2)
			AT(R8, R12); Get F0; F32Store $0
			AT(R7, R12); F32Const $(0.0); F32Store $0
		NEXT(R12, 4)
		// The classes: total, colSum[k], and for each j ge, dw[j], dm[k*d+j].
		I64Const $0; Set R14
		FOR(R12, R1)
			CLASS(F1, F2, R4, R9, R12)
			FOR(R13, R2)
				Get F1
				AT(R8, R13); F32Load $0
				AT(R6, R14); F32Load $0
				F32Sub; F32Mul; Set F3
				UPDATE(R7, R13, 0, F32Sub, F3)
				UPDATE(R10, R14, 0, F32Add, F3)
				ADVANCE(R14, 4)
			NEXT(R13, 4)
		NEXT(R12, 4)
		// dz[i] = sum over j of a[j*d+i]*dw[j]; dA[i*d+j] += dw[i]*z[j].
		FOR(R12, R2)
			F32Const $(0.0); Set F0
			AT(R7, R12); F32Load $0; Set F4
			Get R5; Get R12; I64Add; Set R14
			FOR(R13, R2)
				Get F0
				LOAD(R14, 0)
				AT(R7, R13); F32Load $0
				F32Mul; F32Add; Set F0
				Get R11; I32WrapI64
				LOAD(R11, 0)
				Get F4
				AT(R3, R13); F32Load $0
				F32Mul; F32Add; F32Store $0
				ADVANCE(R11, 4)
				ADD(R14, R2)
			NEXT(R13, 4)
			AT(R8, R12); Get F0; F32Store $0
		NEXT(R12, 4)
		Get R11; Get R15; I64Sub; Set R11
		ADD(R3, R2)
		ADD(R8, R2)
		ADD(R4, R1)
	END_ROWS(R0)
	MOVD total+96(FP), R12
	STORE(R12, 0, F2)
	RET

// ZERO_PLUS(a), a float x pushed after it and TIMES_ADD push 0 + a*x (as
// ref's sums from zero: +0, not -0, when a*x is -0); s, a, x and
// TIMES_ADD push s + a*x.
#define ZERO_PLUS(a) F32Const $(0.0); Get a
#define TIMES_ADD F32Mul; F32Add

// Z(off) pushes the float at byte off of the row of z (R3).
#define Z(off) LOAD(R3, off)

// W2 sets F4, F5 to w = a z for the row of z (R3) and a in F0-F3.
#define W2 ZERO_PLUS(F0); Z(0); TIMES_ADD; Get F1; Z(4); TIMES_ADD; Set F4; ZERO_PLUS(F2); Z(0); TIMES_ADD; Get F3; Z(4); TIMES_ADD; Set F5

// LOAD4(r, f0, f1, f2, f3) loads the four floats from the address in r
// into f0-f3; STORE4 stores them back.
#define LOAD4(r, f0, f1, f2, f3) LOAD(r, 0); Set f0; LOAD(r, 4); Set f1; LOAD(r, 8); Set f2; LOAD(r, 12); Set f3
#define STORE4(r, f0, f1, f2, f3) STORE(r, 0, f0); STORE(r, 4, f1); STORE(r, 8, f2); STORE(r, 12, f3)

// CLASS_J(w, dw, off): for the dimension j at byte off of the class's
// means: ge = g*(w-m[k*2+j]) (F9: g, F10: ge), dw -= ge, dm[k*2+j] += ge.
#define CLASS_J(w, dw, off) Get F9; Get w; AT(R5, R10); F32Load $off; F32Sub; F32Mul; Set F10; Get dw; Get F10; F32Sub; Set dw; UPDATE(R8, R10, off, F32Add, F10)

// func ldaBackwardRows2Wasm(n, c int, z, ddelta, a, m, dz, colSum, dm, dA, total *float32)
// ldaBackwardRowsWasm for d = 2, with the row's w and dw, a, dA and total
// in registers instead of memory and no loops over the dimensions; the
// same operations in the same order.
// R0: rows left, R1: 4*c, R2: a, R3: z row, R4: ddelta row, R5: m, R6: dz
// row, R7: colSum, R8: dm, R9: 4*k, R10: 8*k, R11: dA;
// F0-F3: a, F4, F5: w, F6, F7: dw, F8: total, F9: g[k], F10: ge,
// F12-F15: dA.
TEXT ·ldaBackwardRows2Wasm(SB), NOSPLIT, $0-88
	MOVD n+0(FP), R0
	MOVD c+8(FP), R1
	MOVD z+16(FP), R3
	MOVD ddelta+24(FP), R4
	MOVD a+32(FP), R2
	MOVD m+40(FP), R5
	MOVD dz+48(FP), R6
	MOVD colSum+56(FP), R7
	MOVD dm+64(FP), R8
	MOVD dA+72(FP), R11
	BYTES(R1)
	LOAD4(R2, F0, F1, F2, F3)
	LOAD4(R11, F12, F13, F14, F15)
	MOVD total+80(FP), R9
	LOAD(R9, 0); Set F8
	ROWS(R0)
		W2
		F32Const $(0.0); Set F6
		F32Const $(0.0); Set F7
		I64Const $0; Set R10
		FOR(R9, R1)
			CLASS(F9, F8, R4, R7, R9)
			CLASS_J(F4, F6, 0)
			CLASS_J(F5, F7, 4)
			ADVANCE(R10, 8)
		NEXT(R9, 4)
		// dz = a^T dw; dA += dw z^T.
		Get R6; I32WrapI64; ZERO_PLUS(F0); Get F6; TIMES_ADD; Get F2; Get F7; TIMES_ADD; F32Store $0
		Get R6; I32WrapI64; ZERO_PLUS(F1); Get F6; TIMES_ADD; Get F3; Get F7; TIMES_ADD; F32Store $4
		Get F12; Get F6; Z(0); TIMES_ADD; Set F12
		Get F13; Get F6; Z(4); TIMES_ADD; Set F13
		Get F14; Get F7; Z(0); TIMES_ADD; Set F14
		Get F15; Get F7; Z(4); TIMES_ADD; Set F15
		ADVANCE(R3, 8)
		ADVANCE(R6, 8)
		ADD(R4, R1)
	END_ROWS(R0)
	STORE4(R11, F12, F13, F14, F15)
	MOVD total+80(FP), R9
	STORE(R9, 0, F8)
	RET

// SQ_DIFF(w, off) pushes e*e for e = w - m[k*2+j], the dimension j at byte
// off of the class's means (R4: m, R10: 8*k; F6: e).
#define SQ_DIFF(w, off) Get w; AT(R4, R10); F32Load $off; F32Sub; Tee F6; Get F6; F32Mul

// func ldaRows2Wasm(n, c int, z, a, m, off, delta *float32)
// ldaRowsWasm for d = 2, with the row's w and a in registers and no loops
// over the dimensions; the same operations in the same order.
// R0: rows left, R1: 4*c, R2: a, R3: z row, R4: m, R5: off, R6: delta row,
// R9: 4*k, R10: 8*k; F0-F3: a, F4, F5: w, F6: e.
TEXT ·ldaRows2Wasm(SB), NOSPLIT, $0-56
	MOVD n+0(FP), R0
	MOVD c+8(FP), R1
	MOVD z+16(FP), R3
	MOVD a+24(FP), R2
	MOVD m+32(FP), R4
	MOVD off+40(FP), R5
	MOVD delta+48(FP), R6
	BYTES(R1)
	LOAD4(R2, F0, F1, F2, F3)
	ROWS(R0)
		W2
		I64Const $0; Set R10
		FOR(R9, R1)
			// delta[k] = off[k] - ((0 + e0*e0) + e1*e1)/2
			AT(R6, R9)
			AT(R5, R9); F32Load $0
			F32Const $(0.0); SQ_DIFF(F4, 0); F32Add; SQ_DIFF(F5, 4); F32Add
			F32Const $(2.0); F32Div; F32Sub
			F32Store $0
			ADVANCE(R10, 8)
		NEXT(R9, 4)
		ADVANCE(R3, 8)
		ADD(R6, R1)
	END_ROWS(R0)
	RET
