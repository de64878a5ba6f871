// Package fmapeak measures the peak rate of one core of this machine in
// 128-bit fused multiply-adds of float32 (four lanes, two floating-point
// operations each): the ceiling of WebAssembly SIMD's f32x4.relaxed_madd,
// which the browser's CPU backend computes its products with, against
// which the benchmarks state their figures.
package fmapeak

import "time"

// chains is how many independent multiply-add chains the loop keeps in
// flight: enough to cover the latency of two FMA units (4 cycles each).
const chains = 10

// FLOPsPerIteration is the work of one iteration of the loop: chains
// four-lane multiply-adds.
const FLOPsPerIteration = chains * 4 * 2

// PerCore returns the rate, in FLOP/s, of 128-bit multiply-adds on the
// calling goroutine's core, the best of 25 timed runs of about 20 ms
// each (other work on the core lowers some of them), or false where the machine has no such instruction that this
// package runs (not amd64, or no FMA).
func PerCore() (float64, bool) {
	if !available() {
		return 0, false
	}
	const n = 1 << 22
	best := 0.0
	for range 25 {
		start := time.Now()
		loop(n)
		best = max(best, n*FLOPsPerIteration/time.Since(start).Seconds())
	}
	return best, true
}
