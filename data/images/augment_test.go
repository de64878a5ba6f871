package images

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// padCrop is the reference crop: pad the [c,h,w] image x with pad values
// fill[c] on each side, then take the h x w window at (top, left), as
// torchvision's RandomCrop(padding=pad).
func padCrop(x []float32, c, h, w, pad, top, left int, fill []float32) []float32 {
	ph, pw := h+2*pad, w+2*pad
	padded := make([]float32, c*ph*pw)
	for ch := range c {
		for i := range ph * pw {
			padded[ch*ph*pw+i] = fill[ch]
		}
		for y := range h {
			copy(padded[ch*ph*pw+(y+pad)*pw+pad:], x[ch*h*w+y*w:ch*h*w+(y+1)*w])
		}
	}
	out := make([]float32, c*h*w)
	for ch := range c {
		for y := range h {
			copy(out[ch*h*w+y*w:ch*h*w+(y+1)*w], padded[ch*ph*pw+(y+top)*pw+left:])
		}
	}
	return out
}

// flipped returns x mirrored left to right.
func flipped(x []float32, c, h, w int) []float32 {
	out := make([]float32, len(x))
	for r := range c * h {
		for i := range w {
			out[r*w+i] = x[r*w+w-1-i]
		}
	}
	return out
}

func TestShiftMatchesPadCrop(t *testing.T) {
	c, h, w := 2, 5, 7
	x := make([]float32, c*h*w)
	for i := range x {
		x[i] = float32(i + 1)
	}
	fill := []float32{-1, -2}
	for top := range 2*CropPadding + 1 {
		for left := range 2*CropPadding + 1 {
			got := slices.Clone(x)
			shift(got, c, h, w, top-CropPadding, left-CropPadding, fill)
			if want := padCrop(x, c, h, w, CropPadding, top, left, fill); !slices.Equal(got, want) {
				t.Errorf("top %d left %d:\n got %v\nwant %v", top, left, got, want)
			}
		}
	}
}

func TestAugment(t *testing.T) {
	s := smallSet(2, 3, 32, 32)
	fill := s.Fill()
	for c, want := range []float32{-0.4914 / 0.2470, -0.4822 / 0.2435, -0.4465 / 0.2616} {
		if d := fill[c] - want; d > 1e-6 || d < -1e-6 {
			t.Errorf("fill of channel %d is %v, want %v", c, fill[c], want)
		}
	}
	x := make([]float32, s.Size())
	s.Normalize(x, 1)
	c, h, w := 3, 32, 32

	if Augment(s, false, false) != nil {
		t.Error("Augment without crop or flip is not nil")
	}
	aug := Augment(s, true, true)

	// Determinism: the same seed gives the same result.
	run := func(aug func(*rand.Rand, []float32), seed uint64) []float32 {
		y := slices.Clone(x)
		aug(rand.New(rand.NewPCG(seed, 1)), y)
		return y
	}
	if !slices.Equal(run(aug, 3), run(aug, 3)) {
		t.Error("same seed, different results")
	}
	differ := 0
	for seed := range uint64(20) {
		if !slices.Equal(run(aug, seed), run(aug, seed+100)) {
			differ++
		}
	}
	if differ < 15 {
		t.Errorf("only %d of 20 seed pairs give different results", differ)
	}

	// Crop and flip follow torchvision's draws: top, left, then the flip.
	offsets := map[[2]int]bool{}
	flips := 0
	const draws = 3000
	for seed := range uint64(draws) {
		got := run(aug, seed)
		r := rand.New(rand.NewPCG(seed, 1))
		top, left := r.IntN(9), r.IntN(9)
		want := padCrop(x, c, h, w, CropPadding, top, left, fill)
		if r.Float64() < 0.5 {
			want = flipped(want, c, h, w)
			flips++
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (top %d, left %d): result differs from pad, crop and flip", seed, top, left)
		}
		offsets[[2]int{top, left}] = true
	}
	if len(offsets) != 81 {
		t.Errorf("%d of the 81 crop offsets drawn", len(offsets))
	}
	if flips < draws*45/100 || flips > draws*55/100 {
		t.Errorf("%d flips in %d draws", flips, draws)
	}

	// Crop only: content moves, the border takes the fill value.
	crop := Augment(s, true, false)
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		dy, dx := r.IntN(9)-4, r.IntN(9)-4
		got := run(crop, seed)
		for ch := range c {
			for y := range h {
				for i := range w {
					sy, sx := y+dy, i+dx
					want := fill[ch]
					if sy >= 0 && sy < h && sx >= 0 && sx < w {
						want = x[ch*h*w+sy*w+sx]
					}
					if g := got[ch*h*w+y*w+i]; g != want {
						t.Fatalf("seed %d shift (%d,%d): [%d][%d][%d] = %v, want %v", seed, dy, dx, ch, y, i, g, want)
					}
				}
			}
		}
	}

	// Flip only: the result is the image or its mirror.
	flip := Augment(s, false, true)
	seen := [2]bool{}
	for seed := range uint64(40) {
		got := run(flip, seed)
		switch {
		case slices.Equal(got, x):
			seen[0] = true
		case slices.Equal(got, flipped(x, c, h, w)):
			seen[1] = true
		default:
			t.Fatalf("seed %d: flip gave neither the image nor its mirror", seed)
		}
	}
	if seen != [2]bool{true, true} {
		t.Errorf("flip outcomes seen: %v", seen)
	}

	wantPanic(t, "Augment on a short example", func() { aug(rand.New(rand.NewPCG(1, 1)), x[:10]) })
	bad := *s
	bad.Std = []float32{1}
	wantPanic(t, "Augment with bad constants", func() { Augment(&bad, true, true) })
}

func TestAugmentMNISTShape(t *testing.T) {
	s := smallSet(1, 1, 28, 28)
	x := make([]float32, s.Size())
	s.Normalize(x, 0)
	got := slices.Clone(x)
	Augment(s, true, false)(rand.New(rand.NewPCG(9, 9)), got)
	r := rand.New(rand.NewPCG(9, 9))
	top, left := r.IntN(9), r.IntN(9)
	if want := padCrop(x, 1, 28, 28, 4, top, left, s.Fill()); !slices.Equal(got, want) {
		t.Error("28x28 crop differs from pad and crop")
	}
}
