// Package data holds what the trainer and the data readers share: an
// in-memory labelled data set of float32 examples and the type of a
// training augmentation. It imports nothing of the model, so a data reader
// (data/images, data/synth) does not pull the model in.
package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Dataset is an in-memory labelled data set: example i is
// X[i*Size : (i+1)*Size] with label Y[i].
type Dataset struct {
	X       []float32
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

// Validate reports a data set whose sizes or labels are inconsistent.
func (d Dataset) Validate() error {
	if d.Len() == 0 {
		return errors.New("empty data set")
	}
	if len(d.X) != d.Len()*d.Size() {
		return fmt.Errorf("data set has %d values for %d examples of shape %v", len(d.X), d.Len(), d.Shape)
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
