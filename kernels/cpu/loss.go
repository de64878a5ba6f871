package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// loss computes ref.Loss, bit for bit: NLL and CE with ref.Loss, DNLL with
// the exps in one loop (expTo, into dscores when there) and then a pass
// over the rows (dnllRows).
func loss(dscores, scores []float32, y []int32, n, c int, kind kernels.LossKind, lambda float32) (float32, int) {
	if kind != kernels.DNLL {
		return ref.Loss(dscores, scores, y, n, c, kind, lambda)
	}
	exps := dscores
	if exps == nil {
		exps = make([]float32, n*c)
	}
	expTo(exps[:n*c], scores[:n*c])
	return dnllRows(exps, scores, y, n, c, lambda, dscores != nil)
}

// dnllRowsGo is the DNLL loss's pass over the rows, -score_label + lambda
// sum_k e^score_k, given the exps: row by row, the argmax, the sum of the
// exps and, with grad, the gradient (lambda e^score_k - [k = label]) / n
// in the exps' place, with no branch in the loop over the classes
// (branches cost in WebAssembly).
func dnllRowsGo(exps, scores []float32, y []int32, n, c int, lambda float32, grad bool) (sum float32, correct int) {
	nf := float32(n)
	for i := 0; i < n; i++ {
		row := scores[i*c : (i+1)*c]
		erow := exps[i*c : (i+1)*c]
		label := int(y[i])
		el := erow[label]
		var s float32
		if grad {
			for k, e := range erow {
				s += e
				erow[k] = lambda * e / nf
			}
			erow[label] = (lambda*el - 1) / nf
		} else {
			for _, e := range erow {
				s += e
			}
		}
		if argmax(row) == label {
			correct++
		}
		sum += -row[label] + lambda*s
	}
	return sum, correct
}

// argmax returns the index of the first maximum of row.
func argmax(row []float32) int {
	best := 0
	for k, v := range row {
		if v > row[best] {
			best = k
		}
	}
	return best
}
