//go:build amd64 && !purego

#include "textflag.h"

// POOLLOAD loads 8 windows (16 floats of each row) and deinterleaves them:
// A, B, C, D (Y4..Y7) hold the window elements (0,0), (0,1), (1,0) and
// (1,1), in the window order 0 1 4 5 | 2 3 6 7 that VSHUFPS leaves. LOADA
// and LOADB load the first and second 8 floats of a row.
#define POOLLOAD(LOADA, LOADB) \
	LOADA(SI, Y0)             \
	LOADB(SI, Y1)             \
	LOADA(DX, Y2)             \
	LOADB(DX, Y3)             \
	VSHUFPS $0x88, Y1, Y0, Y4 \
	VSHUFPS $0xdd, Y1, Y0, Y5 \
	VSHUFPS $0x88, Y3, Y2, Y6 \
	VSHUFPS $0xdd, Y3, Y2, Y7

// POOLMAX sets Y8 to the first maximum under > of A, B, C, D, and Y9, Y10,
// Y11 to the masks of the steps where B, C and D replaced it.
#define POOLMAX \
	VCMPPS    $0x11, Y5, Y4, Y9   \
	VBLENDVPS Y9, Y5, Y4, Y8      \
	VCMPPS    $0x11, Y6, Y8, Y10  \
	VBLENDVPS Y10, Y6, Y8, Y8     \
	VCMPPS    $0x11, Y7, Y8, Y11  \
	VBLENDVPS Y11, Y7, Y8, Y8

#define LOADA(R, Y) VMOVUPS (R), Y
#define LOADB(R, Y) VMOVUPS 32(R), Y
#define MLOADA(R, Y) VMASKMOVPS (R), Y13, Y
#define MLOADB(R, Y) VMASKMOVPS 32(R), Y14, Y

// func maxPool2AVX(rows, wo int, y, x *float32, w int, tail *[24]int32)
//
// Computes rows output rows of wo values of the 2x2 max pool: y[i*wo+j] is
// the first maximum (ref's argmax2 order) of the window at rows 2i, 2i+1
// and columns 2j, 2j+1 of x (row stride w floats). Eight windows per
// iteration; the last wo%8 use the masks in tail (those of the first and
// second 8 input floats, then of the output floats).
TEXT ·maxPool2AVX(SB), NOSPLIT, $0-48
	MOVQ    rows+0(FP), R8
	MOVQ    wo+8(FP), R9
	MOVQ    y+16(FP), DI
	MOVQ    x+24(FP), SI
	MOVQ    w+32(FP), R10
	MOVQ    tail+40(FP), AX
	VMOVDQU (AX), Y13
	VMOVDQU 32(AX), Y14
	VMOVDQU 64(AX), Y15
	SHLQ    $2, R10        // w in bytes
	MOVQ    R9, R11
	ANDQ    $7, R11        // windows in the masked tail
	SHRQ    $3, R9         // full blocks
	TESTQ   R8, R8
	JZ      pdone

prow:
	MOVQ SI, R12           // start of this row pair
	LEAQ (SI)(R10*1), DX
	MOVQ R9, CX
	TESTQ CX, CX
	JZ   ptail

pblock:
	POOLLOAD(LOADA, LOADB)
	POOLMAX
	VPERMPD $0xd8, Y8, Y8  // window order 0..7
	VMOVUPS Y8, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     pblock

ptail:
	TESTQ R11, R11
	JZ    pnext
	POOLLOAD(MLOADA, MLOADB)
	POOLMAX
	VPERMPD    $0xd8, Y8, Y8
	VMASKMOVPS Y8, Y15, (DI)
	LEAQ       (DI)(R11*4), DI

pnext:
	LEAQ (R12)(R10*2), SI  // next row pair
	DECQ R8
	JNZ  prow

pdone:
	VZEROUPPER
	RET

// POOLSCATTER writes the two rows of 8 windows from g (Y12, in window order
// 0 1 4 5 | 2 3 6 7): each window's first maximum (the masks of POOLMAX)
// gets its g + 0 (as ref's 0 += g, which turns -0 into +0), the other three
// elements 0. STOREA and STOREB store the first and second 8 floats of a
// row.
#define POOLSCATTER(STOREA, STOREB) \
	VXORPS    Y0, Y0, Y0         \
	VADDPS    Y0, Y12, Y12       \
	VANDPS    Y11, Y12, Y3       \
	VANDNPS   Y12, Y11, Y12      \
	VANDPS    Y10, Y12, Y2       \
	VANDNPS   Y12, Y10, Y12      \
	VANDPS    Y9, Y12, Y1        \
	VANDNPS   Y12, Y9, Y0        \
	VUNPCKLPS Y1, Y0, Y4         \
	VUNPCKHPS Y1, Y0, Y5         \
	VUNPCKLPS Y3, Y2, Y6         \
	VUNPCKHPS Y3, Y2, Y7         \
	STOREA(Y4, DI)               \
	STOREB(Y5, DI)               \
	STOREA(Y6, BX)               \
	STOREB(Y7, BX)

