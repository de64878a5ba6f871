//go:build amd64 && !purego

#include "textflag.h"

// func transpose4x8AVX(n int, dst *float32, ldd int, src *float32, lds int)
//
// Transposes a 4×8n block: dst[p*ldd+r] = src[r*lds+p] for r < 4 and
// p < 8n, eight columns (one 4×8 tile) per iteration with in-register
// unpacks. ldd and lds are in floats.
TEXT ·transpose4x8AVX(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ ldd+16(FP), R8
	MOVQ src+24(FP), SI
	MOVQ lds+32(FP), R9
	SHLQ $2, R8                // ldd in bytes
	SHLQ $2, R9                // lds in bytes
	LEAQ (R9)(R9*2), R10       // 3*lds
	LEAQ (R8)(R8*2), R11       // 3*ldd
	MOVQ R8, R12
	SHLQ $2, R12               // 4*ldd
	TESTQ CX, CX
	JZ    tdone

tloop:
	VMOVUPS   (SI), Y0         // row 0: p0..p7
	VMOVUPS   (SI)(R9*1), Y1   // row 1
	VMOVUPS   (SI)(R9*2), Y2   // row 2
	VMOVUPS   (SI)(R10*1), Y3  // row 3
	VUNPCKLPS Y1, Y0, Y4       // r0p0 r1p0 r0p1 r1p1 | r0p4 r1p4 r0p5 r1p5
	VUNPCKHPS Y1, Y0, Y5       // r0p2 r1p2 r0p3 r1p3 | r0p6 r1p6 r0p7 r1p7
	VUNPCKLPS Y3, Y2, Y6       // same for rows 2 and 3
	VUNPCKHPS Y3, Y2, Y7
	VUNPCKLPD Y6, Y4, Y0       // column p0 | column p4
	VUNPCKHPD Y6, Y4, Y1       // column p1 | column p5
	VUNPCKLPD Y7, Y5, Y2       // column p2 | column p6
	VUNPCKHPD Y7, Y5, Y3       // column p3 | column p7
	VMOVUPS      X0, (DI)
	VMOVUPS      X1, (DI)(R8*1)
	VMOVUPS      X2, (DI)(R8*2)
	VMOVUPS      X3, (DI)(R11*1)
	ADDQ         R12, DI
	VEXTRACTF128 $1, Y0, (DI)
	VEXTRACTF128 $1, Y1, (DI)(R8*1)
	VEXTRACTF128 $1, Y2, (DI)(R8*2)
	VEXTRACTF128 $1, Y3, (DI)(R11*1)
	ADDQ         R12, DI
	ADDQ         $32, SI
	DECQ         CX
	JNZ          tloop

tdone:
	VZEROUPPER
	RET

// func copyRows32AVX(kb int, dst, src *float32, lds int)
//
// Copies kb rows of 32 floats, src[p*lds:][:32] to dst[p*32:][:32].
TEXT ·copyRows32AVX(SB), NOSPLIT, $0-32
	MOVQ kb+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JZ    c32done

c32loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    R9, SI
	DECQ    CX
	JNZ     c32loop

c32done:
	VZEROUPPER
	RET

// func copyRows16AVX(kb int, dst, src *float32, lds int)
//
// Copies kb rows of 16 floats, src[p*lds:][:16] to dst[p*16:][:16].
TEXT ·copyRows16AVX(SB), NOSPLIT, $0-32
	MOVQ kb+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JZ    c16done

c16loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    $64, DI
	ADDQ    R9, SI
	DECQ    CX
	JNZ     c16loop

c16done:
	VZEROUPPER
	RET

// func copyRows12AVX(kb int, dst, src *float32, lds int)
//
// Copies kb rows of 12 floats, src[p*lds:][:12] to dst[p*12:][:12].
TEXT ·copyRows12AVX(SB), NOSPLIT, $0-32
	MOVQ kb+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JZ    c12done

c12loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ    $48, DI
	ADDQ    R9, SI
	DECQ    CX
	JNZ     c12loop

c12done:
	VZEROUPPER
	RET

// func copyRows6AVX(kb int, dst, src *float32, lds int)
//
// Copies kb rows of 6 floats, src[p*lds:][:6] to dst[p*6:][:6].
TEXT ·copyRows6AVX(SB), NOSPLIT, $0-32
	MOVQ kb+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JZ    c6done

c6loop:
	VMOVUPS (SI), X0
	VMOVSD  16(SI), X1
	VMOVUPS X0, (DI)
	VMOVSD  X1, 16(DI)
	ADDQ    $24, DI
	ADDQ    R9, SI
	DECQ    CX
	JNZ     c6loop

c6done:
	RET

