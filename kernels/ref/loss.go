package ref

import "github.com/deeplda/deeplda/kernels"

// Loss returns the sum over the n rows of scores[n,c] of the loss for labels
// y and the number of rows whose first argmax is the label; when dscores is
// not nil it receives the gradient of the mean loss.
func Loss[T Float](dscores, scores []T, y []int32, n, c int, kind kernels.LossKind, lambda T) (sum T, correct int) {
	need("Loss", scores, n*c)
	for i := 0; i < n; i++ {
		row := scores[i*c : (i+1)*c]
		label := int(y[i])
		var drow []T
		if dscores != nil {
			drow = dscores[i*c : (i+1)*c]
		}
		if argmax(row) == label {
			correct++
		}
		var l T
		switch kind {
		case kernels.NLL:
			// -delta_y; gradient -1/n at the label.
			l = -row[label]
			if drow != nil {
				clear(drow)
				drow[label] = -1 / T(n)
			}
		case kernels.CE:
			// -log softmax(delta)_y; gradient (softmax - onehot)/n.
			ls := LogSoftmax(row)
			l = -ls[label]
			if drow != nil {
				for k, v := range ls {
					drow[k] = exp(v)
				}
				drow[label]--
				for k := range drow {
					drow[k] /= T(n)
				}
			}
		case kernels.DNLL:
			// -delta_y + lambda sum_k e^delta_k; gradient
			// (lambda e^delta_k - [k = y])/n.
			var s T
			for _, v := range row {
				s += exp(v)
			}
			l = -row[label] + lambda*s
			if drow != nil {
				for k, v := range row {
					drow[k] = lambda * exp(v) / T(n)
				}
				drow[label] = (lambda*exp(row[label]) - 1) / T(n)
			}
		}
		sum += l
	}
	return sum, correct
}

// argmax returns the index of the first maximum of row.
func argmax[T Float](row []T) int {
	best := 0
	for k, v := range row {
		if v > row[best] {
			best = k
		}
	}
	return best
}
