//go:build !wasm

package cpu

// dnllRows is the DNLL loss's pass over the rows (dnllRowsGo).
func dnllRows(exps, scores []float32, y []int32, n, c int, lambda float32, grad bool) (float32, int) {
	return dnllRowsGo(exps, scores, y, n, c, lambda, grad)
}
