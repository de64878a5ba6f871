package ref

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExp64 checks that exp64, and expTo in float32, are math.Exp bit for
// bit. That holds by definition where math.Exp is assembly; elsewhere
// (WebAssembly: run GOOS=js GOARCH=wasm go test) it tests the inlined
// polynomial.
func TestExp64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, math.Copysign(0, -1), 1e-9, -1e-9, 1, -1, 88.7, -103.9, 699.9, -699.9, 700, -700, 709.7, 710, -746, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 100000 {
		xs = append(xs, (2*rng.Float64()-1)*rng.ExpFloat64()*20)
	}
	for _, x := range xs {
		got, want := exp64(x), math.Exp(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("exp64(%v) = %v, want %v", x, got, want)
		}
	}
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	e32 := make([]float32, len(xs))
	expTo(e32, x32)
	for i, x := range x32 {
		got, want := e32[i], float32(math.Exp(float64(x)))
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("expTo(%v) = %v, want %v", x, got, want)
		}
	}
}
