// Package plot builds small, dependency-free SVG figures for the Deep LDA
// trainer: embeddings coloured by class with decision regions and class
// Gaussians, training curves, calibration (reliability) diagrams,
// confidence histograms and hyper-parameter sweeps.
//
// Every function returns a complete SVG document with explicit width,
// height and viewBox. The output is deterministic: the same input always
// gives identical bytes. NaN and infinite values (and non-positive values on
// log axes) are skipped, and empty or degenerate inputs give an empty but
// valid figure instead of a panic.
package plot

import (
	"math"
	"strings"
)

// Figure holds the settings shared by all figure types. Zero values pick
// defaults: a size suited to the figure type, no title and no axis labels
// (the calibration figures label their axes themselves unless given labels).
type Figure struct {
	// Title goes on top, wrapped into lines (titleLines); a newline in
	// it starts a line.
	Title, XLabel, YLabel string
	// Width and Height are the size in pixels (CSS px).
	Width, Height int
	// LogX makes the x axis logarithmic (Lines; useful for sweeps).
	LogX bool
	// XLim and YLim fix the axis ranges when Lo < Hi ([0] is Lo, [1] Hi);
	// otherwise the range follows the data with a small margin.
	XLim, YLim [2]float64
	// Caption is an optional small note printed in the bottom-right corner.
	Caption string
	// IntegerX puts x ticks at whole numbers only, for counts such as
	// epochs, and gives a single x value a range one unit wide (Lines,
	// Stack).
	IntegerX bool
	// ZeroY stretches the y axis to zero when the data lie on one side of
	// it (Lines, Stack), so that small differences between large values do
	// not look large; YLim still wins.
	ZeroY bool

	// minLeft is the least left margin in pixels, and minLegend the least
	// room for a legend right of the plot area (Stack aligns its panels'
	// plot areas with them).
	minLeft, minLegend float64
}

// MaxPoints is the number of points above which Embedding (per figure) and
// Lines (per series) keep an evenly spaced deterministic subset, noting it
// in the caption.
const MaxPoints = 5000

// titleWidth is the widest a line of a title is drawn: a title starts at
// the figure's left edge and wraps at this width, so that it reads whole
// where the figure scrolls inside a phone's card (about 350 px of it in
// view) however wide the figure is.
const titleWidth = 330.0

const (
	titleSize  = 15.0
	titleLine  = 19.0 // the distance between a title's lines
	labelSize  = 13.0
	tickSize   = 11.0
	legendSize = 11.0
	capSize    = 11.0
	tickLen    = 4.0
	inkColor   = "#222222"
	gridColor  = "#e6e6e6"
	axisColor  = "#444444"
	mutedColor = "#666666"
)

// axes is the layout of one plot panel: figure size, plot area and scales.
type axes struct {
	fig                      Figure
	w, h                     float64
	left, top, right, bottom float64 // plot area edges in pixels
	x, y                     scale
	xt, yt                   []tick
	legendW                  float64 // width reserved right of the plot
}

// size returns the figure size with defaults and sane bounds.
func (f Figure) size(defW, defH int) (float64, float64) {
	w, h := f.Width, f.Height
	if w <= 0 {
		w = defW
	}
	if h <= 0 {
		h = defH
	}
	clamp := func(v int) float64 { return float64(min(max(v, 160), 8000)) }
	return clamp(w), clamp(h)
}

// lim returns the fixed limits in l when they are usable.
func lim(l [2]float64, log bool) (float64, float64, bool) {
	ok := finite(l[0]) && finite(l[1]) && l[0] < l[1] && (!log || l[0] > 0)
	return l[0], l[1], ok
}

// newAxes lays out a panel for data ranges [x0,x1]×[y0,y1]. legendW
// reserves room for a legend right of the plot area; equal forces the same
// data units per pixel on both axes (by widening one range).
func newAxes(fig Figure, w, h, x0, x1, y0, y1 float64, logX, logY bool, legendW float64, equal bool) *axes {
	a := &axes{fig: fig, w: w, h: h, legendW: legendW}
	a.x = scale{lo: x0, hi: x1, log: logX}
	a.y = scale{lo: y0, hi: y1, log: logY}
	base := a.x
	baseY := a.y
	// Margins depend on tick labels, which depend on the plot size; a few
	// rounds converge.
	for range 3 {
		a.top = 12
		if n := len(titleLines(fig.Title, w)); n > 0 {
			a.top = 14 + titleSize + float64(n-1)*titleLine + 8
		}
		a.bottom = h - (tickLen + 4 + tickSize + 8)
		if fig.XLabel != "" {
			a.bottom -= labelSize + 8
		}
		if fig.Caption != "" {
			a.bottom -= capSize + 4
		}
		yw := 0.0
		for _, t := range a.yt {
			yw = math.Max(yw, textWidth(t.label, tickSize))
		}
		a.left = 10 + yw + tickLen + 4
		if fig.YLabel != "" {
			a.left += labelSize + 8
		}
		a.left = math.Max(a.left, fig.minLeft)
		a.right = w - 16 - legendW
		// Leave room for half of the last x tick label.
		if n := len(a.xt); n > 0 {
			a.right = math.Min(a.right, w-4-textWidth(a.xt[n-1].label, tickSize)/2-legendW)
		}
		if a.right-a.left < 40 {
			a.right = a.left + 40
		}
		if a.bottom-a.top < 40 {
			a.bottom = a.top + 40
		}
		a.x, a.y = base, baseY
		if equal && !logX && !logY {
			a.equalize()
		}
		a.x.p0, a.x.p1 = a.left, a.right
		a.y.p0, a.y.p1 = a.bottom, a.top
		a.xt = axisTicks(a.x, max(3, int((a.right-a.left)/80)), fig.IntegerX)
		a.yt = axisTicks(a.y, max(3, int((a.bottom-a.top)/60)), false)
	}
	return a
}

