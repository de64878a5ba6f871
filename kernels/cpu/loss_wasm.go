package cpu

import "fmt"

// dnllRows is the DNLL loss's pass over the rows, dnllRowsGo bit for bit,
// in WebAssembly assembly (loss_wasm.s).
func dnllRows(exps, scores []float32, y []int32, n, c int, lambda float32, grad bool) (float32, int) {
	if n == 0 || c == 0 {
		return dnllRowsGo(exps, scores, y, n, c, lambda, grad)
	}
	_, _, _ = scores[n*c-1], exps[n*c-1], y[n-1]
	g := 0
	if grad {
		g = 1
	}
	sum, correct := dnllRowsWasm(n, c, &scores[0], &exps[0], &y[0], lambda, float32(n), g)
	if correct < 0 {
		panic(fmt.Sprintf("Loss: a label outside [0, %d)", c))
	}
	return sum, correct
}

//go:noescape
func dnllRowsWasm(n, c int, scores, exps *float32, y *int32, lambda, nf float32, grad int) (sum float32, correct int)
