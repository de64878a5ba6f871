package plot

import (
	"fmt"
	"math"
	"strings"
)

// Band is a per-point interval around a Series (e.g. mean ± 2 std): Lo[i]
// and Hi[i] belong to X[i].
type Band struct {
	Lo, Hi []float64
}

// Series is one named curve. Points whose coordinates are NaN, infinite or
// (on a log axis) non-positive break the curve.
type Series struct {
	Name string
	X, Y []float64
	// Dashed draws the curve dashed.
	Dashed bool
	// Markers draws a dot at every point, and error bars when Band is set.
	Markers bool
	// Band, if set, is drawn as a translucent band behind the curve.
	Band *Band
	// Color is the curve's colour ("#rrggbb"); "" gives it the colour of
	// its place (see Lines).
	Color string
}

// Lines draws curves such as training curves or sweeps (set fig.LogX and
// give the series Markers and a Band for mean ± 2 std error bars). Series i
// gets its Color, or Color(i) without one; unnamed series are left out of
// the legend, which is drawn right of the plot area, off the data.
func Lines(fig Figure, series []Series, logY bool) []byte {
	w, h := fig.size(640, 420)
	return newLinePlot(fig, w, h, series, logY, 0).draw()
}

// linePlot is a laid-out Lines figure.
type linePlot struct {
	a      *axes
	ser    []Series
	color0 int // series k without a Color gets Color(color0+k)
	leg    *legend
}

// color returns the colour of series k.
func (p *linePlot) color(k int) string {
	if c := p.ser[k].Color; c != "" {
		return c
	}
	return Color(p.color0 + k)
}

// xExtent returns the range of the usable x values of series.
func xExtent(series []Series, logX bool) extent {
	ex := extent{log: logX}
	for _, sr := range series {
		for i := range min(len(sr.X), len(sr.Y)) {
			ex.add(sr.X[i])
		}
	}
	return ex
}

// xRange returns the x axis range of Lines for series.
func xRange(fig Figure, series []Series) (float64, float64) {
	if l0, l1, ok := lim(fig.XLim, fig.LogX); ok {
		return l0, l1
	}
	ex := xExtent(series, fig.LogX)
	if fig.IntegerX && !fig.LogX && ex.n > 0 && ex.hi-ex.lo < 1 {
		// One epoch, say: a unit around it rather than ±10%.
		return ex.lo - 0.5, ex.hi + 0.5
	}
	if fig.LogX {
		return ex.padded(0.05)
	}
	return ex.padded(0.02)
}

// newLinePlot thins the series, finds the axes' ranges and lays out a
// w×h Lines figure whose series k without a Color gets Color(color0+k).
func newLinePlot(fig Figure, w, h float64, series []Series, logY bool, color0 int) *linePlot {
	ey := extent{log: logY}
	ser := make([]Series, len(series))
	for k, sr := range series {
		ser[k] = thin(sr, &fig)
		sr = ser[k]
		n := min(len(sr.X), len(sr.Y))
		for i := range n {
			if !finite(sr.X[i]) || (fig.LogX && sr.X[i] <= 0) {
				continue
			}
			ey.add(sr.Y[i])
			if sr.Band != nil {
				if i < len(sr.Band.Lo) {
					ey.add(sr.Band.Lo[i])
				}
				if i < len(sr.Band.Hi) {
					ey.add(sr.Band.Hi[i])
				}
			}
		}
	}
	x0, x1 := xRange(fig, ser)
	if fig.ZeroY && !logY && ey.n > 0 {
		ey.add(0)
	}
	y0, y1 := ey.padded(0.05)
	if l0, l1, ok := lim(fig.YLim, logY); ok {
		y0, y1 = l0, l1
	}

	p := &linePlot{ser: ser, color0: color0}
	var entries []legendEntry
	for k, sr := range ser {
		if sr.Name != "" {
			entries = append(entries, legendEntry{sr.Name, lineSwatch(p.color(k), 2, sr.Dashed, sr.Markers)})
		}
	}
	p.leg = newLegend(entries, h-80)
	legW := fig.minLegend
	if p.leg != nil {
		legW = math.Max(legW, p.leg.width()+12)
	}
	p.a = newAxes(fig, w, h, x0, x1, y0, y1, fig.LogX, logY, legW, false)
	return p
}

