package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tableau10 is the Tableau 10 categorical palette (2016 revision), chosen
// for being distinguishable under the common forms of colour blindness.
var tableau10 = [...]string{
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
}

// Color returns the categorical colour of class or series i as "#rrggbb".
// The first ten colours are Tableau 10; beyond that hues advance by the
// golden angle with alternating lightness and saturation, so that any
// number of classes (e.g. 100) get distinct, deterministic colours.
// Negative indices give a neutral grey.
func Color(i int) string {
	if i < 0 {
		return "#7f7f7f"
	}
	if i < len(tableau10) {
		return tableau10[i]
	}
	k := i - len(tableau10)
	hue := math.Mod(20+float64(k)*137.50776405, 360)
	light := [...]float64{0.45, 0.60, 0.35}[k%3]
	sat := [...]float64{0.70, 0.55}[(k/3)%2]
	r, g, b := hslToRGB(hue, sat, light)
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// hslToRGB converts hue (degrees), saturation and lightness in [0,1] to
// 8-bit RGB.
func hslToRGB(h, s, l float64) (r, g, b uint8) {
	c := (1 - math.Abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r1, g1, b1 float64
	switch {
	case hp < 1:
		r1, g1 = c, x
	case hp < 2:
		r1, g1 = x, c
	case hp < 3:
		g1, b1 = c, x
	case hp < 4:
		g1, b1 = x, c
	case hp < 5:
		r1, b1 = x, c
	default:
		r1, b1 = c, x
	}
	m := l - c/2
	to8 := func(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v+m)) * 255)) }
	return to8(r1), to8(g1), to8(b1)
}

// tint mixes the colour "#rrggbb" with white; amount 0 keeps the colour and
// 1 gives white. It is used for the light decision-region fills.
func tint(hex string, amount float64) string {
	// strconv rather than fmt.Sscanf: fmt's scanner is large in the page's
	// WebAssembly.
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if len(hex) != 7 || hex[0] != '#' || err != nil {
		return hex
	}
	mix := func(shift uint) uint8 {
		c := float64(v >> shift & 0xff)
		return uint8(math.Round(c + (255-c)*amount))
	}
	return fmt.Sprintf("#%02x%02x%02x", mix(16), mix(8), mix(0))
}
