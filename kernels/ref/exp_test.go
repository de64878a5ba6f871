package ref

import (
	"math"
	"math/rand/v2"
	"testing"
)

// expCases returns the arguments the exp tests try: special values, the
// edges of expPoly's range, and 100000 random ones spread over it.
func expCases() []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, math.Copysign(0, -1), 1e-9, -1e-9, 1, -1, 88.7, -103.9, 699.9, -699.9, 700, -700, 709.7, 710, -746, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 100000 {
		xs = append(xs, (2*rng.Float64()-1)*rng.ExpFloat64()*20)
	}
	return xs
}

func sameFloat64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// portableExp is Go's portable math.Exp (math/exp.go's exp and expmulti,
// Copyright The Go Authors, BSD licence), which math.Exp runs where it has
// no assembly: the reference for expPolyTo on every platform, amd64's
// math.Exp being assembly that differs from it in the last bit at times.
func portableExp(x float64) float64 {
	const (
		Ln2Hi = 6.93147180369123816490e-01
		Ln2Lo = 1.90821492927058770002e-10
		Log2e = 1.44269504088896338700e+00

		Overflow  = 7.09782712893383973096e+02
		Underflow = -7.45133219101941108420e+02
		NearZero  = 1.0 / (1 << 28) // 2**-28

		P1 = 1.66666666666666657415e-01  /* 0x3FC55555; 0x55555555 */
		P2 = -2.77777777770155933842e-03 /* 0xBF66C16C; 0x16BEBD93 */
		P3 = 6.61375632143793436117e-05  /* 0x3F11566A; 0xAF25DE2C */
		P4 = -1.65339022054652515390e-06 /* 0xBEBBBD41; 0xC5D26BF1 */
		P5 = 4.13813679705723846039e-08  /* 0x3E663769; 0x72BEA4D0 */
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > Overflow:
		return math.Inf(1)
	case x < Underflow:
		return 0
	case -NearZero < x && x < NearZero:
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(Log2e*x - 0.5)
	case x > 0:
		k = int(Log2e*x + 0.5)
	}
	hi := x - float64(k)*Ln2Hi
	lo := float64(k) * Ln2Lo
	r := hi - lo
	t := r * r
	c := r - t*(P1+t*(P2+t*(P3+t*(P4+t*P5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// polyRange reports whether expPolyTo evaluates e^x itself rather than
// through math.Exp.
func polyRange(x float64) bool { return x > -700 && x < 700 && math.Abs(x) >= 1.0/(1<<28) }

// TestExpPolyTo checks expPolyTo, on every platform, bit for bit against
// Go's portable math.Exp (portableExp; in float32, its rounding) where it
// runs the polynomial, and against math.Exp where it defers to it. (amd64's
// math.Exp is assembly, another algorithm, whose results differ from the
// portable one's in the last bits for some arguments.)
func TestExpPolyTo(t *testing.T) {
	xs := expCases()
	got := make([]float64, len(xs))
	expPolyTo(got, xs)
	for i, x := range xs {
		want := math.Exp(x)
		if polyRange(x) {
			if !sameFloat64(got[i], portableExp(x)) {
				t.Fatalf("expPolyTo(%v) = %v, want %v", x, got[i], portableExp(x))
			}
		} else if !sameFloat64(got[i], want) {
			t.Fatalf("expPolyTo(%v) = %v, want math.Exp's %v", x, got[i], want)
		}
	}
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	got32 := make([]float32, len(xs))
	expPolyTo(got32, x32)
	for i, x := range x32 {
		want := float32(math.Exp(float64(x)))
		if polyRange(float64(x)) {
			want = float32(portableExp(float64(x)))
		}
		if math.Float32bits(got32[i]) != math.Float32bits(want) && !(want != want && got32[i] != got32[i]) {
			t.Fatalf("expPolyTo(float32 %v) = %v, want %v", x, got32[i], want)
		}
	}
}

// TestExp64 checks that exp64, and ExpTo in float32, are math.Exp bit for
// bit, whichever of math.Exp and expPoly they use on this platform.
func TestExp64(t *testing.T) {
	xs := expCases()
	for _, x := range xs {
		if got, want := exp64(x), math.Exp(x); !sameFloat64(got, want) {
			t.Fatalf("exp64(%v) = %v, want %v", x, got, want)
		}
	}
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	e32 := make([]float32, len(xs))
	ExpTo(e32, x32)
	for i, x := range x32 {
		got, want := e32[i], float32(math.Exp(float64(x)))
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("ExpTo(%v) = %v, want %v", x, got, want)
		}
	}
}
