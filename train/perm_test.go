package train

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPermInto checks permInto against math/rand/v2's Perm from the same
// state, and that both leave the source in the same state.
func TestPermInto(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 64, 100, 1000, 20000} {
			a, b := rand.NewPCG(seed, 0x73687566), rand.NewPCG(seed, 0x73687566)
			want := rand.New(a).Perm(n)
			got := make([]int, n)
			for i := range got {
				got[i] = -1 // overwritten whatever it held
			}
			permInto(got, b)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, n %d: permInto gives %v, Perm %v", seed, n, got[:min(n, 10)], want[:min(n, 10)])
			}
			if a.Uint64() != b.Uint64() {
				t.Fatalf("seed %d, n %d: the sources differ after the permutation", seed, n)
			}
		}
	}
}
