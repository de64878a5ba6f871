package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEncodePNG decodes encodePNG's files with image/png: the same pixels,
// on a smooth shading like the density's and on noise, in sizes that the
// standard encoder does not beat by more than a quarter.
func TestEncodePNG(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name  string
		w, h  int
		pixel func(x, y int) [3]byte
	}{
		{"smooth", 360, 270, func(x, y int) [3]byte {
			c := densityRamp(math.Exp(-float64((x-100)*(x-100)+(y-200)*(y-200)) / 5000))
			return [3]byte{c.R, c.G, c.B}
		}},
		{"noise", 37, 11, func(x, y int) [3]byte { return [3]byte{byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32())} }},
		{"one pixel", 1, 1, func(x, y int) [3]byte { return [3]byte{1, 2, 3} }},
	} {
		rgb := make([]byte, 0, 3*c.w*c.h)
		ref := image.NewNRGBA(image.Rect(0, 0, c.w, c.h))
		for y := range c.h {
			for x := range c.w {
				p := c.pixel(x, y)
				rgb = append(rgb, p[:]...)
				ref.SetNRGBA(x, y, color.NRGBA{p[0], p[1], p[2], 255})
			}
		}
		file := encodePNG(c.w, c.h, rgb)
		img, err := png.Decode(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b := img.Bounds(); b.Dx() != c.w || b.Dy() != c.h {
			t.Fatalf("%s: decoded %dx%d, want %dx%d", c.name, b.Dx(), b.Dy(), c.w, c.h)
		}
		for y := range c.h {
			for x := range c.w {
				if got, want := color.NRGBAModel.Convert(img.At(x, y)), ref.NRGBAAt(x, y); got != want {
					t.Fatalf("%s: pixel (%d,%d) = %v, want %v", c.name, x, y, got, want)
				}
			}
		}
		var std bytes.Buffer
		if err := png.Encode(&std, ref); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, image/png %d", c.name, len(file), std.Len())
		if len(file) > std.Len()*5/4+64 {
			t.Errorf("%s: %d bytes, image/png writes %d", c.name, len(file), std.Len())
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("encodePNG with too few pixels did not panic")
		}
	}()
	encodePNG(2, 2, make([]byte, 11))
}
