// Package data holds what the trainer and the data readers share: an
// in-memory labelled data set, of float32 examples or of bytes decoded
// when a batch needs them, and the type of a training augmentation. It
// imports nothing of the model, so a data reader (data/images, data/synth)
// does not pull the model in.
package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Dataset is an in-memory labelled data set: example i is
// X[i*Size : (i+1)*Size] with label Y[i]; or, when X is nil, the bytes
// Pixels[i*Size : (i+1)*Size], value k of channel c (the first dimension
// of Shape) being Levels[c][byte]. Images kept as bytes take a quarter of
// the memory of their float32 values; Rows and Example decode them.
type Dataset struct {
	X       []float32
	Pixels  []uint8
	Levels  [][256]float32 // per channel, the value of each byte
	Y       []int32
	Shape   []int // shape of one example
	Classes int
}

// Len returns the number of examples.
func (d Dataset) Len() int { return len(d.Y) }

// Size returns the number of values per example.
func (d Dataset) Size() int {
	n := 1
	for _, s := range d.Shape {
		n *= s
	}
	return n
}

// Rows returns the values of examples lo to hi-1: a slice of X, or, for a
// data set of bytes, buf (at least (hi-lo)*Size() long) filled with them.
func (d Dataset) Rows(buf []float32, lo, hi int) []float32 {
	size := d.Size()
	if d.X != nil {
		return d.X[lo*size : hi*size]
	}
	buf = buf[:(hi-lo)*size]
	plane := size / len(d.Levels)
	for i := lo; i < hi; i++ {
		px, out := d.Pixels[i*size:(i+1)*size], buf[(i-lo)*size:]
		for c := range d.Levels {
			lut := &d.Levels[c]
			for k, p := range px[c*plane : (c+1)*plane] {
				out[c*plane+k] = lut[p]
			}
		}
	}
	return buf
}

// Example writes the values of example i to dst (Size() long).
func (d Dataset) Example(dst []float32, i int) {
	if v := d.Rows(dst, i, i+1); d.X != nil {
		copy(dst, v)
	}
}

// Slice returns examples lo to hi-1, sharing d's memory.
func (d Dataset) Slice(lo, hi int) Dataset {
	size := d.Size()
	s := d
	if d.X != nil {
		s.X = d.X[lo*size : hi*size]
	} else {
		s.Pixels = d.Pixels[lo*size : hi*size]
	}
	s.Y = d.Y[lo:hi]
	return s
}

// Validate reports a data set whose sizes or labels are inconsistent.
func (d Dataset) Validate() error {
	if d.Len() == 0 {
		return errors.New("empty data set")
	}
	switch n := d.Len() * d.Size(); {
	case d.X != nil && len(d.X) != n:
		return fmt.Errorf("data set has %d values for %d examples of shape %v", len(d.X), d.Len(), d.Shape)
	case d.X == nil && len(d.Pixels) != n:
		return fmt.Errorf("data set has %d bytes for %d examples of shape %v", len(d.Pixels), d.Len(), d.Shape)
	case d.X == nil && (len(d.Shape) == 0 || len(d.Levels) != d.Shape[0]):
		return fmt.Errorf("data set of bytes has the values of %d channels for examples of shape %v", len(d.Levels), d.Shape)
	}
	for i, y := range d.Y {
		if y < 0 || int(y) >= d.Classes {
			return fmt.Errorf("label %d of example %d is outside [0, %d)", y, i, d.Classes)
		}
	}
	return nil
}

// Augment transforms one example in place (random crop, flip, ...).
type Augment func(rng *rand.Rand, x []float32)
