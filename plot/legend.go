package plot

import "math"

// legendEntry is one legend row: a swatch drawn by draw (nil for a text-only
// row) centred vertically on y, starting at x, and a label.
type legendEntry struct {
	label string
	draw  func(s *svg, x, y float64)
}

const (
	legendRow    = 16.0
	legendSwatch = 22.0
	legendPad    = 6.0
	legendGap    = 6.0
)

func rectSwatch(fill, extra string) func(s *svg, x, y float64) {
	return func(s *svg, x, y float64) {
		s.rect(x+4, y-5, legendSwatch-8, 10, ` fill="`+fill+`"`+extra)
	}
}

func lineSwatch(stroke string, width float64, dashed, marker bool) func(s *svg, x, y float64) {
	return func(s *svg, x, y float64) {
		extra := ""
		if dashed {
			extra = ` stroke-dasharray="5 3"`
		}
		s.line(x, y, x+legendSwatch, y, stroke, width, extra)
		if marker {
			s.printf(`<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(x+legendSwatch/2), num(y), stroke)
		}
	}
}

// legend is a laid-out set of entries in one or more columns.
type legend struct {
	entries    []legendEntry
	rows, cols int
	colW       float64
}

// newLegend lays out entries in columns of at most maxH pixels height.
func newLegend(entries []legendEntry, maxH float64) *legend {
	if len(entries) == 0 {
		return nil
	}
	l := &legend{entries: entries}
	l.rows = max(1, int((maxH-2*legendPad)/legendRow))
	l.rows = min(l.rows, len(entries))
	l.cols = (len(entries) + l.rows - 1) / l.rows
	l.rows = (len(entries) + l.cols - 1) / l.cols
	for _, e := range entries {
		w := textWidth(e.label, legendSize)
		if e.draw != nil {
			w += legendSwatch + legendGap
		}
		l.colW = math.Max(l.colW, w+10)
	}
	return l
}

func (l *legend) width() float64 {
	if l == nil {
		return 0
	}
	return float64(l.cols)*l.colW + 2*legendPad - 10
}

func (l *legend) height() float64 {
	if l == nil {
		return 0
	}
	return float64(l.rows)*legendRow + 2*legendPad
}

// draw draws the legend with its top-left corner at (x, y).
func (l *legend) draw(s *svg, x, y float64) {
	if l == nil {
		return
	}
	s.group("legend", "")
	s.rect(x, y, l.width(), l.height(), ` fill="#ffffff" fill-opacity="0.9" stroke="#cccccc" stroke-width="1" rx="3"`)
	for i, e := range l.entries {
		cx := x + legendPad + float64(i/l.rows)*l.colW
		cy := y + legendPad + (float64(i%l.rows)+0.5)*legendRow
		tx := cx
		if e.draw != nil {
			e.draw(s, cx, cy)
			tx += legendSwatch + legendGap
		}
		s.text(tx, cy+legendSize*0.35, legendSize, "start", ` fill="`+inkColor+`"`, e.label)
	}
	s.end()
}

// box is an axis-aligned pixel rectangle.
type box struct{ x0, y0, x1, y1 float64 }
