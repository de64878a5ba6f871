package gemm

// SgemmBiasReLU computes C = ReLU(alpha*op(A)*op(B) + bias), a layer's
// forward pass followed by its activation: SgemmBias, then every element x
// of C becomes 0 if x < 0, else x (so -0 and NaN pass through, as
// ref.ReLU), bit for bit. The products small enough to skip packing apply
// the ReLU in their last pass over C. It panics as SgemmBias does.
func SgemmBiasReLU(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, bias, c []float32, ldc int) {
	if bias != nil && len(bias) < n {
		panic("gemm: insufficient length of bias")
	}
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, 0, bias, epilogue{relu: true}, c, ldc)
}

// SgemmMasked computes C = alpha*op(A)*op(B) where Y > 0, else 0: a
// layer's data gradient followed by the backward pass of the ReLU whose
// output is Y (the m×n matrix of row stride ldy, which must not overlap
// C), as ref.ReLUBackward; bit for bit Sgemm with beta = 0 followed by
// that mask. The products small enough to skip packing apply the mask in
// their last pass over C. It panics as Sgemm does, and if ldy < n or y is
// too short.
func SgemmMasked(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, y []float32, ldy int, c []float32, ldc int) {
	switch {
	case ldy < max(1, n):
		panic("gemm: bad ldy")
	case m > 0 && n > 0 && len(y) < (m-1)*ldy+n:
		panic("gemm: insufficient length of y")
	}
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, 0, nil, epilogue{y: y, ldy: ldy}, c, ldc)
}

// epilogue is what a product with beta zero does last to each element x
// of C (after the bias): nothing, a ReLU (x becomes 0 if x < 0), or a mask
// (x becomes 0 unless Y(i, j) > 0, Y being y with row stride ldy). A mask
// never comes with a bias.
type epilogue struct {
	relu bool
	y    []float32
	ldy  int
}

// none reports whether e does nothing.
func (e epilogue) none() bool {
	return !e.relu && e.y == nil
}

// row applies the epilogue to z, the first len(z) elements of row i of C
// (or, with len(z) a multiple of n, the rows from i on of a C and Y of row
// stride n), with ReLU and ReLUBackward.
func (e epilogue) row(i int, z []float32) {
	if e.relu {
		ReLU(z, z)
	}
	if e.y != nil {
		ReLUBackward(z, z, e.y[i*e.ldy:i*e.ldy+len(z)])
	}
}

// rows applies the epilogue to the m×n matrix C: in one call when the rows
// of C (and Y) are contiguous, else row by row.
func (e epilogue) rows(m, n int, c []float32, ldc int) {
	switch {
	case e.none():
	case ldc == n && (e.y == nil || e.ldy == n):
		e.row(0, c[:m*n])
	default:
		for i := 0; i < m; i++ {
			e.row(i, c[i*ldc:i*ldc+n])
		}
	}
}
