package cpu

import (
	"fmt"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// loss computes ref.Loss, bit for bit; for DNLL, after the exps
// (ref.ExpTo), its pass over the rows is WebAssembly assembly
// (loss_wasm.s).
func loss(dscores, scores []float32, y []int32, n, c int, kind kernels.LossKind, lambda float32) (float32, int) {
	if kind != kernels.DNLL || n == 0 || c == 0 {
		return ref.Loss(dscores, scores, y, n, c, kind, lambda)
	}
	_, _ = scores[n*c-1], y[n-1]
	exps, grad := dscores, 1
	if exps == nil {
		exps, grad = make([]float32, n*c), 0
	}
	ref.ExpTo(exps[:n*c], scores[:n*c])
	sum, correct := dnllRowsWasm(n, c, &scores[0], &exps[0], &y[0], lambda, float32(n), grad)
	if correct < 0 {
		panic(fmt.Sprintf("Loss: a label outside [0, %d)", c))
	}
	return sum, correct
}

//go:noescape
func dnllRowsWasm(n, c int, scores, exps *float32, y *int32, lambda, nf float32, grad int) (sum float32, correct int)
