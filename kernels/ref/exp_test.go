package ref

import (
	"math"
	"math/big"
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

// bigExp returns e^x rounded to float64, from a 160-bit evaluation with
// math/big: x = k ln2 + r with |r| <= ln2/2, e^r by its Taylor series, ln 2
// by the series sum 1/(n 2^n). It is slow and independent of math.Exp.
func bigExp(x float64) float64 {
	const prec = 160
	f := func() *big.Float { return new(big.Float).SetPrec(prec) }
	ln2, term, half := f(), f(), f().SetFloat64(0.5)
	pow := f().SetFloat64(1)
	for n := int64(1); n <= prec+20; n++ {
		pow.Mul(pow, half)
		ln2.Add(ln2, term.Quo(pow, f().SetInt64(n)))
	}
	k := math.Round(x / math.Ln2)
	r := f().SetFloat64(x)
	r.Sub(r, f().Mul(ln2, f().SetFloat64(k)))
	sum, t := f().SetFloat64(1), f().SetFloat64(1)
	for n := int64(1); n < 60; n++ {
		t.Mul(t, r)
		t.Quo(t, f().SetInt64(n))
		sum.Add(sum, t)
	}
	y, _ := sum.SetMantExp(sum, int(k)).Float64()
	return y
}

// ulps returns |a-b| in units of the last place of b.
func ulps(a, b float64) float64 {
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// polyRange reports whether expPolyTo evaluates e^x itself rather than
// through math.Exp.
func polyRange(x float64) bool { return x > -700 && x < 700 && math.Abs(x) >= 1.0/(1<<28) }

// TestExpPolyTo checks expPolyTo on every platform: within one unit in the
// last place of e^x (bigExp) where it runs its polynomial, in float64 and
// rounded to float32, and math.Exp bit for bit where it defers to it. (Where
// math.Exp has no assembly, TestExp64 also holds it to math.Exp bit for
// bit: GOOS=js GOARCH=wasm go test ./kernels/ref, as build.sh test runs.)
func TestExpPolyTo(t *testing.T) {
	xs := expCases()
	got := make([]float64, len(xs))
	expPolyTo(got, xs)
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	got32 := make([]float32, len(xs))
	expPolyTo(got32, x32)
	for i, x := range xs {
		if !polyRange(x) {
			if want := math.Exp(x); !sameFloat64(got[i], want) {
				t.Fatalf("expPolyTo(%v) = %v, want math.Exp's %v", x, got[i], want)
			}
			continue
		}
		if i%5 != 0 && i > 20 {
			continue // bigExp is slow: every fifth random argument
		}
		if want := bigExp(x); ulps(got[i], want) > 1 {
			t.Fatalf("expPolyTo(%v) = %v, e^x = %v: %.2f ulp off", x, got[i], want, ulps(got[i], want))
		}
		x := float64(x32[i])
		if !polyRange(x) {
			continue
		}
		want := float32(bigExp(x))
		if d := math.Abs(float64(got32[i]-want)) / float64(math.Nextafter32(want, float32(math.Inf(1)))-want); d > 1 {
			t.Fatalf("expPolyTo(float32 %v) = %v, e^x = %v: %.2f ulp off", x, got32[i], want, d)
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
