//go:build amd64 && !purego

#include "textflag.h"

// The batch-norm routines work on n contiguous floats: eight per iteration
// with AVX, then one at a time. Float32 arithmetic is done in the order of
// ref's loops, without fused multiply-adds, so that elementwise results are
// the same bit for bit; float64 sums are kept in several lanes and added at
// the end.

// HSUM adds the four doubles of Y0 and Y1 into X0.
#define HSUM \
	VADDPD       Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD       X1, X0, X0 \
	VHADDPD      X0, X0, X0

// func sumAVX(x *float32, n int) float64
//
// Returns the float64 sum of x[0:n].
TEXT ·sumAVX(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ   CX, DX
	SHRQ   $3, DX
	JZ     stail

sloop:
	VCVTPS2PD (SI), Y2
	VCVTPS2PD 16(SI), Y3
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y1, Y1
	ADDQ      $32, SI
	DECQ      DX
	JNZ       sloop

stail:
	HSUM
	ANDQ $7, CX
	JZ   sdone

sone:
	VCVTSS2SD (SI), X2, X2
	VADDSD    X2, X0, X0
	ADDQ      $4, SI
	DECQ      CX
	JNZ       sone

sdone:
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func sumSqDevAVX(x *float32, n int, mu float32) float64
//
// Returns the float64 sum of d*d, d = float64(x[i] - mu) for i < n.
TEXT ·sumSqDevAVX(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS mu+16(FP), Y7
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	MOVQ         CX, DX
	SHRQ         $3, DX
	JZ           qtail

qloop:
	VMOVUPS      (SI), Y2
	VSUBPS       Y7, Y2, Y2
	VCVTPS2PD    X2, Y3
	VEXTRACTF128 $1, Y2, X4
	VCVTPS2PD    X4, Y4
	VMULPD       Y3, Y3, Y3
	VMULPD       Y4, Y4, Y4
	VADDPD       Y3, Y0, Y0
	VADDPD       Y4, Y1, Y1
	ADDQ         $32, SI
	DECQ         DX
	JNZ          qloop

qtail:
	HSUM
	ANDQ $7, CX
	JZ   qdone

qone:
	VMOVSS    (SI), X2
	VSUBSS    X7, X2, X2
	VCVTSS2SD X2, X2, X2
	VMULSD    X2, X2, X2
	VADDSD    X2, X0, X0
	ADDQ      $4, SI
	DECQ      CX
	JNZ       qone

qdone:
	VMOVSD X0, ret+24(FP)
	VZEROUPPER
	RET

// func scaleShiftAVX(y, x *float32, n int, alpha, shift float32)
//
// Computes y[i] = x[i]*alpha + shift for i < n.
TEXT ·scaleShiftAVX(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS alpha+24(FP), Y6
	VBROADCASTSS shift+28(FP), Y7
	MOVQ         CX, DX
	SHRQ         $3, DX
	JZ           atail

aloop:
	VMULPS  (SI), Y6, Y0
	VADDPS  Y7, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    DX
	JNZ     aloop

atail:
	ANDQ $7, CX
	JZ   adone

aone:
	VMOVSS (SI), X0
	VMULSS X6, X0, X0
	VADDSS X7, X0, X0
	VMOVSS X0, (DI)
	ADDQ   $4, SI
	ADDQ   $4, DI
	DECQ   CX
	JNZ    aone

adone:
	VZEROUPPER
	RET

// func bnGradSumsAVX(dy, x *float32, n int, mean, invStd float32) (db, dg float64)
//
// Returns the float64 sums of dy[i] and of dy[i]*(x[i]-mean)*invStd (in
// float32) for i < n.
TEXT ·bnGradSumsAVX(SB), NOSPLIT, $0-48
	MOVQ         dy+0(FP), DX
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS mean+24(FP), Y6
	VBROADCASTSS invStd+28(FP), Y7
	VXORPD       Y0, Y0, Y0 // db
	VXORPD       Y1, Y1, Y1
	VXORPD       Y8, Y8, Y8 // dg
	VXORPD       Y9, Y9, Y9
	MOVQ         CX, BX
	SHRQ         $3, BX
	JZ           gtail

gloop:
	VMOVUPS      (DX), Y2
	VMOVUPS      (SI), Y3
	VSUBPS       Y6, Y3, Y3
	VMULPS       Y3, Y2, Y3
	VMULPS       Y7, Y3, Y3
	VCVTPS2PD    X2, Y4
	VEXTRACTF128 $1, Y2, X5
	VCVTPS2PD    X5, Y5
	VADDPD       Y4, Y0, Y0
	VADDPD       Y5, Y1, Y1
	VCVTPS2PD    X3, Y4
	VEXTRACTF128 $1, Y3, X5
	VCVTPS2PD    X5, Y5
	VADDPD       Y4, Y8, Y8
	VADDPD       Y5, Y9, Y9
	ADDQ         $32, DX
	ADDQ         $32, SI
	DECQ         BX
	JNZ          gloop

gtail:
	HSUM
	VMOVAPD      Y8, Y10
	VADDPD       Y9, Y10, Y10
	VEXTRACTF128 $1, Y10, X11
	VADDPD       X11, X10, X10
	VHADDPD      X10, X10, X10
	ANDQ         $7, CX
	JZ           gdone

gone:
	VMOVSS    (DX), X2
	VMOVSS    (SI), X3
	VSUBSS    X6, X3, X3
	VMULSS    X3, X2, X3
	VMULSS    X7, X3, X3
	VCVTSS2SD X2, X2, X2
	VADDSD    X2, X0, X0
	VCVTSS2SD X3, X3, X3
	VADDSD    X3, X10, X10
	ADDQ      $4, DX
	ADDQ      $4, SI
	DECQ      CX
	JNZ       gone

gdone:
	VMOVSD X0, db+32(FP)
	VMOVSD X10, dg+40(FP)
	VZEROUPPER
	RET

// func bnGradInputAVX(dx, dy, x *float32, n int, mean, invStd, k, m, db, dg float32)
//
// Computes dx[i] = k*(m*dy[i] - db - xhat*dg), xhat = (x[i]-mean)*invStd,
// for i < n.
TEXT ·bnGradInputAVX(SB), NOSPLIT, $0-56
	MOVQ         dx+0(FP), DI
	MOVQ         dy+8(FP), DX
	MOVQ         x+16(FP), SI
	MOVQ         n+24(FP), CX
	VBROADCASTSS mean+32(FP), Y8
	VBROADCASTSS invStd+36(FP), Y9
	VBROADCASTSS k+40(FP), Y10
	VBROADCASTSS m+44(FP), Y11
	VBROADCASTSS db+48(FP), Y12
	VBROADCASTSS dg+52(FP), Y13
	MOVQ         CX, BX
	SHRQ         $3, BX
	JZ           itail

iloop:
	VMOVUPS (SI), Y0
	VSUBPS  Y8, Y0, Y0   // x - mean
	VMULPS  Y9, Y0, Y0   // xhat
	VMULPS  Y13, Y0, Y0  // xhat*dg
	VMULPS  (DX), Y11, Y1 // m*dy
	VSUBPS  Y12, Y1, Y1  // - db
	VSUBPS  Y0, Y1, Y1   // - xhat*dg
	VMULPS  Y1, Y10, Y1  // k*(...)
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    BX
	JNZ     iloop

itail:
	ANDQ $7, CX
	JZ   idone

ione:
	VMOVSS (SI), X0
	VSUBSS X8, X0, X0
	VMULSS X9, X0, X0
	VMULSS X13, X0, X0
	VMOVSS (DX), X1
	VMULSS X1, X11, X1
	VSUBSS X12, X1, X1
	VSUBSS X0, X1, X1
	VMULSS X1, X10, X1
	VMOVSS X1, (DI)
	ADDQ   $4, SI
	ADDQ   $4, DX
	ADDQ   $4, DI
	DECQ   CX
	JNZ    ione

idone:
	VZEROUPPER
	RET
