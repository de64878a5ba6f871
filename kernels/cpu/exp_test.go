package cpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
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
// math.Exp has no assembly, TestExpPolyToIsMathExp also holds it to
// math.Exp bit for bit.)
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

// TestExpPolyToIsMathExp checks that expPolyTo is math.Exp bit for bit in
// float64 where math.Exp has no assembly (WebAssembly among others: GOOS=js
// GOARCH=wasm go test ./kernels/cpu, as build.sh test runs), which expTo
// relies on there.
func TestExpPolyToIsMathExp(t *testing.T) {
	if expHasAsm {
		t.Skip("math.Exp is assembly on " + runtime.GOARCH + "; expTo uses it")
	}
	xs := expCases()
	got := make([]float64, len(xs))
	expPolyTo(got, xs)
	for i, x := range xs {
		if want := math.Exp(x); !sameFloat64(got[i], want) {
			t.Fatalf("expPolyTo(%v) = %v, want math.Exp's %v", x, got[i], want)
		}
	}
}

// expToCases32 returns float32 arguments for TestExpTo: every 127th
// bit pattern, the 2001 floats around each edge of expPolyTo's range
// (±700, ±2^-28) and of float32's (the largest argument with a finite
// result, the smallest with a normal or nonzero one), zeros, infinities and
// NaNs.
func expToCases32() []float32 {
	var xs []float32
	for b := uint64(0); b < 1<<32; b += 127 {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	for _, edge := range []float32{700, 1.0 / (1 << 28), 88.72284, 87.33655, 103.97208, 0} {
		for _, e := range []float32{edge, -edge} {
			x := e
			for range 1000 {
				x = math.Nextafter32(x, float32(math.Inf(-1)))
			}
			for range 2001 {
				xs = append(xs, x)
				x = math.Nextafter32(x, float32(math.Inf(1)))
			}
		}
	}
	inf := float32(math.Inf(1))
	return append(xs, 0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()), math.Float32frombits(0xffc00001))
}

// TestExpTo checks expTo (WebAssembly assembly in js/wasm) bit for bit
// against math.Exp rounded to float32 on every platform and, where math.Exp
// has no assembly, against expPolyTo: on expToCases32 in one call, and on
// short slices at every offset, mixing arguments that expPolyTo gives to
// math.Exp with the others, in place and not.
func TestExpTo(t *testing.T) {
	check := func(got, xs []float32) {
		t.Helper()
		poly := make([]float32, len(xs))
		expPolyTo(poly, xs)
		for i, x := range xs {
			want := float32(math.Exp(float64(x)))
			if !sameFloat64(float64(got[i]), float64(want)) || (!expHasAsm && !sameFloat64(float64(got[i]), float64(poly[i]))) {
				t.Fatalf("expTo(%v (%#x)) = %v (%#x), want %v (%#x), expPolyTo %v (%#x)", x, math.Float32bits(x), got[i], math.Float32bits(got[i]), want, math.Float32bits(want), poly[i], math.Float32bits(poly[i]))
			}
		}
	}
	xs := expToCases32()
	got := make([]float32, len(xs))
	expTo(got, xs)
	check(got, xs)
	rng := rand.New(rand.NewPCG(3, 4))
	pick := []float32{0, 1e-9, -1e-9, 700, -700, 800, -800, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for n := range 40 {
		for range 20 {
			src := make([]float32, n+3)
			for i := range src {
				if rng.IntN(3) == 0 {
					src[i] = pick[rng.IntN(len(pick))]
				} else {
					src[i] = float32((2*rng.Float64() - 1) * rng.ExpFloat64() * 20)
				}
			}
			for off := range 3 {
				xs := append([]float32(nil), src[off:off+n]...)
				dst := make([]float32, n+1)
				dst[n] = 42
				expTo(dst[:n], xs)
				if dst[n] != 42 {
					t.Fatalf("expTo of %d wrote past the end", n)
				}
				check(dst[:n], xs)
				expTo(xs, xs)
				check(xs, src[off:off+n])
			}
		}
	}
}
