// Package images reads the image data sets of the paper's experiments
// (Fashion-MNIST, MNIST, CIFAR-10 and CIFAR-100) from their published files,
// verifies them, downloads them on request and prepares them for training.
//
// Pixels stay uint8 in memory (a [Set]); they become float32, scaled to
// [0,1] and normalised per channel with the paper's constants, one example
// at a time ([Set.Normalize]) or for a whole prefix of the set
// ([Set.Dataset]). [Augment] returns the training augmentation (random crop
// with zero padding 4 and horizontal flip) for the trainer.
//
// The facts about each data set (its files, their hashes, its class names,
// its download size, whether the static site hosts it) are in its [Spec]
// ([Lookup], [Names], [Hosted]); [Identify] recognises a user's set of
// files by their names, and [Which] a file by its hash.
//
// [Load] reads a data set from a local folder and verifies the files whose
// SHA-256 is recorded (see [Spec]); [Fetch] downloads missing files from the
// official locations. Nothing is downloaded unless Fetch is called. The
// fetcher (net/http) is left out of the WebAssembly build.
//
// Integrity: the SHA-256 of the uncompressed IDX data of Fashion-MNIST and
// MNIST is recorded and checked. For CIFAR-10 and CIFAR-100 the MD5 of the
// published archives is recorded and checked when they are downloaded; their
// files are checked for structure (whole records, labels in range, the
// expected files present). Every failure caused by the input returns an
// error naming the file and the problem; the readers never panic on
// malformed input, they refuse headers announcing more than 1 GiB of data
// before allocating it, and decompression stops at the size of the largest
// file of the data set ([Spec].MaxFile; [Dropped.Gunzip] for files held in
// memory).
package images

import (
	"fmt"
	"math"

	"github.com/deeplda/deeplda/data"
)

// maxBytes is the largest pixel (or label) payload accepted from one file
// or for one set.
const maxBytes = 1 << 30

// Set is a labelled image data set held as uint8 pixels. Example i is
// Pixels[i*Size() : (i+1)*Size()], laid out channel by channel, each channel
// row by row (shape [C,H,W]), with label Labels[i].
type Set struct {
	Name    string
	Pixels  []uint8
	Labels  []uint8
	Coarse  []uint8 // CIFAR-100 coarse labels (20 classes); nil otherwise
	Shape   [3]int  // C, H, W
	Classes int

	// Mean and Std are the per-channel normalisation constants of pixels
	// scaled to [0,1]: a pixel p of channel c becomes
	// (p/255 - Mean[c]) / Std[c]. Both nil means no normalisation beyond
	// the scaling (mean 0, std 1).
	Mean, Std []float32
}

// Len returns the number of examples.
func (s *Set) Len() int { return len(s.Labels) }

// Size returns the number of pixels per example, C*H*W.
func (s *Set) Size() int { return s.Shape[0] * s.Shape[1] * s.Shape[2] }

// Validate reports a set whose sizes, labels or normalisation constants are
// inconsistent.
func (s *Set) Validate() error {
	c, h, w := s.Shape[0], s.Shape[1], s.Shape[2]
	switch {
	case c < 1 || h < 1 || w < 1:
		return fmt.Errorf("%s: bad shape %v", s.Name, s.Shape)
	case s.Classes < 1 || s.Classes > 256:
		return fmt.Errorf("%s: %d classes, want 1 to 256", s.Name, s.Classes)
	case s.Len() == 0:
		return fmt.Errorf("%s: empty set", s.Name)
	case len(s.Pixels) != s.Len()*s.Size():
		return fmt.Errorf("%s: %d pixels for %d examples of shape %v", s.Name, len(s.Pixels), s.Len(), s.Shape)
	case s.Coarse != nil && len(s.Coarse) != s.Len():
		return fmt.Errorf("%s: %d coarse labels for %d examples", s.Name, len(s.Coarse), s.Len())
	}
	for i, y := range s.Labels {
		if int(y) >= s.Classes {
			return fmt.Errorf("%s: label %d of example %d is outside [0, %d)", s.Name, y, i, s.Classes)
		}
	}
	if err := checkNorm(c, s.Mean, s.Std); err != nil {
		return fmt.Errorf("%s: %v", s.Name, err)
	}
	return nil
}

// checkNorm reports normalisation constants that do not fit c channels.
func checkNorm(c int, mean, std []float32) error {
	if mean == nil && std == nil {
		return nil
	}
	if len(mean) != c || len(std) != c {
		return fmt.Errorf("%d means and %d standard deviations for %d channels", len(mean), len(std), c)
	}
	for i := range std {
		m, d := float64(mean[i]), float64(std[i])
		if math.IsNaN(m) || math.IsInf(m, 0) || !(d > 0) || math.IsInf(d, 0) {
			return fmt.Errorf("bad normalisation of channel %d: mean %v, std %v", i, mean[i], std[i])
		}
	}
	return nil
}

// norm returns the mean and standard deviation of channel c.
func (s *Set) norm(c int) (mean, std float32) {
	if s.Mean == nil && s.Std == nil {
		return 0, 1
	}
	return s.Mean[c], s.Std[c]
}

// normalize maps pixel p with the constants of one channel, in float32 as
// torchvision's ToTensor followed by Normalize.
func normalize(p uint8, mean, std float32) float32 { return (float32(p)/255 - mean) / std }

