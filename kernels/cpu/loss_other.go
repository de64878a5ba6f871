//go:build !wasm

package cpu

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/ref"
)

// loss computes the loss with ref.Loss.
func loss(dscores, scores []float32, y []int32, n, c int, kind kernels.LossKind, lambda float32) (float32, int) {
	return ref.Loss(dscores, scores, y, n, c, kind, lambda)
}
