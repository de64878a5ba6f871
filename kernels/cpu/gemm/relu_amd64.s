//go:build amd64 && !purego

#include "textflag.h"

// The ReLU pair of relu.go with AVX, 32 floats per iteration, then 8: n
// (a multiple of 8) is the number of elements. The destination may be a
// source (each vector is loaded before it is stored).

// func reluAVX(n int, y, x *float32)
//
// Computes y[i] = x[i] < 0 ? 0 : x[i] for i < n: an ordered less-than
// compare (false for NaN and -0, which pass through) and an and-not with
// its mask.
TEXT ·reluAVX(SB), NOSPLIT, $0-24
	MOVQ   n+0(FP), CX
	MOVQ   y+8(FP), DI
	MOVQ   x+16(FP), SI
	VXORPS Y15, Y15, Y15
	CMPQ   CX, $32
	JLT    r8

rloop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VCMPPS  $0x11, Y15, Y0, Y4 // x < 0 (LT_OQ)
	VCMPPS  $0x11, Y15, Y1, Y5
	VCMPPS  $0x11, Y15, Y2, Y6
	VCMPPS  $0x11, Y15, Y3, Y7
	VANDNPS Y0, Y4, Y0         // ^mask & x
	VANDNPS Y1, Y5, Y1
	VANDNPS Y2, Y6, Y2
	VANDNPS Y3, Y7, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	CMPQ    CX, $32
	JGE     rloop

r8:
	TESTQ CX, CX
	JZ    rdone

r8loop:
	VMOVUPS (SI), Y0
	VCMPPS  $0x11, Y15, Y0, Y4
	VANDNPS Y0, Y4, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     r8loop

rdone:
	VZEROUPPER
	RET

// func reluBackwardAVX(n int, dx, dy, y *float32)
//
// Computes dx[i] = y[i] > 0 ? dy[i] : 0 for i < n: an ordered greater-than
// compare (false for NaN) and an and with its mask.
TEXT ·reluBackwardAVX(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   dx+8(FP), DI
	MOVQ   dy+16(FP), DX
	MOVQ   y+24(FP), SI
	VXORPS Y15, Y15, Y15
	CMPQ   CX, $32
	JLT    b8

bloop:
	VCMPPS  $0x11, (SI), Y15, Y4 // 0 < y (LT_OQ), i.e. y > 0
	VCMPPS  $0x11, 32(SI), Y15, Y5
	VCMPPS  $0x11, 64(SI), Y15, Y6
	VCMPPS  $0x11, 96(SI), Y15, Y7
	VANDPS  (DX), Y4, Y0
	VANDPS  32(DX), Y5, Y1
	VANDPS  64(DX), Y6, Y2
	VANDPS  96(DX), Y7, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	SUBQ    $32, CX
	CMPQ    CX, $32
	JGE     bloop

b8:
	TESTQ CX, CX
	JZ    bdone

b8loop:
	VCMPPS  $0x11, (SI), Y15, Y4
	VANDPS  (DX), Y4, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     b8loop

bdone:
	VZEROUPPER
	RET
