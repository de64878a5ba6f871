package ref

import (
	"math"

	"github.com/deeplda/deeplda/kernels"
)

// Adam applies one Adam step (PyTorch's formulation) to param in place.
func Adam[T Float](param, grad, m, v []T, p kernels.AdamParams) {
	b1, b2 := p.Beta1, p.Beta2
	bc1 := 1 - math.Pow(b1, float64(p.Step))
	bc2 := 1 - math.Pow(b2, float64(p.Step))
	stepSize := T(p.LR / bc1)
	sqrtBC2 := T(math.Sqrt(bc2))
	for i := range param {
		g := grad[i]
		m[i] = T(b1)*m[i] + T(1-b1)*g
		v[i] = T(b2)*v[i] + T(1-b2)*g*g
		param[i] -= stepSize * m[i] / (sqrt(v[i])/sqrtBC2 + T(p.Eps))
	}
}
