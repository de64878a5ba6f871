package gemm

// SgemmBiasReLU computes C = ReLU(alpha*op(A)*op(B) + bias), a layer's
// forward pass followed by its activation: SgemmBias, then every element x
// of C becomes 0 if x < 0, else x (so -0 and NaN pass through, as
// ref.ReLU), bit for bit. It panics as SgemmBias does.
func SgemmBiasReLU(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, bias, c []float32, ldc int) {
	SgemmBias(transA, transB, m, n, k, alpha, a, lda, b, ldb, bias, c, ldc)
	for i := 0; i < m && n > 0; i++ {
		reluRow(c[i*ldc : i*ldc+n])
	}
}

// SgemmMasked computes C = alpha*op(A)*op(B) where Y > 0, else 0: a
// layer's data gradient followed by the backward pass of the ReLU whose
// output is Y (the m×n matrix of row stride ldy, which must not overlap
// C), as ref.ReLUBackward; bit for bit Sgemm with beta = 0 followed by
// that mask. It panics as Sgemm does, and if ldy < n or y is too short.
func SgemmMasked(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, y []float32, ldy int, c []float32, ldc int) {
	checkMask(m, n, y, ldy)
	Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, 0, c, ldc)
	for i := 0; i < m && n > 0; i++ {
		maskRow(c[i*ldc:i*ldc+n], y[i*ldy:i*ldy+n])
	}
}

// checkMask panics if y, with row stride ldy, does not hold an m×n matrix.
func checkMask(m, n int, y []float32, ldy int) {
	switch {
	case ldy < max(1, n):
		panic("gemm: bad ldy")
	case m > 0 && n > 0 && len(y) < (m-1)*ldy+n:
		panic("gemm: insufficient length of y")
	}
}

// reluRow sets every element x of z to 0 if x < 0 (-0 and NaN pass
// through).
func reluRow(z []float32) {
	for j, v := range z {
		if v < 0 {
			z[j] = 0
		}
	}
}

// maskRow sets z[j] to 0 where y[j] > 0 does not hold.
func maskRow(z, y []float32) {
	y = y[:len(z)]
	for j, v := range y {
		if !(v > 0) {
			z[j] = 0
		}
	}
}
