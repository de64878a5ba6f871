package cpu

// sum64Go returns the float64 sum of x, in order.
func sum64Go(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}
