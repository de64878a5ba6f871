package plot

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestDensityShading checks the log density layer of Embedding: drawn
// under the points with its legend, one pixel per cell with the image's
// rows running downwards (the peak, low and left in the plot, is the
// darkest pixel, in the image's lower-left quarter), values more than
// DensityRange below the largest white; and left out when Density fails.
func TestDensityShading(t *testing.T) {
	pts, _, ells, means := sample()
	const px, py = 0.0, 0.0 // the first class's mean: low and left
	reg := &Region{X0: -2, X1: 9, Y0: -2, Y1: 4, NX: 40, NY: 30, Density: func(x, y []float64) []float64 {
		v := make([]float64, len(x))
		for k := range x {
			v[k] = 5 - 2*((x[k]-px)*(x[k]-px)+(y[k]-py)*(y[k]-py))
		}
		return v
	}}
	svg := string(Embedding(Figure{Title: "t"}, pts, reg, ells, means, nil))
	parse(t, []byte(svg))
	for _, want := range []string{`class="density"`, ">log density<", "largest − 12", "shading: log density"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the figure lacks %s", want)
		}
	}
	if strings.Index(svg, `class="density"`) > strings.Index(svg, `class="points"`) {
		t.Error("the shading is drawn over the points")
	}
	m := regexp.MustCompile(`href="data:image/png;base64,([^"]+)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatal("no PNG image in the density layer")
	}
	raw, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != densityRefine*reg.NX || b.Dy() != densityRefine*reg.NY {
		t.Fatalf("image %dx%d, want one pixel per cell of the refined grid, %dx%d", b.Dx(), b.Dy(), densityRefine*reg.NX, densityRefine*reg.NY)
	}
	darkest, at := math.Inf(1), [2]int{}
	whites := 0
	for j := range b.Dy() {
		for i := range b.Dx() {
			r, g, bl, _ := img.At(i, j).RGBA()
			if s := float64(r + g + bl); s < darkest {
				darkest, at = s, [2]int{i, j}
			}
			if r == 0xffff && g == 0xffff && bl == 0xffff {
				whites++
			}
		}
	}
	if at[0] >= b.Dx()/2 || at[1] < b.Dy()/2 {
		t.Errorf("darkest pixel at %v, want the lower-left quarter of %dx%d", at, b.Dx(), b.Dy())
	}
	if whites == 0 {
		t.Error("no cell is white, though most lie more than DensityRange below the peak")
	}
	reg.Density = func(x, y []float64) []float64 { return nil }
	if svg := string(Embedding(Figure{Title: "t"}, pts, reg, ells, means, nil)); strings.Contains(svg, `class="density"`) || strings.Contains(svg, "shading:") {
		t.Error("shading drawn or captioned although Density failed")
	}
}
