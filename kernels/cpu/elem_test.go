package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deeplda/deeplda/kernels/ref"
)

// specials returns n values drawn from a few normal numbers and the
// special values ref's comparisons must treat the same way: ties, zeros of
// both signs, infinities and NaNs of both signs.
func specials(r *rand.Rand, n int) []float32 {
	nan := math.Float32frombits(0x7fc00001)
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, -0.5, float32(math.Inf(1)), float32(math.Inf(-1)), nan, -nan}
	x := make([]float32, n)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] = float32(r.NormFloat64())
		} else {
			x[i] = vals[r.IntN(len(vals))]
		}
	}
	return x
}

// sameBits reports the first index where got and want differ bit for bit.
func sameBits(got, want []float32) error {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return fmt.Errorf("element %d: got %v (%#x), want %v (%#x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
	return nil
}

// TestElementwiseSpecials checks relu, reluBackward, maxPool2 and
// maxPool2Backward bit for bit against package ref on special values, at
// every length and width around the vector sizes.
func TestElementwiseSpecials(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 200; n++ {
		x, dy := specials(r, n), specials(r, n)
		got, want := make([]float32, n), make([]float32, n)
		relu(got, x)
		ref.ReLU(want, x)
		if err := sameBits(got, want); err != nil {
			t.Fatalf("relu, n %d: %v", n, err)
		}
		reluBackward(got, dy, x)
		ref.ReLUBackward(want, dy, x)
		if err := sameBits(got, want); err != nil {
			t.Fatalf("reluBackward, n %d: %v", n, err)
		}
	}
	for h := 1; h <= 5; h++ {
		for w := 1; w <= 37; w++ {
			const nc = 3
			x := specials(r, nc*h*w)
			dy := specials(r, nc*(h/2)*(w/2))
			got, want := make([]float32, len(dy)), make([]float32, len(dy))
			maxPool2(got, x, nc, h, w)
			ref.MaxPool2(want, x, nc, h, w)
			if err := sameBits(got, want); err != nil {
				t.Fatalf("maxPool2, %dx%d: %v", h, w, err)
			}
			gotDx, wantDx := specials(r, len(x)), make([]float32, len(x))
			maxPool2Backward(gotDx, dy, x, nc, h, w)
			ref.MaxPool2Backward(wantDx, dy, x, nc, h, w)
			if err := sameBits(gotDx, wantDx); err != nil {
				t.Fatalf("maxPool2Backward, %dx%d: %v", h, w, err)
			}
		}
	}
}

// TestBatchNormChannels checks bnTrainChannel and bnBackwardChannel against
// package ref's channel functions. Their float64 sums are added in another
// order, which changes them by far less than a float32 rounding: every
// output must be the same bit for bit.
func TestBatchNormChannels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	normal := func(n int, mean float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(mean + r.NormFloat64())
		}
		return v
	}
	const n, c = 5, 3
	for _, hw := range []int{1, 7, 8, 49, 196, 784} {
		x, dy := normal(n*c*hw, 0.5), normal(n*c*hw, 0)
		gamma, beta := normal(c, 1), normal(c, 0)
		type out struct{ y, mean, invStd, runMean, runVar, dx, dgamma, dbeta []float32 }
		run := func(train func(y, mean, invStd, x, gamma, beta, runMean, runVar []float32, n, c, hw, ch int, momentum, eps float32),
			back func(dx, dgamma, dbeta, dy, x, gamma, mean, invStd []float32, n, c, hw, ch int)) out {
			o := out{make([]float32, len(x)), make([]float32, c), make([]float32, c), []float32{0.1, 0.2, 0.3}, []float32{1, 2, 3},
				make([]float32, len(x)), make([]float32, c), make([]float32, c)}
			for ch := 0; ch < c; ch++ {
				train(o.y, o.mean, o.invStd, x, gamma, beta, o.runMean, o.runVar, n, c, hw, ch, 0.1, 1e-5)
				back(o.dx, o.dgamma, o.dbeta, dy, x, gamma, o.mean, o.invStd, n, c, hw, ch)
			}
			return o
		}
		got := run(bnTrainChannel, bnBackwardChannel)
		want := run(ref.BatchNormTrainChannel[float32], ref.BatchNormBackwardChannel[float32])
		for _, v := range []struct {
			name      string
			got, want []float32
		}{{"y", got.y, want.y}, {"mean", got.mean, want.mean}, {"invStd", got.invStd, want.invStd},
			{"runMean", got.runMean, want.runMean}, {"runVar", got.runVar, want.runVar},
			{"dx", got.dx, want.dx}, {"dgamma", got.dgamma, want.dgamma}, {"dbeta", got.dbeta, want.dbeta}} {
			if err := sameBits(v.got, v.want); err != nil {
				t.Errorf("hw %d, %s: %v", hw, v.name, err)
			}
		}
	}
}

// TestGatherRows checks gatherRows against gatherRowsGo for every row
// width up to 40, and that it writes at most 7 floats past rows*w.
func TestGatherRows(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for rows := 1; rows <= 4; rows++ {
		for w := 1; w <= 40; w++ {
			for _, extra := range []int{0, 1, 9} {
				stride := w + extra
				src := specials(r, (rows-1)*stride+w+7)
				got, want := make([]float32, rows*w+16), make([]float32, rows*w+16)
				for i := range got {
					got[i], want[i] = -7, -7
				}
				gatherRows(got, src, rows, w, stride)
				gatherRowsGo(want, src, rows, w, stride)
				if err := sameBits(got[:rows*w], want[:rows*w]); err != nil {
					t.Fatalf("%d rows of %d, stride %d: %v", rows, w, stride, err)
				}
				if err := sameBits(got[rows*w+7:], want[rows*w+7:]); err != nil {
					t.Fatalf("%d rows of %d, stride %d, past the end: %v", rows, w, stride, err)
				}
			}
		}
	}
}
