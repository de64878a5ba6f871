package gemm

// ReLU sets y[i] to 0 if x[i] < 0, else to x[i], for i < len(x) (so -0 and
// NaN pass through): the element rule of SgemmBiasReLU's epilogue, bit for
// bit ref.ReLU. y may be x. On amd64 with AVX it runs without branches,
// eight floats at a time (reluVec), then the rest one by one.
func ReLU(y, x []float32) {
	y = y[:len(x)]
	for i := reluVec(y, x); i < len(x); i++ {
		v := x[i]
		if v < 0 {
			v = 0
		}
		y[i] = v
	}
}

// ReLUBackward sets dx[i] to dy[i] if y[i] > 0, else to 0 (also for NaN),
// for i < len(y): the element rule of SgemmMasked's epilogue (with dx and
// dy both C), bit for bit ref.ReLUBackward. dx may be dy. On amd64 with
// AVX it runs without branches, eight floats at a time
// (reluBackwardVec), then the rest one by one.
func ReLUBackward(dx, dy, y []float32) {
	dx, dy = dx[:len(y)], dy[:len(y)]
	for i := reluBackwardVec(dx, dy, y); i < len(y); i++ {
		if y[i] > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}