// Fill returns the normalised value of a 0 pixel in each channel,
// (0 - Mean[c]) / Std[c]: the padding value of the random crop.
func (s *Set) Fill() []float32 {
	s.mustNorm("Fill")
	f := make([]float32, s.Shape[0])
	for c := range f {
		m, d := s.norm(c)
		f[c] = normalize(0, m, d)
	}
	return f
}

// mustNorm panics when the shape or normalisation constants are unusable.
func (s *Set) mustNorm(fn string) {
	if s.Shape[0] < 1 || s.Shape[1] < 1 || s.Shape[2] < 1 {
		panic(fmt.Sprintf("images: %s: bad shape %v", fn, s.Shape))
	}
	if err := checkNorm(s.Shape[0], s.Mean, s.Std); err != nil {
		panic(fmt.Sprintf("images: %s: %v", fn, err))
	}
}

// Normalize writes example i into dst (length Size()) as float32: each
// pixel p of channel c becomes (p/255 - Mean[c]) / Std[c], computed in
// float32. It panics if i is out of range or dst has the wrong length.
func (s *Set) Normalize(dst []float32, i int) {
	s.mustNorm("Normalize")
	size := s.Size()
	if i < 0 || i >= s.Len() || (i+1)*size > len(s.Pixels) {
		panic(fmt.Sprintf("images: Normalize: example %d of a set of %d", i, s.Len()))
	}
	if len(dst) != size {
		panic(fmt.Sprintf("images: Normalize: destination has %d values, want %d", len(dst), size))
	}
	plane := s.Shape[1] * s.Shape[2]
	src := s.Pixels[i*size : (i+1)*size]
	for c := 0; c < s.Shape[0]; c++ {
		m, d := s.norm(c)
		for k, p := range src[c*plane : (c+1)*plane] {
			dst[c*plane+k] = normalize(p, m, d)
		}
	}
}

// clamp returns the number of examples that limit selects: all of them
// for 0 or a limit beyond the set.
func (s *Set) clamp(fn string, limit int) int {
	if limit < 0 {
		panic(fmt.Sprintf("images: %s: negative limit %d", fn, limit))
	}
	if limit == 0 || limit > s.Len() {
		return s.Len()
	}
	return limit
}

// Subset returns the first limit examples (all of them when limit is 0 or
// at least Len()). The subset shares the pixel and label memory of s. It
// panics if limit is negative.
func (s *Set) Subset(limit int) *Set {
	n := s.clamp("Subset", limit)
	size := s.Size()
	if n*size > len(s.Pixels) {
		panic(fmt.Sprintf("images: Subset: %d pixels for %d examples of shape %v", len(s.Pixels), s.Len(), s.Shape))
	}
	t := *s
	t.Pixels = s.Pixels[: n*size : n*size]
	t.Labels = s.Labels[:n:n]
	if s.Coarse != nil {
		t.Coarse = s.Coarse[:n:n]
	}
	return &t
}

// Dataset returns the first limit examples (all of them when limit is 0 or
// at least Len()) as a data.Dataset with shape [C,H,W] that shares the
// set's pixels and decodes them to their normalised float32 values (see
// Normalize) when a batch needs them. It panics if limit is negative or
// the set is invalid (see Validate).
func (s *Set) Dataset(limit int) data.Dataset {
	if err := s.Validate(); err != nil {
		panic("images: Dataset: " + err.Error())
	}
	n := s.clamp("Dataset", limit)
	lut := make([][256]float32, s.Shape[0])
	for ch := range lut {
		m, d := s.norm(ch)
		for p := range 256 {
			lut[ch][p] = normalize(uint8(p), m, d)
		}
	}
	y := make([]int32, n)
	for i, l := range s.Labels[:n] {
		y[i] = int32(l)
	}
	return data.Dataset{Pixels: s.Pixels[:n*s.Size()], Levels: lut, Y: y, Shape: []int{s.Shape[0], s.Shape[1], s.Shape[2]}, Classes: s.Classes}
}

// Stats returns the mean and standard deviation of each channel over all
// pixels of the set, scaled to [0,1] (before normalisation). It panics if
// the set is invalid (see Validate).
func (s *Set) Stats() (mean, std []float64) {
	if err := s.Validate(); err != nil {
		panic("images: Stats: " + err.Error())
	}
	c, plane, size := s.Shape[0], s.Shape[1]*s.Shape[2], s.Size()
	hist := make([][256]int64, c)
	for i := 0; i < s.Len(); i++ {
		ex := s.Pixels[i*size : (i+1)*size]
		for ch := range c {
			h := &hist[ch]
			for _, p := range ex[ch*plane : (ch+1)*plane] {
				h[p]++
			}
		}
	}
	mean, std = make([]float64, c), make([]float64, c)
	count := float64(s.Len() * plane)
	for ch := range c {
		var sum float64
		for p, k := range hist[ch] {
			sum += float64(k) * float64(p) / 255
		}
		m := sum / count
		var ss float64
		for p, k := range hist[ch] {
			d := float64(p)/255 - m
			ss += float64(k) * d * d
		}
		mean[ch], std[ch] = m, math.Sqrt(ss/count)
	}
	return mean, std
}