#define STOREA(Y, R) VMOVUPS Y, (R)
#define STOREB(Y, R) VMOVUPS Y, 32(R)
#define MSTOREA(Y, R) VMASKMOVPS Y, Y13, (R)
#define MSTOREB(Y, R) VMASKMOVPS Y, Y14, 32(R)

// func maxPool2BackwardAVX(rows, wo int, dx, dy, x *float32, w int, tail *[24]int32)
//
// For the windows of maxPool2AVX, writes dy[i*wo+j] to the element of dx
// (row stride w) at the window's first maximum and zeros to its other three
// elements.
TEXT ·maxPool2BackwardAVX(SB), NOSPLIT, $0-56
	MOVQ    rows+0(FP), R8
	MOVQ    wo+8(FP), R9
	MOVQ    dx+16(FP), DI
	MOVQ    dy+24(FP), R13
	MOVQ    x+32(FP), SI
	MOVQ    w+40(FP), R10
	MOVQ    tail+48(FP), AX
	VMOVDQU (AX), Y13
	VMOVDQU 32(AX), Y14
	VMOVDQU 64(AX), Y15
	SHLQ    $2, R10
	MOVQ    R9, R11
	ANDQ    $7, R11
	SHRQ    $3, R9
	TESTQ   R8, R8
	JZ      bpdone

bprow:
	MOVQ SI, R12
	MOVQ DI, AX
	LEAQ (SI)(R10*1), DX
	LEAQ (DI)(R10*1), BX
	MOVQ R9, CX
	TESTQ CX, CX
	JZ   bptail

bpblock:
	POOLLOAD(LOADA, LOADB)
	POOLMAX
	VPERMPD $0xd8, (R13), Y12 // dy in window order 0 1 4 5 | 2 3 6 7
	POOLSCATTER(STOREA, STOREB)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, DI
	ADDQ    $64, BX
	ADDQ    $32, R13
	DECQ    CX
	JNZ     bpblock

bptail:
	TESTQ R11, R11
	JZ    bpnext
	POOLLOAD(MLOADA, MLOADB)
	POOLMAX
	VMASKMOVPS (R13), Y15, Y12
	VPERMPD    $0xd8, Y12, Y12
	POOLSCATTER(MSTOREA, MSTOREB)
	LEAQ       (R13)(R11*4), R13

bpnext:
	LEAQ (R12)(R10*2), SI
	LEAQ (AX)(R10*2), DI
	DECQ R8
	JNZ  bprow

bpdone:
	VZEROUPPER
	RET

// func gatherRowsAVX(rows, w int, dst, src *float32, stride int)
//
// Copies rows rows of w floats, src[r*stride:][:w], to the contiguous
// dst[r*w:][:w] in whole vectors of eight floats: it reads and writes up
// to 7 floats past the end of each row (each row of dst overwrites what
// the one before wrote past its end).
TEXT ·gatherRowsAVX(SB), NOSPLIT, $0-40
	MOVQ  rows+0(FP), R8
	MOVQ  w+8(FP), R9
	MOVQ  dst+16(FP), DI
	MOVQ  src+24(FP), SI
	MOVQ  stride+32(FP), R10
	SHLQ  $2, R10          // stride in bytes
	LEAQ  7(R9), R11
	SHRQ  $3, R11          // vectors per row
	SHLQ  $2, R9           // w in bytes
	TESTQ R8, R8
	JZ    gdone

grow:
	MOVQ SI, BX
	MOVQ DI, DX
	MOVQ R11, CX

gvec:
	VMOVUPS (BX), Y0
	VMOVUPS Y0, (DX)
	ADDQ    $32, BX
	ADDQ    $32, DX
	DECQ    CX
	JNZ     gvec
	ADDQ    R10, SI
	ADDQ    R9, DI
	DECQ    R8
	JNZ     grow

gdone:
	VZEROUPPER
	RET
