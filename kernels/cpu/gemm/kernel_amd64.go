//go:build amd64 && !purego

//go:generate go run gen_amd64.go

package gemm

import "golang.org/x/sys/cpu"

// asmKernel is one generated assembly kernel (see gen_amd64.go) computing
// a rows×cols tile.
type asmKernel struct {
	rows, cols int
	fn         func(k int, a, b, c *float32, ldc int, alpha, beta float32)
}

// newAsmKernel wraps a table of generated kernels, indexed [row
// variant][column variant], as a microKernel.
func newAsmKernel(name string, kc, mc int, table [][]asmKernel) *microKernel {
	last := table[len(table)-1]
	mr, nr := last[len(last)-1].rows, last[len(last)-1].cols
	mk := &microKernel{name: name, mr: mr, nr: nr, kc: kc, mc: mc}
	for _, v := range table[0] {
		mk.cols = append(mk.cols, v.cols)
	}
	for _, row := range table {
		mk.rows = append(mk.rows, row[0].rows)
		var fns []kernelFunc
		for _, v := range row {
			rows, cols, fn := v.rows, v.cols, v.fn
			fns = append(fns, func(k int, a, b, c []float32, ldc int, alpha, beta float32) {
				// Bounds of everything the assembly reads or writes.
				_, _, _ = a[mr*k-1], b[nr*k-1], c[(rows-1)*ldc+cols-1]
				fn(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
			})
		}
		mk.fns = append(mk.fns, fns)
	}
	return mk
}

// avx2Kernel is the 6×16 AVX2+FMA micro-kernel family: 12 YMM
// accumulators, two YMM loads of B and six broadcasts of A per k step.
var avx2Kernel = newAsmKernel("avx2-6x16", 256, 144, kernelsAVX2)

// avx512Kernel is the 12×32 AVX-512 micro-kernel family: 24 ZMM
// accumulators, two ZMM loads of B and twelve broadcasts of A per k step.
// On Zen 5, which executes 512-bit FMAs at full width, it runs at twice the
// speed of the AVX2 kernel.
var avx512Kernel = newAsmKernel("avx512-12x32", 384, 144, kernelsAVX512)

// bestKernel returns the fastest micro-kernel the CPU supports.
func bestKernel() *microKernel {
	switch {
	case cpu.X86.HasAVX512F:
		return avx512Kernel
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return avx2Kernel
	}
	return goKernel
}

// supportedKernels returns every micro-kernel this CPU can run, so that
// tests can exercise all of them.
func supportedKernels() []*microKernel {
	ks := []*microKernel{goKernel}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernel)
	}
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	return ks
}
