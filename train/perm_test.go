package train

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPermInto checks permInto against math/rand/v2's Perm from the same
// state, and that both leave the generator in the same state: every length
// up to 70, then around powers of two (where the draws switch between
// masking and multiply-and-reject) and the toy's 20,000.
func TestPermInto(t *testing.T) {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	for k := 7; k <= 15; k++ {
		ns = append(ns, 1<<k-1, 1<<k, 1<<k+1)
	}
	ns = append(ns, 1000, 20000)
	seeds := rand.New(rand.NewPCG(5, 6))
	for s := 0; s < 12; s++ {
		a, b := seeds.Uint64(), seeds.Uint64()
		if s == 0 {
			a, b = 0, 0x73687566 // a trainer's with seed 0
		}
		for _, n := range ns {
			want := rand.NewPCG(a, b)
			wantP := rand.New(want).Perm(n)
			got := newPCG(a, b)
			gotP := make([]int, n)
			for i := range gotP {
				gotP[i] = -1 // overwritten whatever it held
			}
			permInto(gotP, got)
			if !slices.Equal(gotP, wantP) {
				t.Fatalf("seeds %#x, %#x, n %d: permInto gives %v, Perm %v", a, b, n, gotP[:min(n, 10)], wantP[:min(n, 10)])
			}
			if w, g := want.Uint64(), got.Uint64(); w != g {
				t.Fatalf("seeds %#x, %#x, n %d: the generators differ after the permutation (next draws %#x, %#x)", a, b, n, g, w)
			}
		}
	}
}

// TestPermIntoRejects checks permInto's rejected draws, which random seeds
// never reach (about n in 2^64): from states crafted so that the first
// draw's low product with n is 0, just below -n % n (drawn again), at it,
// and just below n and at n (kept).
func TestPermIntoRejects(t *testing.T) {
	for _, n := range []int{3, 5, 6, 7, 12, 100, 1000, 20000, 1<<15 + 1} {
		u := uint64(n)
		s := bits.TrailingZeros64(u)
		step := uint64(1) << s
		thresh := -u % u
		for _, lo := range []uint64{0, thresh - step, (thresh + step - 1) &^ (step - 1), u - step, u} {
			if lo > u {
				continue // no such product when thresh < step
			}
			x := (lo >> s) * oddInverse(u>>s)
			a, b := pcgBefore(x, uint64(n)*0x9e3779b97f4a7c15)
			if got := rand.NewPCG(a, b).Uint64(); got != x || x*u != lo {
				t.Fatalf("n %d: the crafted state draws %#x (low product %#x), want %#x (%#x)", n, got, got*u, x, lo)
			}
			want := rand.NewPCG(a, b)
			wantP := rand.New(want).Perm(n)
			got := newPCG(a, b)
			gotP := make([]int, n)
			permInto(gotP, got)
			if !slices.Equal(gotP, wantP) {
				t.Fatalf("n %d, low product %#x (-n %% n = %#x): permInto gives %v, Perm %v", n, lo, thresh, gotP[:min(n, 10)], wantP[:min(n, 10)])
			}
			if w, g := want.Uint64(), got.Uint64(); w != g {
				t.Fatalf("n %d, low product %#x: the generators differ after the permutation", n, lo)
			}
		}
	}
}

// oddInverse returns the inverse of the odd v modulo 2^64 (Newton's
// iteration, each step doubling the correct low bits from 3).
func oddInverse(v uint64) uint64 {
	inv := v
	for range 5 {
		inv *= 2 - v*inv
	}
	return inv
}

// pcgBefore returns the seeds of a rand.PCG whose next Uint64 is x, with
// the state's low half lo after it: it undoes the DXSM output (each
// xorshift by at least half the width is its own inverse), then the step
// state*mul + inc modulo 2^128.
func pcgBefore(x, lo uint64) (seed1, seed2 uint64) {
	hi := x * oddInverse(lo|1)
	hi ^= hi >> 48
	hi *= oddInverse(pcgCheapMul)
	hi ^= hi >> 32
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	word := func(h, l uint64) *big.Int {
		v := new(big.Int).SetUint64(h)
		return v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(l))
	}
	prev := new(big.Int).Sub(word(hi, lo), word(pcgIncHi, pcgIncLo))
	prev.Mul(prev, new(big.Int).ModInverse(word(pcgMulHi, pcgMulLo), mod)).Mod(prev, mod)
	low := new(big.Int).SetUint64(^uint64(0))
	return new(big.Int).Rsh(prev, 64).Uint64(), new(big.Int).And(prev, low).Uint64()
}
