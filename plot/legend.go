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

// box is an axis-aligned pixel rectangle used to keep the legend off data.
type box struct{ x0, y0, x1, y1 float64 }

func overlap(a, b box) float64 {
	w := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
	h := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// placeInside returns the top-left corner of the legend inside the plot area
// at the place that covers the least of the obstacles, trying the corners
// first (top-right, top-left, bottom-right, bottom-left), then the middles
// of the edges and the centre.
func (l *legend) placeInside(a *axes, obstacles []box) (float64, float64) {
	const inset = 8
	w, h := l.width(), l.height()
	xl, xc, xr := a.left+inset, (a.left+a.right-w)/2, a.right-inset-w
	yt, yc, yb := a.top+inset, (a.top+a.bottom-h)/2, a.bottom-inset-h
	corners := [][2]float64{
		{xr, yt}, {xl, yt}, {xr, yb}, {xl, yb},
		{xr, yc}, {xl, yc}, {xc, yt}, {xc, yb}, {xc, yc},
	}
	best, bestScore := 0, math.Inf(1)
	for i, c := range corners {
		b := box{c[0], c[1], c[0] + w, c[1] + h}
		score := 0.0
		for _, o := range obstacles {
			score += overlap(b, o)
		}
		if score < bestScore-1e-9 {
			best, bestScore = i, score
		}
	}
	return corners[best][0], corners[best][1]
}

// pointBox is the obstacle for a data point at (x, y).
func pointBox(x, y float64) box { return box{x - 2, y - 2, x + 2, y + 2} }

// segmentBoxes adds obstacles along the segment (x0,y0)-(x1,y1).
func segmentBoxes(obs []box, x0, y0, x1, y1 float64) []box {
	n := int(math.Min(50, math.Hypot(x1-x0, y1-y0)/6)) + 1
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		obs = append(obs, pointBox(x0+(x1-x0)*t, y0+(y1-y0)*t))
	}
	return obs
}