// draw draws the figure.
func (p *linePlot) draw() []byte {
	a, ser := p.a, p.ser
	w, h := a.w, a.h
	s := newSVG(w, h)
	a.drawBack(s, true)
	s.group("bands", clip()+` fill-opacity="0.18" stroke="none"`)
	for k, sr := range ser {
		if d := bandPath(a, sr); d != "" {
			s.printf(`<path d="%s" fill="%s"/>`+"\n", d, p.color(k))
		}
	}
	s.end()
	s.group("series", clip()+` fill="none" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"`)
	for k, sr := range ser {
		var d strings.Builder
		pen := false
		for i := range min(len(sr.X), len(sr.Y)) {
			if !a.x.ok(sr.X[i]) || !a.y.ok(sr.Y[i]) {
				pen = false
				continue
			}
			x, y := a.x.pos(sr.X[i]), a.y.pos(sr.Y[i])
			if pen {
				d.WriteString("L")
			} else {
				d.WriteString("M")
			}
			d.WriteString(num(x) + " " + num(y))
			pen = true
		}
		extra := ""
		if sr.Dashed {
			extra = ` stroke-dasharray="7 4"`
		}
		s.printf(`<path d="%s" stroke="%s"%s/>`+"\n", d.String(), p.color(k), extra)
	}
	s.end()
	s.group("markers", clip())
	for k, sr := range ser {
		if sr.Markers {
			if d := errorBarPath(a, sr); d != "" {
				s.printf(`<path d="%s" stroke="%s" stroke-width="1.3" fill="none"/>`+"\n", d, p.color(k))
			}
		}
		n := min(len(sr.X), len(sr.Y))
		drawn := func(i int) bool { return i >= 0 && i < n && a.x.ok(sr.X[i]) && a.y.ok(sr.Y[i]) }
		for i := range n {
			// Without Markers, a point with no line to it (a one-epoch
			// curve, or between gaps) still gets its dot.
			if drawn(i) && (sr.Markers || !drawn(i-1) && !drawn(i+1)) {
				s.printf(`<circle cx="%s" cy="%s" r="3.2" fill="%s" stroke="#ffffff" stroke-width="0.8"/>`+"\n",
					num(a.x.pos(sr.X[i])), num(a.y.pos(sr.Y[i])), p.color(k))
			}
		}
	}
	s.end()
	a.drawFrame(s)
	p.leg.draw(s, a.right+12, a.top)
	return a.finish(s)
}

// thin returns sr with at most MaxPoints evenly spaced points (always
// keeping the last), noting the reduction in the caption.
func thin(sr Series, fig *Figure) Series {
	n := min(len(sr.X), len(sr.Y))
	if n <= MaxPoints {
		return sr
	}
	pick := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, MaxPoints)
		for k := range out {
			j := k * (n - 1) / (MaxPoints - 1)
			if j < len(v) {
				out[k] = v[j]
			} else {
				out[k] = math.NaN()
			}
		}
		return out
	}
	t := sr
	t.X, t.Y = pick(sr.X), pick(sr.Y)
	if sr.Band != nil {
		t.Band = &Band{Lo: pick(sr.Band.Lo), Hi: pick(sr.Band.Hi)}
	}
	addCaption(fig, fmt.Sprintf("%s: %d of %d points", orUnnamed(sr.Name), MaxPoints, n))
	return t
}

func orUnnamed(name string) string {
	if name == "" {
		return "series"
	}
	return name
}

// bandValue returns the band bounds at i, if usable on a.
func bandValue(a *axes, sr Series, i int) (lo, hi float64, ok bool) {
	b := sr.Band
	if b == nil || i >= len(b.Lo) || i >= len(b.Hi) || i >= len(sr.X) || !a.x.ok(sr.X[i]) ||
		!a.y.ok(b.Lo[i]) || !a.y.ok(b.Hi[i]) {
		return 0, 0, false
	}
	return b.Lo[i], b.Hi[i], true
}

// bandPath returns the outline of the series band: one closed sub-path per
// run of usable points.
func bandPath(a *axes, sr Series) string {
	var d strings.Builder
	var run []int
	flush := func() {
		if len(run) > 1 {
			for k, i := range run {
				_, hi, _ := bandValue(a, sr, i)
				cmd := "L"
				if k == 0 {
					cmd = "M"
				}
				d.WriteString(cmd + num(a.x.pos(sr.X[i])) + " " + num(a.y.pos(hi)))
			}
			for k := len(run) - 1; k >= 0; k-- {
				i := run[k]
				lo, _, _ := bandValue(a, sr, i)
				d.WriteString("L" + num(a.x.pos(sr.X[i])) + " " + num(a.y.pos(lo)))
			}
			d.WriteString("Z")
		}
		run = run[:0]
	}
	if sr.Band == nil {
		return ""
	}
	for i := range sr.X {
		if _, _, ok := bandValue(a, sr, i); ok {
			run = append(run, i)
		} else {
			flush()
		}
	}
	flush()
	return d.String()
}

// errorBarPath returns vertical error bars with caps for the series band.
func errorBarPath(a *axes, sr Series) string {
	var d strings.Builder
	for i := range sr.X {
		lo, hi, ok := bandValue(a, sr, i)
		if !ok {
			continue
		}
		x, ylo, yhi := a.x.pos(sr.X[i]), a.y.pos(lo), a.y.pos(hi)
		fmt.Fprintf(&d, "M%s %sV%sM%s %sh6M%s %sh6", num(x), num(ylo), num(yhi),
			num(x-3), num(ylo), num(x-3), num(yhi))
	}
	return d.String()
}
