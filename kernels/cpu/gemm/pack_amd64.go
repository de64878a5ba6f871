//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// asmPacking reports whether the AVX packing routines are used. Tests may
// clear it to exercise the portable packing code.
var asmPacking = cpu.X86.HasAVX

// transpose4x8AVX transposes a 4×8n block; see pack_amd64.s.
//
//go:noescape
func transpose4x8AVX(n int, dst *float32, ldd int, src *float32, lds int)

// copyRows32AVX, copyRows16AVX, copyRows12AVX and copyRows6AVX copy kb
// rows of 32, 16, 12 or 6 floats from stride lds to a dense panel.
//
//go:noescape
func copyRows32AVX(kb int, dst, src *float32, lds int)

//go:noescape
func copyRows16AVX(kb int, dst, src *float32, lds int)

//go:noescape
func copyRows12AVX(kb int, dst, src *float32, lds int)

//go:noescape
func copyRows6AVX(kb int, dst, src *float32, lds int)

// transpose4 transposes four rows of kb values; see transpose4Go.
func transpose4(dst []float32, ldd int, src []float32, lds, kb int) {
	n8 := kb / 8
	if !asmPacking || n8 == 0 {
		transpose4Go(dst, ldd, src, lds, kb)
		return
	}
	// Bounds of everything the assembly touches.
	_, _ = dst[(8*n8-1)*ldd+3], src[3*lds+8*n8-1]
	transpose4x8AVX(n8, &dst[0], ldd, &src[0], lds)
	if done := 8 * n8; done < kb {
		transpose4Go(dst[done*ldd:], ldd, src[done:], lds, kb-done)
	}
}

// copyPanels copies no micro-panel: copyRows is the fast path here (see
// packRowPanels).
func copyPanels(dst, src []float32, lds, w, kb, panels int) int { return 0 }

// copyRows copies kb rows of w floats, src[p*lds:][:w] to dst[p*w:][:w],
// and reports whether it could (only some widths have a fast path).
func copyRows(dst, src []float32, lds, w, kb int) bool {
	if !asmPacking || kb == 0 {
		return false
	}
	var f func(kb int, dst, src *float32, lds int)
	switch w {
	case 32:
		f = copyRows32AVX
	case 16:
		f = copyRows16AVX
	case 12:
		f = copyRows12AVX
	case 6:
		f = copyRows6AVX
	default:
		return false
	}
	_, _ = dst[kb*w-1], src[(kb-1)*lds+w-1]
	f(kb, &dst[0], &src[0], lds)
	return true
}

// colPanels packs nothing: packCols's AVX transposes do it (see
// kernel_other.go).
func colPanels(dst, src []float32, lds, w, kb, panels int) int { return 0 }
