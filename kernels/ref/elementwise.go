package ref

// ReLU computes y = max(x, 0): 0 where x is negative, else x (NaN stays
// NaN).
func ReLU[T Float](y, x []T) {
	for i, v := range x {
		if v < 0 {
			v = 0
		}
		y[i] = v
	}
}

// ReLUBackward computes dx = dy where y > 0, else 0.
func ReLUBackward[T Float](dx, dy, y []T) {
	for i, v := range y {
		if v > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}
