package data

import (
	"slices"
	"strings"
	"testing"
)

// TestBytes: a data set of bytes decodes each channel with its levels, its
// slices share the bytes, and Validate refuses wrong sizes.
func TestBytes(t *testing.T) {
	d := Dataset{Pixels: []uint8{0, 1, 2, 3, 4, 5, 6, 7}, Levels: make([][256]float32, 2), Y: []int32{0, 1}, Shape: []int{2, 1, 2}, Classes: 2}
	for p := range 256 {
		d.Levels[0][p], d.Levels[1][p] = float32(p), -float32(p)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := d.Rows(make([]float32, 8), 0, 2); !slices.Equal(got, []float32{0, 1, -2, -3, 4, 5, -6, -7}) {
		t.Errorf("Rows = %v", got)
	}
	x := make([]float32, 4)
	d.Slice(1, 2).Example(x, 0)
	if !slices.Equal(x, []float32{4, 5, -6, -7}) {
		t.Errorf("example 0 of Slice(1, 2) = %v", x)
	}
	f := Dataset{X: []float32{1, 2, 3, 4}, Y: []int32{0, 1}, Shape: []int{2}, Classes: 2}
	f.Slice(1, 2).Example(x[:2], 0)
	if !slices.Equal(x[:2], []float32{3, 4}) {
		t.Errorf("example 1 of float32 values = %v", x[:2])
	}
	short := d
	short.Pixels = d.Pixels[:7]
	oneLevel := d
	oneLevel.Levels = d.Levels[:1]
	for _, tc := range []struct {
		d    Dataset
		want string
	}{{short, "7 bytes for 2 examples"}, {oneLevel, "the values of 1 channels for examples of shape [2 1 2]"}} {
		if err := tc.d.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: %v, want %q", err, tc.want)
		}
	}
}
