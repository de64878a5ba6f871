package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// predictions draws n predictions whose confidence is uniform on [0.5, 1]
// and correct with probability conf^2 (over-confident), from seed.
func predictions(n int, seed uint64) ([]float64, []bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	conf, correct := make([]float64, n), make([]bool, n)
	for i := range conf {
		conf[i] = 0.5 + 0.5*rng.Float64()
		correct[i] = rng.Float64() < conf[i]*conf[i]
	}
	return conf, correct
}

// TestBootstrapOneResample checks a single resample against ECE and the
// accuracy computed on the same draws by the plain functions.
func TestBootstrapOneResample(t *testing.T) {
	conf, correct := predictions(1000, 7)
	conf[3] = 0 // in no bin, still counted in n
	for _, seed := range []uint64{1, 2, 3} {
		rng := bootstrapRNG(seed)
		c, k := make([]float64, len(conf)), make([]bool, len(conf))
		right := 0
		for j := range c {
			i := draw(rng, len(conf))
			c[j], k[j] = conf[i], correct[i]
			if k[j] {
				right++
			}
		}
		acc, ece := Bootstrap(conf, correct, 10, 1, 0.95, seed)
		wantAcc, wantECE := float64(right)/float64(len(c)), ECE(c, k, 10)
		if acc.Lo != wantAcc || acc.Hi != wantAcc {
			t.Errorf("seed %d: accuracy %v, want [%v, %v]", seed, acc, wantAcc, wantAcc)
		}
		if math.Abs(ece.Lo-wantECE) > 1e-12 || math.Abs(ece.Hi-wantECE) > 1e-12 {
			t.Errorf("seed %d: ECE %v, want [%v, %v]", seed, ece, wantECE, wantECE)
		}
	}
}

// TestBootstrapCoverage checks the intervals against the normal
// approximation of a proportion's and their place around the estimates,
// and that the same seed gives the same intervals.
func TestBootstrapCoverage(t *testing.T) {
	conf, correct := predictions(10000, 11)
	acc, ece := Bootstrap(conf, correct, 10, 1000, 0.95, 1)
	right := 0
	for _, ok := range correct {
		if ok {
			right++
		}
	}
	p := float64(right) / float64(len(correct))
	half := 1.96 * math.Sqrt(p*(1-p)/float64(len(correct)))
	if w := (acc.Hi - acc.Lo) / 2; math.Abs(w-half) > 0.15*half {
		t.Errorf("accuracy interval %v: half-width %.5f, normal approximation %.5f", acc, w, half)
	}
	if !(acc.Lo < p && p < acc.Hi) {
		t.Errorf("accuracy interval %v does not hold the accuracy %v", acc, p)
	}
	e := ECE(conf, correct, 10)
	if !(ece.Lo < e && e < ece.Hi) || ece.Hi-ece.Lo > 0.05 {
		t.Errorf("ECE interval %v around ECE %v", ece, e)
	}
	acc2, ece2 := Bootstrap(conf, correct, 10, 1000, 0.95, 1)
	if acc2 != acc || ece2 != ece {
		t.Errorf("same seed: %v %v, then %v %v", acc, ece, acc2, ece2)
	}
	acc3, _ := Bootstrap(conf, correct, 10, 1000, 0.95, 2)
	if acc3 == acc {
		t.Errorf("seeds 1 and 2 gave the same accuracy interval %v", acc)
	}
}

// TestBootstrapCertain checks predictions that are all right with
// confidence 1: no spread.
func TestBootstrapCertain(t *testing.T) {
	conf, correct := []float64{1, 1, 1}, []bool{true, true, true}
	acc, ece := Bootstrap(conf, correct, 10, 50, 0.95, 1)
	if acc != (Interval{1, 1}) || ece != (Interval{0, 0}) {
		t.Errorf("accuracy %v, ECE %v; want [1, 1] and [0, 0]", acc, ece)
	}
	if acc, ece := Bootstrap(nil, nil, 10, 50, 0.95, 1); acc != (Interval{}) || ece != (Interval{}) {
		t.Errorf("no predictions: %v %v", acc, ece)
	}
}
