package images

import (
	"math"
	"slices"
	"testing"
)

// smallSet returns a set of n examples of shape [c,h,w] with pixel k of
// example i equal to (31*i + 7*k) mod 256 and label i mod 3.
func smallSet(n, c, h, w int) *Set {
	size := c * h * w
	s := &Set{Name: "small", Shape: [3]int{c, h, w}, Classes: 3, Pixels: make([]uint8, n*size), Labels: make([]uint8, n)}
	for i := range n {
		for k := range size {
			s.Pixels[i*size+k] = uint8(31*i + 7*k)
		}
		s.Labels[i] = uint8(i % 3)
	}
	if c == 3 {
		s.Mean, s.Std = []float32{0.4914, 0.4822, 0.4465}, []float32{0.2470, 0.2435, 0.2616}
	} else {
		s.Mean, s.Std = slices.Repeat([]float32{0.5}, c), slices.Repeat([]float32{0.25}, c)
	}
	return s
}

func TestNormalizeAndDataset(t *testing.T) {
	s := smallSet(5, 3, 4, 6)
	x := make([]float32, s.Size())
	d := s.Dataset(0)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Len() != 5 || !slices.Equal(d.Shape, []int{3, 4, 6}) || d.Classes != 3 {
		t.Fatalf("dataset of %d examples of %v, %d classes", d.Len(), d.Shape, d.Classes)
	}
	all := d.Rows(make([]float32, d.Len()*d.Size()), 0, d.Len())
	for i := range s.Len() {
		s.Normalize(x, i)
		for k, v := range x {
			c := k / 24
			want := (float32(s.Pixels[i*s.Size()+k])/255 - s.Mean[c]) / s.Std[c]
			if v != want || all[i*s.Size()+k] != want {
				t.Fatalf("example %d value %d: Normalize %v, Dataset %v, want %v", i, k, v, all[i*s.Size()+k], want)
			}
		}
		if d.Y[i] != int32(s.Labels[i]) {
			t.Errorf("label %d: %d, want %d", i, d.Y[i], s.Labels[i])
		}
	}
	if d := s.Dataset(2); d.Len() != 2 || len(d.Pixels) != 2*s.Size() || d.X != nil {
		t.Errorf("Dataset(2) has %d examples, %d bytes, %d float32 values; want 2, %d, none", d.Len(), len(d.Pixels), len(d.X), 2*s.Size())
	}
	if d := s.Dataset(50); d.Len() != 5 {
		t.Errorf("Dataset(50) has %d examples", d.Len())
	}

	// Without constants, pixels are only scaled to [0,1].
	s.Mean, s.Std = nil, nil
	s.Normalize(x, 1)
	if want := float32(s.Pixels[s.Size()+3]) / 255; x[3] != want {
		t.Errorf("unnormalised value %v, want %v", x[3], want)
	}
	if f := s.Fill(); !slices.Equal(f, []float32{0, 0, 0}) {
		t.Errorf("Fill without constants = %v", f)
	}

	wantPanic(t, "Normalize(-1)", func() { s.Normalize(x, -1) })
	wantPanic(t, "Normalize(5)", func() { s.Normalize(x, 5) })
	wantPanic(t, "Normalize short", func() { s.Normalize(x[:3], 0) })
	wantPanic(t, "Dataset(-1)", func() { s.Dataset(-1) })
	s.Mean = []float32{1}
	wantPanic(t, "Normalize with 1 mean for 3 channels", func() { s.Normalize(x, 0) })
	wantPanic(t, "Dataset with 1 mean for 3 channels", func() { s.Dataset(0) })
}

func TestSubset(t *testing.T) {
	s := smallSet(6, 1, 2, 2)
	s.Coarse = []uint8{1, 2, 3, 4, 5, 6}
	sub := s.Subset(4)
	if sub.Len() != 4 || len(sub.Pixels) != 16 || len(sub.Coarse) != 4 || sub.Name != s.Name || sub.Classes != 3 {
		t.Fatalf("Subset(4): %d examples, %d pixels, %d coarse labels", sub.Len(), len(sub.Pixels), len(sub.Coarse))
	}
	if &sub.Pixels[0] != &s.Pixels[0] {
		t.Error("Subset copied the pixels")
	}
	if err := sub.Validate(); err != nil {
		t.Error(err)
	}
	if s.Subset(0).Len() != 6 || s.Subset(100).Len() != 6 {
		t.Error("Subset(0) or Subset(100) is not the whole set")
	}
	wantPanic(t, "Subset(-1)", func() { s.Subset(-1) })
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(s *Set)
		parts string
	}{
		{"shape", func(s *Set) { s.Shape[1] = 0 }, "bad shape"},
		{"classes", func(s *Set) { s.Classes = 0 }, "0 classes"},
		{"empty", func(s *Set) { s.Labels = nil; s.Pixels = nil }, "empty set"},
		{"pixels", func(s *Set) { s.Pixels = s.Pixels[1:] }, "pixels for 4 examples"},
		{"coarse", func(s *Set) { s.Coarse = []uint8{1} }, "1 coarse labels"},
		{"label", func(s *Set) { s.Labels[2] = 3 }, "label 3 of example 2"},
		{"std", func(s *Set) { s.Std[0] = 0 }, "std 0"},
		{"nan", func(s *Set) { s.Mean[0] = float32(math.NaN()) }, "mean NaN"},
	} {
		s := smallSet(4, 1, 2, 2)
		tc.edit(s)
		wantErr(t, s.Validate(), "small: ", tc.parts)
	}
}

func TestStats(t *testing.T) {
	s := &Set{Name: "s", Shape: [3]int{2, 1, 2}, Classes: 1, Labels: []uint8{0, 0},
		Pixels: []uint8{0, 255, 51, 51, 255, 255, 102, 102}}
	mean, std := s.Stats()
	// Channel 0: 0, 1, 1, 1; channel 1: 0.2, 0.2, 0.4, 0.4.
	wantM, wantS := []float64{0.75, 0.3}, []float64{math.Sqrt(0.1875), 0.1}
	for c := range 2 {
		if math.Abs(mean[c]-wantM[c]) > 1e-12 || math.Abs(std[c]-wantS[c]) > 1e-12 {
			t.Errorf("channel %d: mean %v std %v, want %v %v", c, mean[c], std[c], wantM[c], wantS[c])
		}
	}
}