// equalize widens the narrower data range so that both axes use the same
// data units per pixel, unless that would squash the data to less than a
// quarter of the plot area in one direction.
func (a *axes) equalize() {
	pw, ph := a.right-a.left, a.bottom-a.top
	ux, uy := (a.x.hi-a.x.lo)/pw, (a.y.hi-a.y.lo)/ph
	if ux > 4*uy || uy > 4*ux {
		return
	}
	if ux > uy {
		c, half := (a.y.lo+a.y.hi)/2, ux*ph/2
		a.y.lo, a.y.hi = c-half, c+half
	} else {
		c, half := (a.x.lo+a.x.hi)/2, uy*pw/2
		a.x.lo, a.x.hi = c-half, c+half
	}
}

// titleLines returns title in lines at most titleWidth wide (and no wider
// than a figure w wide allows), broken at its newlines and between words,
// but not inside a parenthesis that fits on a line; a word wider than
// that is a line of its own.
func titleLines(title string, w float64) []string {
	limit := math.Min(titleWidth, w-16)
	var lines []string
	for _, par := range strings.Split(title, "\n") {
		first := len(lines)
		for _, unit := range titleUnits(strings.Fields(par), limit) {
			if n := len(lines); n > first && textWidth(lines[n-1]+" "+unit, titleSize) <= limit {
				lines[n-1] += " " + unit
				continue
			}
			lines = append(lines, unit)
		}
	}
	return lines
}

// titleUnits joins the words of a parenthesis ("(10 bins)") into one unit
// that a line break does not cut, where it is at most limit wide.
func titleUnits(words []string, limit float64) []string {
	var units []string
	for i := 0; i < len(words); i++ {
		end := i
		if strings.HasPrefix(words[i], "(") {
			for end < len(words)-1 && !strings.Contains(words[end], ")") {
				end++
			}
		}
		if unit := strings.Join(words[i:end+1], " "); textWidth(unit, titleSize) <= limit {
			units, i = append(units, unit), end
			continue
		}
		units = append(units, words[i])
	}
	return units
}

// clip returns the attribute that clips an element to the plot area.
func clip() string { return ` clip-path="url(#` + clipToken + `)"` }

// drawBack draws the title (its titleLines, from the left edge) and, if
// grid is set, light grid lines at the labelled ticks.
func (a *axes) drawBack(s *svg, grid bool) {
	for i, line := range titleLines(a.fig.Title, a.w) {
		s.text(8, 12+titleSize+float64(i)*titleLine, titleSize, "start", ` class="title" font-weight="bold" fill="`+inkColor+`"`, line)
	}
	if !grid {
		return
	}
	s.group("grid", ` stroke="`+gridColor+`" stroke-width="1"`)
	for _, t := range a.xt {
		if t.label != "" {
			x := a.x.pos(t.v)
			s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x), num(a.top), num(x), num(a.bottom))
		}
	}
	for _, t := range a.yt {
		if t.label != "" {
			y := a.y.pos(t.v)
			s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(a.left), num(y), num(a.right), num(y))
		}
	}
	s.end()
}

// drawFrame draws the plot-area box, ticks, tick labels, axis labels and the
// caption.
func (a *axes) drawFrame(s *svg) {
	s.group("axes", ` fill="`+inkColor+`"`)
	s.rect(a.left, a.top, a.right-a.left, a.bottom-a.top, ` fill="none" stroke="`+axisColor+`" stroke-width="1"`)
	var p []byte
	for _, t := range a.xt {
		x, l := a.x.pos(t.v), tickLen
		if t.label == "" {
			l = tickLen / 2
		}
		p = append(p, "M"+num(x)+" "+num(a.bottom)+"v"+num(l)...)
	}
	for _, t := range a.yt {
		y, l := a.y.pos(t.v), tickLen
		if t.label == "" {
			l = tickLen / 2
		}
		p = append(p, "M"+num(a.left)+" "+num(y)+"h"+num(-l)...)
	}
	if len(p) > 0 {
		s.printf(`<path d="%s" stroke="%s" stroke-width="1" fill="none"/>`+"\n", p, axisColor)
	}
	for _, t := range a.xt {
		s.text(a.x.pos(t.v), a.bottom+tickLen+3+tickSize, tickSize, "middle", "", t.label)
	}
	for _, t := range a.yt {
		s.text(a.left-tickLen-3, a.y.pos(t.v)+tickSize*0.35, tickSize, "end", "", t.label)
	}
	if a.fig.XLabel != "" {
		s.text((a.left+a.right)/2, a.bottom+tickLen+4+tickSize+8+labelSize, labelSize, "middle", "", a.fig.XLabel)
	}
	if a.fig.YLabel != "" {
		x, y := 8+labelSize, (a.top+a.bottom)/2
		s.text(x, y, labelSize, "middle", ` transform="rotate(-90 `+num(x)+" "+num(y)+`)"`, a.fig.YLabel)
	}
	if a.fig.Caption != "" {
		s.text(a.w-6, a.h-6, capSize, "end", ` fill="`+mutedColor+`"`, a.fig.Caption)
	}
	s.end()
}

// finish completes the document with the plot area as clip rectangle.
func (a *axes) finish(s *svg) []byte {
	return s.finish(a.left, a.top, a.right-a.left, a.bottom-a.top)
}

// addCaption appends note to the figure caption.
func addCaption(fig *Figure, note string) {
	if fig.Caption == "" {
		fig.Caption = note
	} else {
		fig.Caption += "; " + note
	}
}
