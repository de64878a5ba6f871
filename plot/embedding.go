package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Points is a 2-D point cloud; Class[i] is the class index of point i
// (points without a class, or with a negative one, are drawn grey).
type Points struct {
	X, Y  []float64
	Class []int
}

// Region is a grid of predicted classes over [X0,X1]×[Y0,Y1], divided into
// NX columns and NY rows of equal cells. Class is row-major starting at
// (X0,Y0): Class[j*NX+i] is the class of the cell in column i (from X0) and
// row j (from Y0). Negative classes are left blank. Cells are drawn as light
// tints of the class colours, merging horizontal runs of the same class.
//
// With Classify set, Embedding fills the grid itself: it calls Classify
// once with the centres of NX×NY cells over the plot's final axes (which
// reach beyond the data to keep the aspect ratio and show the ellipses),
// so the regions fill the plot; X0..Y1 then only widen the axes and Class
// is not read. Classify returns the class of each centre (x[k], y[k]), or
// nil to leave the regions out.
type Region struct {
	X0, X1, Y0, Y1 float64
	NX, NY         int
	Class          []int
	Classify       func(x, y []float64) []int
}

// Ellipse is a closed contour of a class Gaussian (e.g. its 90% ellipse),
// drawn as a dashed line in the class colour.
type Ellipse struct {
	Class  int
	Points [][2]float64
}

// Mean is a class mean, drawn as a cross in the class colour with a dark
// outline.
type Mean struct {
	Class int
	X, Y  float64
}

// maxLegendClasses is the largest number of classes listed in a legend;
// beyond it the legend is replaced by a note in the caption.
const maxLegendClasses = 40

