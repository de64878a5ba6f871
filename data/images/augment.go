package images

import (
	"fmt"
	"math/rand/v2"

	"github.com/deeplda/deeplda/data"
)

// CropPadding is the zero padding of the random crop, as in torchvision's
// RandomCrop(32, padding=4).
const CropPadding = 4

// Augment returns the paper's training augmentation of the normalised
// examples of s (as Normalize writes them), applied in place by the
// trainer, or nil when crop and flip are both false.
//
// With crop, the image is padded by CropPadding pixels of value 0 on each
// side and cropped back to its size at a random offset, as torchvision's
// RandomCrop(size, padding=4) on the [0,1] image followed by Normalize: it
// draws the top offset then the left offset, each uniform in [0, 8], and
// the padding takes the normalised value of a 0 pixel, (0 - Mean[c]) /
// Std[c] (see Fill). With flip, the image is then mirrored left to right
// with probability 0.5 (rng.Float64() < 0.5). All channels move together.
//
// The function keeps no state and may be used concurrently with separate
// generators. It panics if an example does not have s.Size() values, and
// Augment panics if the shape or normalisation constants of s are unusable.
func Augment(s *Set, crop, flip bool) data.Augment {
	fill := s.Fill()
	c, h, w := s.Shape[0], s.Shape[1], s.Shape[2]
	size := c * h * w
	if !crop && !flip {
		return nil
	}
	return func(rng *rand.Rand, x []float32) {
		if len(x) != size {
			panic(fmt.Sprintf("images: Augment: example has %d values, want %d (shape [%d %d %d])", len(x), size, c, h, w))
		}
		if crop {
			top := rng.IntN(2*CropPadding + 1)
			left := rng.IntN(2*CropPadding + 1)
			shift(x, c, h, w, top-CropPadding, left-CropPadding, fill)
		}
		if flip && rng.Float64() < 0.5 {
			mirror(x, c, h, w)
		}
	}
}

// shift sets, in place, x[c][y][x] = x[c][y+dy][x+dx], or fill[c] where
// (y+dy, x+dx) lies outside the image. The traversal order makes every
// source pixel be read before it is overwritten.
func shift(x []float32, c, h, w, dy, dx int, fill []float32) {
	if dy == 0 && dx == 0 {
		return
	}
	y0, y1, ys := 0, h, 1
	if dy < 0 {
		y0, y1, ys = h-1, -1, -1
	}
	x0, x1, xs := 0, w, 1
	if dx < 0 {
		x0, x1, xs = w-1, -1, -1
	}
	for ch := range c {
		p := x[ch*h*w : (ch+1)*h*w]
		for y := y0; y != y1; y += ys {
			sy := y + dy
			row := p[y*w : (y+1)*w]
			if sy < 0 || sy >= h {
				for i := range row {
					row[i] = fill[ch]
				}
				continue
			}
			src := p[sy*w : (sy+1)*w]
			for i := x0; i != x1; i += xs {
				if sx := i + dx; sx >= 0 && sx < w {
					row[i] = src[sx]
				} else {
					row[i] = fill[ch]
				}
			}
		}
	}
}

// mirror flips x left to right in place.
func mirror(x []float32, c, h, w int) {
	for r := range c * h {
		row := x[r*w : (r+1)*w]
		for i, j := 0, w-1; i < j; i, j = i+1, j-1 {
			row[i], row[j] = row[j], row[i]
		}
	}
}
