package plot

import (
	"fmt"
	"math"
	"slices"
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
// row j (from Y0). Negative classes are left blank. The regions are drawn as
// light tints of the class colours, as polygons whose edges join the
// boundaries found on the rows' centre lines, so that a straight boundary
// is drawn straight rather than as a staircase of cells.
//
// With Classify set, Embedding fills the grid itself: it calls Classify
// with the centres of NX×NY cells over the plot's final axes (which reach
// beyond the data to keep the aspect ratio and show the ellipses), so the
// regions fill the plot, then a few more times with points between
// neighbouring cells of different classes, to place each boundary within
// a small fraction of a cell; X0..Y1 then only widen the axes and Class is
// not read. Classify returns the class of each point (x[k], y[k]), or nil
// to leave the regions out.
//
// With Density set, Embedding also shades the plot by the values Density
// returns at the same cell centres (a log density, such as the LDA head's
// log p(z) = logsumexp_c delta_c(z)): a colour ramp from white at
// DensityRange below the largest value to dark at the largest, with a
// "log density" key in the legend, under the decision regions (then drawn
// translucent). Its grid has densityRefine times as many columns and rows
// as the regions', to show a sharp peak. Density returns one value per
// point, or nil to leave the shading out.
type Region struct {
	X0, X1, Y0, Y1 float64
	NX, NY         int
	Class          []int
	Classify       func(x, y []float64) []int
	Density        func(x, y []float64) []float64
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
	capBase := fig.Caption
	if reg != nil && reg.Density != nil {
		entries = append(entries, densityLegend()...)
		addCaption(&fig, "shading: log density") // the axes keep room for the caption
	}
	leg := newLegend(entries, h-70)
	legW := 0.0
	if leg != nil {
		legW = leg.width() + 12
	}
	a := newAxes(fig, w, h, x0, x1, y0, y1, false, false, legW, !fixX && !fixY)
	var shade *shading
	if reg != nil && reg.Density != nil {
		fine := &Region{NX: densityRefine * reg.NX, NY: densityRefine * reg.NY}
		shade = newShading(reg.Density(cellCentres(fine, a.x.lo, a.x.hi, a.y.lo, a.y.hi)), fine.NX, fine.NY)
		if shade != nil {
			a.fig.Caption += fmt.Sprintf(" %.3g (largest) to %.3g", shade.max, shade.max-DensityRange)
		} else {
			a.fig.Caption = capBase
		}
	}
	if reg != nil && reg.Classify != nil {
		reg = classifyGrid(reg, a.x.lo, a.x.hi, a.y.lo, a.y.hi)
	}

	s := newSVG(w, h)
	a.drawBack(s, reg == nil && shade == nil)
	if shade != nil {
		shade.draw(s, a)
	}
	if reg != nil {
		drawRegion(s, a, regionPolygons(reg), shade != nil)
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
	// The contours on a white halo, then the means over them, each marker
	// shorter than its contour's longest radius: a tight Gaussian's contour
	// still shows around its mean instead of hiding under the marker.
	size := 8.0
	if len(means) > 20 {
		size = 5.5
	}
	paths := make(map[int]string, len(ellipses))
	radius := make(map[int]float64, len(ellipses))
	var classes []int
	for _, e := range ellipses {
		var d strings.Builder
		var px [][2]float64
		for _, p := range e.Points {
			if !finite(p[0]) || !finite(p[1]) {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			x, y := a.x.pos(p[0]), a.y.pos(p[1])
			px = append(px, [2]float64{x, y})
			d.WriteString(cmd + num(x) + " " + num(y))
		}
		if d.Len() == 0 {
			continue
		}
		if !slices.Contains(classes, e.Class) {
			classes = append(classes, e.Class)
		}
		paths[e.Class] += d.String() + "Z"
		radius[e.Class] = math.Max(radius[e.Class], longestRadius(px))
	}
	s.group("halos", clip()+` fill="none" stroke="#ffffff" stroke-width="3.6" stroke-opacity="0.85" stroke-linejoin="round"`)
	for _, c := range classes {
		s.printf(`<path d="%s"/>`+"\n", paths[c])
	}
	s.end()
	s.group("ellipses", clip()+` fill="none" stroke-width="1.8" stroke-dasharray="6 4" stroke-linejoin="round"`)
	for _, c := range classes {
		s.printf(`<path d="%s" stroke="%s"/>`+"\n", paths[c], Color(c))
	}
	s.end()
	s.group("means", clip()+` stroke="`+inkColor+`" stroke-width="1.2"`)
	for _, m := range means {
		if finite(m.X) && finite(m.Y) {
			l := size
			if r, ok := radius[m.Class]; ok {
				l = math.Max(3, math.Min(size, 0.5*r))
			}
			s.printf(`<path d="%s" fill="%s"/>`+"\n", crossPath(a.x.pos(m.X), a.y.pos(m.Y), l, l*0.28), Color(m.Class))
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
// r.Classify, or nil when that fails. The result keeps Classify, to refine
// the boundaries (regionPolygons).
func classifyGrid(r *Region, x0, x1, y0, y1 float64) *Region {
	class := r.Classify(cellCentres(r, x0, x1, y0, y1))
	if len(class) != r.NX*r.NY {
		return nil
	}
	return &Region{X0: x0, X1: x1, Y0: y0, Y1: y1, NX: r.NX, NY: r.NY, Class: class, Classify: r.Classify}
}

// cellCentres returns the centres of r's NX×NY cells over [x0,x1]×[y0,y1],
// row-major from (x0,y0).
func cellCentres(r *Region, x0, x1, y0, y1 float64) (xs, ys []float64) {
	n := r.NX * r.NY
	xs, ys = make([]float64, 0, n), make([]float64, 0, n)
	for j := range r.NY {
		for i := range r.NX {
			xs = append(xs, x0+(float64(i)+0.5)*(x1-x0)/float64(r.NX))
			ys = append(ys, y0+(float64(j)+0.5)*(y1-y0)/float64(r.NY))
		}
	}
	return xs, ys
}

// polygon is one decision region's outline in data coordinates.
type polygon struct {
	class  int
	points [][2]float64
}

// refineSteps is the number of bisection steps regionPolygons takes on
// each boundary with Classify: it places the boundary within 2^-10 of the
// distance between two cell centres.
const refineSteps = 10

// regionPolygons returns r's regions as polygons. On every row the cells
// form runs of one class; the boundary between two runs lies between the
// centres of their neighbouring cells, where Classify (if set) finds it by
// bisection, else at the cells' common edge. Consecutive rows with the
// same sequence of classes form a block, in which every run becomes one
// polygon through the boundaries at the rows' centres, continued in a
// straight line to the block's top and bottom edges: its edges follow the
// true boundary instead of the cells' staircase. Cells of a negative class
// are left out.
func regionPolygons(r *Region) []polygon {
	dx, dy := (r.X1-r.X0)/float64(r.NX), (r.Y1-r.Y0)/float64(r.NY)
	type run struct {
		class  int
		lo, hi float64 // x of its left and right boundary
	}
	rows := make([][]run, r.NY)
	// cross is a boundary to place: row j, between runs k and k+1, whose
	// left class is class, in (lo, hi).
	type cross struct {
		j, k, class int
		lo, hi      float64
	}
	var crosses []cross
	for j := range r.NY {
		row := r.Class[j*r.NX : (j+1)*r.NX]
		for i := 0; i < r.NX; {
			k := i + 1
			for k < r.NX && row[k] == row[i] {
				k++
			}
			rows[j] = append(rows[j], run{class: row[i], lo: r.X0 + float64(i)*dx, hi: r.X0 + float64(k)*dx})
			if k < r.NX {
				crosses = append(crosses, cross{j, len(rows[j]) - 1, row[i], r.X0 + (float64(k)-0.5)*dx, r.X0 + (float64(k)+0.5)*dx})
			}
			i = k
		}
	}
	if r.Classify != nil && len(crosses) > 0 {
		xs, ys := make([]float64, len(crosses)), make([]float64, len(crosses))
	refine:
		for range refineSteps {
			for n, c := range crosses {
				xs[n], ys[n] = (c.lo+c.hi)/2, r.Y0+(float64(c.j)+0.5)*dy
			}
			class := r.Classify(xs, ys)
			if len(class) != len(crosses) {
				break refine
			}
			for n := range crosses {
				if class[n] == crosses[n].class {
					crosses[n].lo = xs[n]
				} else {
					crosses[n].hi = xs[n]
				}
			}
		}
		for _, c := range crosses {
			x := (c.lo + c.hi) / 2
			rows[c.j][c.k].hi, rows[c.j][c.k+1].lo = x, x
		}
	}
	// extend continues the boundaries of run ru half a row away from its
	// neighbour row's run nb (the same run; ru itself for a block of one
	// row), within [x0, x1] and without crossing.
	extend := func(ru, nb run, x0, x1 float64) (lo, hi float64) {
		lo = min(max(ru.lo+(ru.lo-nb.lo)/2, x0), x1)
		hi = min(max(ru.hi+(ru.hi-nb.hi)/2, x0), x1)
		if lo > hi {
			lo = (lo + hi) / 2
			hi = lo
		}
		return lo, hi
	}
	same := func(a, b []run) bool {
		return slices.EqualFunc(a, b, func(p, q run) bool { return p.class == q.class })
	}
	var out []polygon
	for j0 := 0; j0 < r.NY; {
		j1 := j0 + 1
		for j1 < r.NY && same(rows[j1], rows[j0]) {
			j1++
		}
		bottom, top := r.Y0+float64(j0)*dy, r.Y0+float64(j1)*dy
		for k, ru := range rows[j0] {
			if ru.class < 0 {
				continue
			}
			// The run's ends at the block's bottom and top edges, half a row
			// beyond the first and last centres.
			loB, hiB := extend(rows[j0][k], rows[min(j0+1, j1-1)][k], r.X0, r.X1)
			loT, hiT := extend(rows[j1-1][k], rows[max(j1-2, j0)][k], r.X0, r.X1)
			pts := [][2]float64{{loB, bottom}}
			for j := j0; j < j1; j++ {
				pts = append(pts, [2]float64{rows[j][k].lo, r.Y0 + (float64(j)+0.5)*dy})
			}
			pts = append(pts, [2]float64{loT, top}, [2]float64{hiT, top})
			for j := j1 - 1; j >= j0; j-- {
				pts = append(pts, [2]float64{rows[j][k].hi, r.Y0 + (float64(j)+0.5)*dy})
			}
			pts = append(pts, [2]float64{hiB, bottom})
			out = append(out, polygon{ru.class, pts})
		}
		j0 = j1
	}
	return out
}

// drawRegion draws the decision regions as light polygons, outlined in
// their own tint so that no seam shows between neighbours; translucent
// lets a shading under them show through.
func drawRegion(s *svg, a *axes, polys []polygon, translucent bool) {
	extra := ""
	if translucent {
		extra = ` opacity="0.4"` // of the group as a whole: no seams where polygons meet
	}
	s.group("regions", clip()+` stroke-width="0.8" stroke-linejoin="round"`+extra)
	for _, p := range polys {
		var d strings.Builder
		for i, q := range p.points {
			if i == 0 {
				d.WriteString("M")
			} else {
				d.WriteString("L")
			}
			d.WriteString(num(a.x.pos(q[0])) + " " + num(a.y.pos(q[1])))
		}
		t := tint(Color(p.class), 0.78)
		s.printf(`<path d="%sZ" fill="%s" stroke="%s"/>`+"\n", d.String(), t, t)
	}
	s.end()
}

// longestRadius returns the largest distance of the points from their
// mean: an ellipse's semi-major axis.
func longestRadius(pts [][2]float64) float64 {
	var cx, cy float64
	for _, p := range pts {
		cx, cy = cx+p[0], cy+p[1]
	}
	cx, cy = cx/float64(len(pts)), cy/float64(len(pts))
	r := 0.0
	for _, p := range pts {
		r = math.Max(r, math.Hypot(p[0]-cx, p[1]-cy))
	}
	return r
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