// Embedding draws a 2-D embedding: points coloured by class over optional
// decision regions, with optional class Gaussian contours and means.
// classNames[c] names class c in the legend (missing names print the index).
// Both axes use the same scale so that distances and ellipse shapes are
// faithful, unless fig.XLim or fig.YLim fix the ranges or the two data
// ranges differ so much (over 4:1 relative to the plot area) that one
// direction would be squashed.
func Embedding(fig Figure, pts Points, regions *Region, ellipses []Ellipse, means []Mean, classNames []string) []byte {
	w, h := fig.size(680, 560)
	n := min(len(pts.X), len(pts.Y))
	class := func(i int) int {
		if i < len(pts.Class) {
			return pts.Class[i]
		}
		return -1
	}
	var idx []int
	for i := range n {
		if finite(pts.X[i]) && finite(pts.Y[i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) > MaxPoints {
		sub := make([]int, MaxPoints)
		for k := range sub {
			sub[k] = idx[k*len(idx)/MaxPoints]
		}
		addCaption(&fig, fmt.Sprintf("showing %d of %d points", MaxPoints, len(idx)))
		idx = sub
	}

	// Data ranges and the number of classes.
	ex, ey := extent{}, extent{}
	nClasses := len(classNames)
	useClass := func(c int) { nClasses = max(nClasses, c+1) }
	for _, i := range idx {
		ex.add(pts.X[i])
		ey.add(pts.Y[i])
		useClass(class(i))
	}
	for _, e := range ellipses {
		useClass(e.Class)
		for _, p := range e.Points {
			if finite(p[0]) && finite(p[1]) {
				ex.add(p[0])
				ey.add(p[1])
			}
		}
	}
	for _, m := range means {
		useClass(m.Class)
		if finite(m.X) && finite(m.Y) {
			ex.add(m.X)
			ey.add(m.Y)
		}
	}
	reg := validRegion(regions)
	if reg != nil {
		for _, c := range reg.Class[:reg.NX*reg.NY] {
			useClass(c)
		}
	}
	x0, x1 := ex.padded(0.05)
	y0, y1 := ey.padded(0.05)
	if reg != nil {
		if ex.n == 0 {
			x0, x1, y0, y1 = reg.X0, reg.X1, reg.Y0, reg.Y1
		}
		x0, x1 = math.Min(x0, reg.X0), math.Max(x1, reg.X1)
		y0, y1 = math.Min(y0, reg.Y0), math.Max(y1, reg.Y1)
	}
	lx0, lx1, fixX := lim(fig.XLim, false)
	if fixX {
		x0, x1 = lx0, lx1
	}
	ly0, ly1, fixY := lim(fig.YLim, false)
	if fixY {
		y0, y1 = ly0, ly1
	}

	// Legend: one row per class, plus keys for the means and contours.
	var entries []legendEntry
	if nClasses > maxLegendClasses {
		addCaption(&fig, strconv.Itoa(nClasses)+" classes")
	} else if nClasses > 1 || len(classNames) > 0 {
		for c := range nClasses {
			name := strconv.Itoa(c)
			if c < len(classNames) && classNames[c] != "" {
				name = classNames[c]
			}
			entries = append(entries, legendEntry{name, rectSwatch(Color(c), "")})
		}
	}
	if len(means) > 0 {
		entries = append(entries, legendEntry{"class mean", func(s *svg, x, y float64) {
			s.printf(`<path d="%s" fill="#bbbbbb" stroke="%s" stroke-width="1"/>`+"\n", crossPath(x+legendSwatch/2, y, 6, 1.8), inkColor)
		}})
	}
	if len(ellipses) > 0 {
		entries = append(entries, legendEntry{"Gaussian contour", lineSwatch(mutedColor, 1.6, true, false)})
	}
	leg := newLegend(entries, h-70)
	legW := 0.0
	if leg != nil {
		legW = leg.width() + 12
	}
	a := newAxes(fig, w, h, x0, x1, y0, y1, false, false, legW, !fixX && !fixY)
	if reg != nil && reg.Classify != nil {
		reg = classifyGrid(reg, a.x.lo, a.x.hi, a.y.lo, a.y.hi)
	}

	s := newSVG(w, h)
	a.drawBack(s, reg == nil)
	if reg != nil {
		drawRegion(s, a, reg)
	}
	r := 3.2
	if len(idx) > 1500 {
		r = 1.7
	} else if len(idx) > 300 {
		r = 2.4
	}
	s.group("points", clip()+` fill-opacity="0.8"`)
	for _, i := range idx {
		s.printf(`<circle cx="%s" cy="%s" r="%s" fill="%s"/>`+"\n",
			num1(a.x.pos(pts.X[i])), num1(a.y.pos(pts.Y[i])), num(r), Color(class(i)))
	}
	s.end()
	s.group("ellipses", clip()+` fill="none" stroke-width="1.8" stroke-dasharray="6 4"`)
	for _, e := range ellipses {
		var d strings.Builder
		for _, p := range e.Points {
			if !finite(p[0]) || !finite(p[1]) {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			d.WriteString(cmd + num(a.x.pos(p[0])) + " " + num(a.y.pos(p[1])))
		}
		if d.Len() > 0 {
			s.printf(`<path d="%sZ" stroke="%s"/>`+"\n", d.String(), Color(e.Class))
		}
	}
	s.end()
	size := 8.0
	if len(means) > 20 {
		size = 5.5
	}
	s.group("means", clip()+` stroke="`+inkColor+`" stroke-width="1.2"`)
	for _, m := range means {
		if finite(m.X) && finite(m.Y) {
			s.printf(`<path d="%s" fill="%s"/>`+"\n", crossPath(a.x.pos(m.X), a.y.pos(m.Y), size, size*0.28), Color(m.Class))
		}
	}
	s.end()
	a.drawFrame(s)
	leg.draw(s, a.right+12, a.top)
	return a.finish(s)
}

// validRegion returns r if it describes a usable grid, padding a short
// Class slice with blanks; otherwise nil.
func validRegion(r *Region) *Region {
	if r == nil || r.NX <= 0 || r.NY <= 0 || r.NX*r.NY > 1<<24 ||
		!finite(r.X0) || !finite(r.X1) || !finite(r.Y0) || !finite(r.Y1) ||
		!(r.X1 > r.X0) || !(r.Y1 > r.Y0) {
		return nil
	}
	c := *r
	if len(c.Class) < c.NX*c.NY {
		c.Class = append(append([]int(nil), c.Class...), make([]int, c.NX*c.NY-len(c.Class))...)
		for i := len(r.Class); i < len(c.Class); i++ {
			c.Class[i] = -1
		}
	}
	return &c
}

// classifyGrid returns r's grid over [x0,x1]×[y0,y1], classified by
// r.Classify, or nil when that fails.
func classifyGrid(r *Region, x0, x1, y0, y1 float64) *Region {
	n := r.NX * r.NY
	xs, ys := make([]float64, 0, n), make([]float64, 0, n)
	for j := range r.NY {
		for i := range r.NX {
			xs = append(xs, x0+(float64(i)+0.5)*(x1-x0)/float64(r.NX))
			ys = append(ys, y0+(float64(j)+0.5)*(y1-y0)/float64(r.NY))
		}
	}
	class := r.Classify(xs, ys)
	if len(class) != n {
		return nil
	}
	return &Region{X0: x0, X1: x1, Y0: y0, Y1: y1, NX: r.NX, NY: r.NY, Class: class}
}

// drawRegion draws the decision regions as light rectangles, one per
// horizontal run of equal classes.
func drawRegion(s *svg, a *axes, r *Region) {
	s.group("regions", clip()+` shape-rendering="crispEdges"`)
	dx, dy := (r.X1-r.X0)/float64(r.NX), (r.Y1-r.Y0)/float64(r.NY)
	for j := range r.NY {
		ya, yb := a.y.pos(r.Y0+float64(j)*dy), a.y.pos(r.Y0+float64(j+1)*dy)
		row := r.Class[j*r.NX : (j+1)*r.NX]
		for i := 0; i < r.NX; {
			k := i + 1
			for k < r.NX && row[k] == row[i] {
				k++
			}
			if c := row[i]; c >= 0 {
				xa, xb := a.x.pos(r.X0+float64(i)*dx), a.x.pos(r.X0+float64(k)*dx)
				s.rect(xa, math.Min(ya, yb), xb-xa, math.Abs(yb-ya), ` fill="`+tint(Color(c), 0.78)+`"`)
			}
			i = k
		}
	}
	s.end()
}

// crossPath returns the outline of an X-shaped marker centred at (x, y) with
// arms of half-length l and half-thickness t.
func crossPath(x, y, l, t float64) string {
	// A plus sign outline, rotated by 45 degrees.
	plus := [][2]float64{
		{t, t}, {t, l}, {-t, l}, {-t, t}, {-l, t}, {-l, -t},
		{-t, -t}, {-t, -l}, {t, -l}, {t, -t}, {l, -t}, {l, t},
	}
	c := math.Sqrt2 / 2
	var d strings.Builder
	for i, p := range plus {
		px, py := (p[0]-p[1])*c, (p[0]+p[1])*c
		if i == 0 {
			d.WriteString("M")
		} else {
			d.WriteString("L")
		}
		d.WriteString(num(x+px) + " " + num(y+py))
	}
	d.WriteString("Z")
	return d.String()
}
