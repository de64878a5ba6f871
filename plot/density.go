package plot

import (
	"encoding/base64"
	"fmt"
	"image/color"
	"math"
)

// DensityRange is the span of the density shading (see Region.Density):
// values from the largest down to DensityRange below it are shaded,
// lower ones are white. In nats, it keeps a sharp spike (a collapsed
// covariance) visible next to broad clouds.
const DensityRange = 12.0

// densityRefine is how many times finer than the decision regions' grid
// the density shading's grid is, in each direction.
const densityRefine = 3

// densityRamp gives the shade of t in [0,1] (0: the bottom of the range,
// white; 1: the largest value, a dark slate blue).
func densityRamp(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	mix := func(hi float64) uint8 { return uint8(math.Round(255 + (hi-255)*math.Pow(t, 0.8))) }
	return color.NRGBA{mix(0x2c), mix(0x3e), mix(0x75), 255}
}

// rampSteps is the number of shades of the density shading's image: finer
// than its 8-bit channels can tell apart.
const rampSteps = 1024

// rampTable holds densityRamp at t = i/(rampSteps-1): the shading looks its
// colours up rather than computing a power for each of its ~100,000 cells
// (a third of the figure's time in WebAssembly).
var rampTable = func() (tab [rampSteps]color.NRGBA) {
	for i := range tab {
		tab[i] = densityRamp(float64(i) / (rampSteps - 1))
	}
	return tab
}()

// rampShade returns the shade of t in [0,1] from rampTable.
func rampShade(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	return rampTable[int(math.Round(t*(rampSteps-1)))]
}

// shading is a grid of log density values ready to draw.
type shading struct {
	values []float64 // row-major from the bottom-left cell, as Region.Class
	nx, ny int
	max    float64
}

// newShading returns the shading of values on an nx×ny grid, or nil when
// there are not nx*ny values or none is finite.
func newShading(values []float64, nx, ny int) *shading {
	if len(values) != nx*ny {
		return nil
	}
	m := math.Inf(-1)
	for _, v := range values {
		if finite(v) {
			m = math.Max(m, v)
		}
	}
	if math.IsInf(m, -1) {
		return nil
	}
	return &shading{values: values, nx: nx, ny: ny, max: m}
}

// draw draws the shading over the plot area as an embedded PNG image, one
// pixel per cell, that the viewer smooths.
func (sh *shading) draw(s *svg, a *axes) {
	rgb := make([]byte, 0, 3*sh.nx*sh.ny)
	for j := sh.ny - 1; j >= 0; j-- { // image rows run downwards
		for i := range sh.nx {
			t := 0.0 // NaN and -Inf: white
			if v := sh.values[j*sh.nx+i]; !math.IsNaN(v) {
				t = 1 - (sh.max-v)/DensityRange
			}
			c := rampShade(t)
			rgb = append(rgb, c.R, c.G, c.B)
		}
	}
	s.group("density", clip())
	s.printf(`<image x="%s" y="%s" width="%s" height="%s" preserveAspectRatio="none" href="data:image/png;base64,%s"/>`+"\n",
		num(a.left), num(a.top), num(a.right-a.left), num(a.bottom-a.top), base64.StdEncoding.EncodeToString(encodePNG(sh.nx, sh.ny, rgb)))
	s.end()
}

// densityLegend returns the legend rows of the shading: a heading and the
// two ends of the ramp.
func densityLegend() []legendEntry {
	swatch := func(t float64) func(s *svg, x, y float64) {
		c := densityRamp(t)
		return rectSwatch(fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B), ` stroke="#999999" stroke-width="0.6"`)
	}
	return []legendEntry{
		{"log density", nil},
		{"largest", swatch(1)},
		{fmt.Sprintf("largest − %g", DensityRange/2), swatch(0.5)},
		{fmt.Sprintf("largest − %g", DensityRange), swatch(0)},
	}
}
