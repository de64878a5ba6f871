package cpu

import (
	"math"

	"github.com/deeplda/deeplda/kernels/ref"
)

// expPolyTo sets dst[i] = e^src[i] for every element of src, computed in
// float64 with the algorithm of Go's portable math.Exp (math/exp.go:
// reduction by k·ln2 in two parts, the degree-5 polynomial, scaling by
// 2^k), with the polynomial inline and the scaling, exact for a normal
// result, a multiplication instead of math.Ldexp; NaNs, infinities and
// arguments near zero or beyond ±700 go to math.Exp. Where math.Exp has no
// assembly (WebAssembly among others) that is math.Exp bit for bit, without
// its three calls (exp, expmulti, Ldexp), each costly in WebAssembly, where
// the DNLL loss's exps took a tenth of a toy training step. Where math.Exp
// is assembly (amd64, arm64, ...) it is not used, and may differ from
// math.Exp in the last bit; it is compiled everywhere so that its test
// runs everywhere.
func expPolyTo[T ref.Float](dst, src []T) {
	const (
		ln2Hi    = 6.93147180369123816490e-01
		ln2Lo    = 1.90821492927058770002e-10
		log2e    = 1.44269504088896338700e+00
		nearZero = 1.0 / (1 << 28)

		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	dst = dst[:len(src)]
	for i, v := range src {
		x := float64(v)
		if !(x > -700 && x < 700) || (-nearZero < x && x < nearZero) {
			dst[i] = T(math.Exp(x))
			continue
		}
		var k int
		if x < 0 {
			k = int(log2e*x - 0.5)
		} else {
			k = int(log2e*x + 0.5)
		}
		hi := x - float64(k)*ln2Hi
		lo := float64(k) * ln2Lo
		r := hi - lo
		t := r * r
		c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
		y := 1 - ((lo - (r*c)/(2-c)) - hi)
		dst[i] = T(y * math.Float64frombits(uint64(k+1023)<<52))
	}
}
