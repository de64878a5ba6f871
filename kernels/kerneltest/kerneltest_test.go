package kerneltest

import (
	"math"
	"strings"
	"testing"
)

func TestMismatch(t *testing.T) {
	tol := Tolerance{RTol: 1e-4, ATol: 1e-5}
	want := []float64{100, -2, 0, 1e-3, math.Inf(1)}
	// The bound of each element is 1e-3 + 1e-4*|want|.
	ok := []float32{100.0109, -2.0011, 0.00099, 0.0019, float32(math.Inf(1))}
	if msg := tol.Mismatch([]int{5}, ok, want); msg != "" {
		t.Errorf("Mismatch of values within the tolerance: %s", msg)
	}
	bad := []float32{100.0115, -2, -0.0011, 0.001, float32(math.NaN())}
	msg := tol.Mismatch([]int{5}, bad, want)
	if !strings.HasPrefix(msg, "3 of 5 values off") || !strings.Contains(msg, "worst [4]") {
		t.Errorf("Mismatch = %q, want 3 failures with the NaN the worst", msg)
	}
	msg = tol.Mismatch([]int{2, 3}, []float32{0, 0, 0, 0, 5, 0}, make([]float64, 6))
	if !strings.Contains(msg, "worst [1,1] (flat 4) = 5") {
		t.Errorf("Mismatch = %q, want the worst element at [1,1]", msg)
	}
	if msg := tol.Mismatch([]int{2}, []float32{1}, []float64{1, 2}); msg == "" {
		t.Error("Mismatch accepted values of the wrong length")
	}
	// extra widens the bound of its element only: -0.0011 and 0.0011 are
	// off by 0.0011 against a bound of 0.001 (ATol times 100).
	if msg := tol.MismatchWithin([]int{3}, []float32{100, -0.0011, 0.0011}, []float64{100, 0, 0}, []float64{0, 2e-4, 0}); !strings.HasPrefix(msg, "1 of 3 values off") || !strings.Contains(msg, "worst [2]") {
		t.Errorf("MismatchWithin = %q, want element 2 alone off", msg)
	}
}

func TestExactMismatch(t *testing.T) {
	nan := float32(math.NaN())
	if msg := ExactMismatch([]int{3}, []float32{0, nan, 2}, []float32{float32(math.Copysign(0, -1)), nan, 2}); msg != "" {
		t.Errorf("exactMismatch of equal values: %s", msg)
	}
	if msg := ExactMismatch([]int{3}, []float32{0, 1, 2}, []float32{0, 1, 2.0000002}); msg == "" {
		t.Error("exactMismatch accepted values that differ by one ulp")
	}
}
