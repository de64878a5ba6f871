package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// parse decodes the whole document and returns, per group class, the number
// of elements of each name inside it ("g.class/name"), plus the totals
// ("name").
func parse(t *testing.T, doc []byte) map[string]int {
	t.Helper()
	counts := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string // class of the innermost enclosing group with one
	root := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, head(doc))
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root {
				if el.Name.Local != "svg" {
					t.Fatalf("root element is %q", el.Name.Local)
				}
				var w, h, vb bool
				for _, at := range el.Attr {
					w = w || at.Name.Local == "width"
					h = h || at.Name.Local == "height"
					vb = vb || at.Name.Local == "viewBox"
				}
				if !w || !h || !vb {
					t.Fatalf("root lacks width/height/viewBox: %v", el.Attr)
				}
				root = false
			}
			cls := ""
			if len(stack) > 0 {
				cls = stack[len(stack)-1]
			}
			if cls != "" {
				counts["g."+cls+"/"+el.Name.Local]++
			}
			counts[el.Name.Local]++
			if el.Name.Local == "g" {
				for _, at := range el.Attr {
					if at.Name.Local == "class" {
						cls = at.Value
					}
				}
			}
			stack = append(stack, cls)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root {
		t.Fatal("empty document")
	}
	return counts
}

func head(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// sample returns small deterministic test inputs.
func sample() (Points, *Region, []Ellipse, []Mean) {
	var pts Points
	for c := range 3 {
		for i := range 20 {
			a := float64(i) * 0.7
			pts.X = append(pts.X, float64(c)*3+math.Cos(a)*(0.5+float64(i%5)*0.2))
			pts.Y = append(pts.Y, float64(c%2)*2+math.Sin(a)*(0.4+float64(i%3)*0.3))
			pts.Class = append(pts.Class, c)
		}
	}
	reg := &Region{X0: -2, X1: 9, Y0: -2, Y1: 4, NX: 44, NY: 24}
	for range reg.NY {
		for i := range reg.NX {
			x := reg.X0 + (float64(i)+0.5)*(reg.X1-reg.X0)/float64(reg.NX)
			reg.Class = append(reg.Class, min(2, max(0, int((x+1.5)/3))))
		}
	}
	var ells []Ellipse
	var means []Mean
	for c := range 3 {
		cx, cy := float64(c)*3, float64(c%2)*2
		var e Ellipse
		e.Class = c
		for k := range 48 {
			a := 2 * math.Pi * float64(k) / 48
			e.Points = append(e.Points, [2]float64{cx + 1.3*math.Cos(a), cy + 0.9*math.Sin(a)})
		}
		ells = append(ells, e)
		means = append(means, Mean{c, cx, cy})
	}
	return pts, reg, ells, means
}

func sampleBins() []Bin {
	var bins []Bin
	for i := range 10 {
		lo := float64(i) / 10
		conf := lo + 0.05
		acc := math.Max(0, conf-0.08*conf)
		bins = append(bins, Bin{Lo: lo, Hi: lo + 0.1, Accuracy: acc, Confidence: conf, Count: (i + 1) * (i + 1) * 10})
	}
	bins[0].Count = 0
	return bins
}

func sampleSeries() []Series {
	var tr, va Series
	tr.Name, va.Name, va.Dashed = "train loss", "val loss", true
	for e := 1; e <= 30; e++ {
		tr.X = append(tr.X, float64(e))
		tr.Y = append(tr.Y, 2.3*math.Exp(-float64(e)/6)+0.05)
		va.X = append(va.X, float64(e))
		va.Y = append(va.Y, 2.3*math.Exp(-float64(e)/7)+0.15)
	}
	return []Series{tr, va}
}

func sampleSweep() []Series {
	acc := Series{Name: "accuracy", Markers: true, Band: &Band{}}
	ece := Series{Name: "ECE", Markers: true, Dashed: true, Band: &Band{}}
	for k := -3; k <= 1; k++ {
		x := math.Pow(10, float64(k))
		m := 0.9 - 0.05*math.Abs(float64(k)+1)
		acc.X, acc.Y = append(acc.X, x), append(acc.Y, m)
		acc.Band.Lo, acc.Band.Hi = append(acc.Band.Lo, m-0.03), append(acc.Band.Hi, m+0.03)
		e := 0.02 + 0.01*math.Abs(float64(k))
		ece.X, ece.Y = append(ece.X, x), append(ece.Y, e)
		ece.Band.Lo, ece.Band.Hi = append(ece.Band.Lo, e-0.01), append(ece.Band.Hi, e+0.01)
	}
	return []Series{acc, ece}
}

// figures renders one of each figure type.
func figures() map[string][]byte {
	pts, reg, ells, means := sample()
	bins := sampleBins()
	return map[string][]byte{
		"embedding": Embedding(Figure{Title: "Embedding (test set)", XLabel: "z₁", YLabel: "z₂"},
			pts, reg, ells, means, []string{"airplane", "automobile", "bird"}),
		"embedding_plain": Embedding(Figure{Title: "No regions"}, pts, nil, ells, means, nil),
		"lines":           Lines(Figure{Title: "Training curves", XLabel: "epoch", YLabel: "loss"}, sampleSeries(), true),
		"sweep":           Lines(Figure{Title: "Sweep over λ", XLabel: "λ", YLabel: "value", LogX: true}, sampleSweep(), false),
		"reliability":     Reliability(Figure{Title: "Reliability diagram"}, bins, 0.0423),
		"histogram":       ConfidenceHistogram(Figure{Title: "Confidence histogram"}, bins, 0.912, 0.953),
	}
}

func TestFiguresParseAndCount(t *testing.T) {
	figs := figures()
	for name, doc := range figs {
		t.Run(name, func(t *testing.T) { parse(t, doc) })
	}
	c := parse(t, figs["embedding"])
	if got := c["g.points/circle"]; got != 60 {
		t.Errorf("embedding: %d circles, want 60", got)
	}
	if got := c["g.ellipses/path"]; got != 3 {
		t.Errorf("embedding: %d ellipse paths, want 3", got)
	}
	if got := c["g.means/path"]; got != 3 {
		t.Errorf("embedding: %d mean markers, want 3", got)
	}
	// Three vertical class bands: one polygon each.
	if got := c["g.regions/path"]; got != 3 {
		t.Errorf("embedding: %d region polygons, want 3", got)
	}
	if got := c["g.legend/text"]; got != 5 {
		t.Errorf("embedding: %d legend labels, want 5", got)
	}
	c = parse(t, figs["lines"])
	if got := c["g.series/path"]; got != 2 {
		t.Errorf("lines: %d series paths, want 2", got)
	}
	c = parse(t, figs["sweep"])
	if got := c["g.bands/path"]; got != 2 {
		t.Errorf("sweep: %d bands, want 2", got)
	}
	if got := c["g.markers/circle"]; got != 10 {
		t.Errorf("sweep: %d markers, want 10", got)
	}
	c = parse(t, figs["reliability"])
	if got := c["g.bars/rect"]; got != 9 {
		t.Errorf("reliability: %d bars, want 9 (one per non-empty bin)", got)
	}
	if got := c["g.gaps/rect"]; got != 9 {
		t.Errorf("reliability: %d gap rects, want 9", got)
	}
	if !bytes.Contains(figs["reliability"], []byte("ECE = 4.23%")) {
		t.Error("reliability: ECE missing, or not in percent")
	}
	c = parse(t, figs["histogram"])
	if got := c["g.bars/rect"]; got != 9 {
		t.Errorf("histogram: %d bars, want 9", got)
	}
	if got := c["g.markers/line"]; got != 2 {
		t.Errorf("histogram: %d vertical lines, want 2", got)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := figures(), figures()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s: output differs between calls", name)
		}
	}
}

func TestUniqueClipIDs(t *testing.T) {
	a := Lines(Figure{Title: "a"}, sampleSeries(), false)
	b := Lines(Figure{Title: "b"}, sampleSeries(), false)
	id := func(doc []byte) string {
		s := string(doc)
		i := strings.Index(s, `clipPath id="`)
		return s[i : i+40]
	}
	if id(a) == id(b) {
		t.Errorf("different figures share clip id %s", id(a))
	}
}

func TestEscaping(t *testing.T) {
	title := `a<b & c>d "q" 'x'` + "\x01"
	for name, doc := range map[string][]byte{
		"embedding":   Embedding(Figure{Title: title, XLabel: "<x>"}, Points{X: []float64{1}, Y: []float64{2}, Class: []int{0}}, nil, nil, nil, []string{"<&>"}),
		"lines":       Lines(Figure{Title: title}, []Series{{Name: "<&>", X: []float64{1, 2}, Y: []float64{1, 2}}}, false),
		"reliability": Reliability(Figure{Title: title}, sampleBins(), 0.1),
		"histogram":   ConfidenceHistogram(Figure{Title: title}, sampleBins(), 0.5, 0.6),
	} {
		parse(t, doc)
		if !bytes.Contains(doc, []byte("a&lt;b &amp; c&gt;d")) {
			t.Errorf("%s: escaped title missing", name)
		}
	}
}

func TestDegenerateInputs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	docs := [][]byte{
		Embedding(Figure{}, Points{}, nil, nil, nil, nil),
		Embedding(Figure{}, Points{X: []float64{1}, Y: []float64{1}}, nil, nil, nil, nil),
		Embedding(Figure{}, Points{X: []float64{1, 1, 1}, Y: []float64{2, 2, 2}, Class: []int{0, 1}}, nil, nil, nil, nil),
		Embedding(Figure{}, Points{X: []float64{nan, inf, 3}, Y: []float64{1, 2}, Class: []int{-1, 5, 2}},
			&Region{X0: 0, X1: 1, Y0: 0, Y1: 1, NX: 3, NY: 2, Class: []int{1}}, []Ellipse{{Class: 1}, {Class: 2, Points: [][2]float64{{nan, 1}}}},
			[]Mean{{Class: 0, X: nan}}, nil),
		Embedding(Figure{Width: -5, Height: 3}, Points{}, &Region{X0: 1, X1: 0}, nil, nil, nil),
		Embedding(Figure{}, Points{}, &Region{X0: 0, X1: 1, Y0: 0, Y1: 1, NX: 2, NY: 2, Class: []int{0, 1, 1, 0}}, nil, nil, nil),
		Lines(Figure{}, nil, false),
		Lines(Figure{}, nil, true),
		Lines(Figure{LogX: true}, []Series{{}}, true),
		Lines(Figure{}, []Series{{Name: "one", X: []float64{1}, Y: []float64{1}}}, false),
		Lines(Figure{}, []Series{{Name: "flat", X: []float64{0, 1, 2}, Y: []float64{0, 0, 0}}}, false),
		Lines(Figure{}, []Series{{Name: "neg", X: []float64{0, 1, 2}, Y: []float64{-1, 0, 1}}}, true),
		Lines(Figure{LogX: true}, []Series{{Name: "bad", X: []float64{nan, -1, 0, inf}, Y: []float64{1, 2, 3, 4},
			Markers: true, Band: &Band{Lo: []float64{1}}}}, false),
		Lines(Figure{XLim: [2]float64{5, 1}, YLim: [2]float64{0, 1}}, sampleSeries(), false),
		Reliability(Figure{}, nil, nan),
		Reliability(Figure{}, []Bin{{Lo: 0, Hi: 0, Count: 3}, {Lo: nan, Hi: 1, Count: 1}, {Lo: 0, Hi: 1, Accuracy: nan, Count: 2}}, inf),
		ConfidenceHistogram(Figure{}, nil, nan, nan),
		ConfidenceHistogram(Figure{}, []Bin{{Lo: 0.5, Hi: 0.6, Count: 0}}, 2, -1),
	}
	for i, doc := range docs {
		c := parse(t, doc)
		if c["text"] == 0 && c["line"] == 0 && c["path"] == 0 {
			t.Errorf("doc %d draws nothing: %s", i, head(doc))
		}
	}
}

func TestDownsample(t *testing.T) {
	n := 3 * MaxPoints
	pts := Points{X: make([]float64, n), Y: make([]float64, n), Class: make([]int, n)}
	for i := range n {
		pts.X[i], pts.Y[i], pts.Class[i] = math.Sin(float64(i)), math.Cos(float64(i)*1.3), i%100
	}
	doc := Embedding(Figure{}, pts, nil, nil, nil, nil)
	c := parse(t, doc)
	if c["g.points/circle"] != MaxPoints {
		t.Errorf("%d circles, want %d", c["g.points/circle"], MaxPoints)
	}
	if !bytes.Contains(doc, []byte("showing 5000 of 15000 points")) || !bytes.Contains(doc, []byte("100 classes")) {
		t.Error("caption missing")
	}
	long := Series{Name: "loss", X: pts.X[:n], Y: pts.Y[:n]}
	for i := range long.X {
		long.X[i] = float64(i)
	}
	doc = Lines(Figure{}, []Series{long}, false)
	parse(t, doc)
	if !bytes.Contains(doc, []byte("loss: 5000 of 15000 points")) {
		t.Error("lines caption missing")
	}
}

func labels(ticks []tick) []string {
	var out []string
	for _, t := range ticks {
		if t.label != "" {
			out = append(out, t.label)
		}
	}
	return out
}

func TestTicks(t *testing.T) {
	cases := []struct {
		name string
		got  []tick
		want string
	}{
		{"log 1e-3..10", logTicks(1e-3, 10, 6), "0.001 0.01 0.1 1 10"},
		{"log 0.1..10", logTicks(0.1, 10, 6), "0.1 0.2 0.5 1 2 5 10"},
		{"log wide", logTicks(1e-6, 1e6, 5), "1e-6 0.001 1 1000 1e6"},
		{"log narrow", logTicks(2, 9, 5), "2 3 4 5 6 7 8 9"},
		{"linear 0..1", linearTicks(0, 1, 5, false), "0.0 0.2 0.4 0.6 0.8 1.0"},
		{"linear -3..7", linearTicks(-3.2, 7.1, 5, false), "-2 0 2 4 6"},
		{"linear 0..0.003", linearTicks(0, 0.003, 3, false), "0.000 0.001 0.002 0.003"},
		{"linear big", linearTicks(0, 40000, 4, false), "0 10000 20000 30000 40000"},
		{"integer 0.92..5.08", linearTicks(0.92, 5.08, 8, true), "1 2 3 4 5"},
		{"integer 0.5..1.5", linearTicks(0.5, 1.5, 8, true), "1"},
		{"integer 0..100", linearTicks(0, 100, 5, true), "0 20 40 60 80 100"},
	}
	for _, c := range cases {
		if got := strings.Join(labels(c.got), " "); got != c.want {
			t.Errorf("%s: ticks %q, want %q", c.name, got, c.want)
		}
	}
	doc := Lines(Figure{}, []Series{{X: []float64{1, 2, 3}, Y: []float64{1e-3, 0.5, 10}}}, true)
	for _, l := range []string{">0.001<", ">0.01<", ">0.1<", ">1<", ">10<"} {
		if !bytes.Contains(doc, []byte(l)) {
			t.Errorf("log-y figure lacks tick label %s", l)
		}
	}
}

func TestColors(t *testing.T) {
	seen := map[string]bool{}
	for i := range 100 {
		c := Color(i)
		if len(c) != 7 || c[0] != '#' {
			t.Fatalf("Color(%d) = %q", i, c)
		}
		seen[c] = true
	}
	if len(seen) != 100 {
		t.Errorf("only %d distinct colours among 100", len(seen))
	}
}

// TestSeriesColor draws a curve with a Color of its own in it, line,
// dots and legend swatch, and the others in the colours of their places.
func TestSeriesColor(t *testing.T) {
	x, y := []float64{1, 2}, []float64{3, 4}
	doc := string(Lines(Figure{}, []Series{{Name: "a", X: x, Y: y}, {Name: "b", X: x, Y: y, Markers: true, Color: "#123456"}}, false))
	if n := strings.Count(doc, `"#123456"`); n != 5 {
		t.Errorf("the curve of its own colour has it %d times, want 5 (line, two dots, the legend's line and dot)", n)
	}
	if n := strings.Count(doc, `"`+Color(0)+`"`); n != 2 || strings.Contains(doc, `"`+Color(1)+`"`) {
		t.Errorf("the curve without a colour has Color(0) %d times, want 2 (line, legend); Color(1) drawn: %v", n, strings.Contains(doc, Color(1)))
	}
}

// TestRenderFiles writes every figure type to t.TempDir(), or to $PLOT_OUT
// when set, for a person to look at.
func TestRenderFiles(t *testing.T) {
	dir := os.Getenv("PLOT_OUT")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	figs := figures()
	// A 100-class embedding, as for CIFAR-100.
	var pts Points
	var means []Mean
	for c := range 100 {
		cx, cy := 4*math.Cos(float64(c)*0.61), 4*math.Sin(float64(c)*0.61)*float64(1+c%3)/2
		means = append(means, Mean{c, cx, cy})
		for i := range 30 {
			a := float64(i*7 + c)
			pts.X = append(pts.X, cx+0.4*math.Sin(a))
			pts.Y = append(pts.Y, cy+0.4*math.Cos(a*1.7))
			pts.Class = append(pts.Class, c)
		}
	}
	figs["embedding100"] = Embedding(Figure{Title: "100 classes"}, pts, nil, nil, means, nil)
	for name, doc := range figs {
		if err := os.WriteFile(filepath.Join(dir, name+".svg"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegionClassify checks that a region with Classify is evaluated over
// the whole plot (here wider than the points, to show the ellipses and keep
// the aspect ratio), once for the grid and refineSteps times for the
// boundaries, and that a Classify that fails leaves the regions out.
func TestRegionClassify(t *testing.T) {
	pts, _, ells, means := sample()
	calls := 0
	var lo, hi [2]float64
	reg := &Region{X0: 0, X1: 6, Y0: 0, Y1: 2, NX: 30, NY: 20, Classify: func(x, y []float64) []int {
		if calls == 0 {
			lo, hi = [2]float64{slices.Min(x), slices.Min(y)}, [2]float64{slices.Max(x), slices.Max(y)}
		}
		calls++
		class := make([]int, len(x))
		for k := range x {
			class[k] = min(2, max(0, int((x[k]+1.5)/3)))
		}
		return class
	}}
	svg := string(Embedding(Figure{Title: "t"}, pts, reg, ells, means, nil))
	if calls != 1+refineSteps {
		t.Fatalf("Classify called %d times, want once for the grid and %d times for the boundaries", calls, refineSteps)
	}
	// The ellipses reach 1.3 left of the first mean (at x = 0) and 0.9
	// below the lowest (at y = 0).
	if lo[0] > -1.3 || lo[1] > -0.9 || hi[0] < 7.3 || hi[1] < 2.9 {
		t.Errorf("Classify's grid spans [%v, %v] x [%v, %v], not the plot beyond the ellipses", lo[0], hi[0], lo[1], hi[1])
	}
	if !strings.Contains(svg, `class="regions"`) {
		t.Error("no regions drawn")
	}
	reg.Classify = func(x, y []float64) []int { return nil }
	if svg := string(Embedding(Figure{Title: "t"}, pts, reg, ells, means, nil)); strings.Contains(svg, `class="regions"`) {
		t.Error("regions drawn although Classify failed")
	}
}

// TestRegionEdgesStraight checks that a straight boundary across the grid
// gives straight region edges: every polygon corner off the plot's edges
// lies on the boundary to within a small fraction of a cell (the cells'
// staircase would be off by up to half a cell).
func TestRegionEdgesStraight(t *testing.T) {
	// Class 1 above the line y = 0.4 x + 0.3, class 0 below.
	line := func(x float64) float64 { return 0.4*x + 0.3 }
	reg := &Region{X0: -5, X1: 5, Y0: -4, Y1: 4, NX: 40, NY: 30, Classify: func(x, y []float64) []int {
		class := make([]int, len(x))
		for k := range x {
			if y[k] > line(x[k]) {
				class[k] = 1
			}
		}
		return class
	}}
	reg = classifyGrid(reg, reg.X0, reg.X1, reg.Y0, reg.Y1)
	polys := regionPolygons(reg)
	cell := (reg.X1 - reg.X0) / float64(reg.NX)
	classes := map[int]int{}
	for _, p := range polys {
		classes[p.class]++
		for _, q := range p.points {
			onEdge := q[0] == reg.X0 || q[0] == reg.X1 || q[1] == reg.Y0 || q[1] == reg.Y1
			// Distance along x from the boundary, at the corner's height.
			if d := math.Abs(q[0] - (q[1]-0.3)/0.4); !onEdge && d > 0.01*cell {
				t.Errorf("class %d: corner (%.3f, %.3f) is %.3f cells off the boundary", p.class, q[0], q[1], d/cell)
			}
		}
	}
	// The boundary leaves the grid at both sides: rows of class 0 only, of
	// 1 then 0, and of 1 only make three blocks.
	if classes[0] != 2 || classes[1] != 2 {
		t.Errorf("polygons per class %v, want two each", classes)
	}
	// Without Classify the boundary crosses the rows' centres on the cells'
	// edges.
	reg.Classify = nil
	dy := (reg.Y1 - reg.Y0) / float64(reg.NY)
	for _, p := range regionPolygons(reg) {
		for _, q := range p.points {
			j, i := (q[1]-reg.Y0)/dy-0.5, (q[0]-reg.X0)/cell
			if math.Abs(j-math.Round(j)) < 1e-9 && math.Abs(i-math.Round(i)) > 1e-9 {
				t.Fatalf("without Classify, corner (%.4f, %.4f) on a row's centre is not on a cell edge", q[0], q[1])
			}
		}
	}
}

// TestContourAroundMean checks that a Gaussian contour smaller than the
// mean marker stays visible: the marker, drawn over it, shrinks to half
// the contour's radius.
func TestContourAroundMean(t *testing.T) {
	var e Ellipse
	for k := range 48 {
		a := 2 * math.Pi * float64(k) / 48
		e.Points = append(e.Points, [2]float64{5 + 0.2*math.Cos(a), 5 + 0.2*math.Sin(a)})
	}
	pts := Points{X: []float64{0, 10}, Y: []float64{0, 10}, Class: []int{0, 0}}
	doc := string(Embedding(Figure{Width: 500, Height: 500}, pts, nil, []Ellipse{e}, []Mean{{0, 5, 5}}, nil))
	means, ells := strings.Index(doc, `class="means"`), strings.Index(doc, `class="ellipses"`)
	if means < 0 || ells < 0 {
		t.Fatal("no means or no ellipses")
	}
	// The contour's radius is 0.2 of 10 data units across about 400
	// pixels: 8 pixels; the usual marker (arms of 8) is 14.5 pixels wide.
	marker := doc[means:]
	i := strings.Index(marker, `d="M`)
	var xs []float64
	for _, pair := range strings.Split(marker[i+4:i+strings.Index(marker[i:], "Z")], "L") {
		var x, y float64
		fmt.Sscanf(pair, "%g %g", &x, &y)
		xs = append(xs, x)
	}
	if span := slices.Max(xs) - slices.Min(xs); span > 8 {
		t.Errorf("the mean marker is %.1f pixels wide inside a contour 16 pixels across", span)
	}
}

// TestAxesDoNotExaggerate checks the axis ranges of Lines: ZeroY keeps
// zero on the axis (a flat sweep at 37.9-38.0 must not fill the plot), and
// IntegerX gives epochs whole-number ticks and one epoch a unit-wide axis.
func TestAxesDoNotExaggerate(t *testing.T) {
	flat := Series{Name: "accuracy", X: []float64{0.001, 0.01, 0.1, 1}, Y: []float64{37.95, 37.9, 38, 37.93}}
	p := newLinePlot(Figure{LogX: true, ZeroY: true}, 640, 420, []Series{flat}, false, 0)
	if p.a.y.lo > 0 || p.a.y.hi < 38 || p.a.y.hi > 45 {
		t.Errorf("ZeroY: y axis [%g, %g], want from zero to just above 38", p.a.y.lo, p.a.y.hi)
	}
	p = newLinePlot(Figure{LogX: true}, 640, 420, []Series{flat}, false, 0)
	if p.a.y.lo < 37 {
		t.Errorf("without ZeroY the axis follows the data; got [%g, %g]", p.a.y.lo, p.a.y.hi)
	}
	epochs := func(n int) Series {
		s := Series{Name: "loss"}
		for e := 1; e <= n; e++ {
			s.X, s.Y = append(s.X, float64(e)), append(s.Y, 1/float64(e))
		}
		return s
	}
	for _, tc := range []struct {
		epochs int
		ticks  string
		lo, hi float64
	}{
		{1, "1", 0.5, 1.5},
		{2, "1 2", 0.9, 2.1},
		{5, "1 2 3 4 5", 0.9, 5.1},
	} {
		p := newLinePlot(Figure{IntegerX: true}, 640, 420, []Series{epochs(tc.epochs)}, false, 0)
		if got := strings.Join(labels(p.a.xt), " "); got != tc.ticks {
			t.Errorf("%d epochs: x ticks %q, want %q", tc.epochs, got, tc.ticks)
		}
		if p.a.x.lo < tc.lo-1e-9 || p.a.x.hi > tc.hi+1e-9 {
			t.Errorf("%d epochs: x axis [%g, %g], want within [%g, %g]", tc.epochs, p.a.x.lo, p.a.x.hi, tc.lo, tc.hi)
		}
	}
}

// TestStack checks that Stack draws each panel with its own y axis and
// clip path, one x label at the bottom, aligned plot areas, and colours in
// order across the panels.
func TestStack(t *testing.T) {
	acc := []Series{{Name: "train accuracy (%)", X: []float64{1, 2, 3}, Y: []float64{50, 90, 99}}, {Name: "test accuracy (%)", X: []float64{1, 2, 3}, Y: []float64{52, 91, 98}}}
	ece := []Series{{Name: "test ECE (%)", X: []float64{1, 2, 3}, Y: []float64{12, 3, 0.5}, Dashed: true}}
	doc := Stack(Figure{Title: "Accuracy and calibration", XLabel: "epoch", IntegerX: true},
		[]Panel{{YLabel: "accuracy (%)", ZeroY: true, Weight: 3, Series: acc}, {YLabel: "test ECE (%)", ZeroY: true, Weight: 2, Series: ece}})
	c := parse(t, doc)
	if c["svg"] != 3 || c["clipPath"] != 2 {
		t.Errorf("%d svg elements and %d clip paths, want 3 (the document and two panels) and 2", c["svg"], c["clipPath"])
	}
	s := string(doc)
	for _, want := range []string{">accuracy (%)<", ">test ECE (%)<", ">Accuracy and calibration<", `stroke="` + Color(2) + `"`} {
		if !strings.Contains(s, want) {
			t.Errorf("stack lacks %s", want)
		}
	}
	if n := strings.Count(s, ">epoch<"); n != 1 {
		t.Errorf("%d x labels, want 1 under the bottom panel", n)
	}
	// Both clip rectangles start at the same x: the plot areas line up.
	var xs []string
	for _, part := range strings.Split(s, "<clipPath")[1:] {
		i := strings.Index(part, `x="`)
		xs = append(xs, part[i:i+strings.Index(part[i+3:], `"`)+4])
	}
	if len(xs) != 2 || xs[0] != xs[1] {
		t.Errorf("the panels' plot areas start at %v", xs)
	}
}

// TestIsolatedPointsGetDots checks that a curve's points with no line to
// them (a one-epoch run, or a point between gaps) are drawn as dots, and
// that points on a line are not.
func TestIsolatedPointsGetDots(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		y    []float64
		dots int
	}{
		{"one point", []float64{0.5}, 1},
		{"a line", []float64{0.5, 0.6, 0.7}, 0},
		{"between gaps", []float64{0.5, 0.6, nan, 0.7, nan, 0.8, 0.9}, 1},
	} {
		x := make([]float64, len(tc.y))
		for i := range x {
			x[i] = float64(i + 1)
		}
		svg := string(Lines(Figure{Title: tc.name}, []Series{{Name: "loss", X: x, Y: tc.y}}, false))
		if got := strings.Count(svg, "<circle"); got != tc.dots {
			t.Errorf("%s: %d dots, want %d", tc.name, got, tc.dots)
		}
	}
}

// TestRow checks that Row nests each figure at its own x, at its share of
// the width.
func TestRow(t *testing.T) {
	bins := []Bin{{Lo: 0.5, Hi: 1, Accuracy: 0.7, Confidence: 0.8, Count: 10}}
	var sizes []Figure
	draw := func(title string) func(Figure) []byte {
		return func(f Figure) []byte {
			sizes = append(sizes, f)
			f.Title = title
			return Reliability(f, bins, 0.1)
		}
	}
	doc := Row(Figure{Width: 800, Height: 400}, draw("left"), draw("right"))
	c := parse(t, doc)
	if c["svg"] != 3 || c["clipPath"] != 2 {
		t.Errorf("%d svg elements and %d clip paths, want 3 and 2", c["svg"], c["clipPath"])
	}
	if len(sizes) != 2 || sizes[0].Width != 400 || sizes[1].Height != 400 {
		t.Errorf("panels drawn at %+v, want 400 x 400 each", sizes)
	}
	s := string(doc)
	for _, want := range []string{`<svg x="0" y="0" `, `<svg x="400" y="0" `, ">left<", ">right<", `width="800" height="400"`} {
		if !strings.Contains(s, want) {
			t.Errorf("row lacks %s", want)
		}
	}
}

// TestTitleWraps checks that a title starts at the figure's left edge and
// wraps at its newlines and between words (not inside a parenthesis) into
// lines at most titleWidth wide, so that a phone's card shows it whole,
// and that its lines say the whole title.
func TestTitleWraps(t *testing.T) {
	title := "Test embeddings (dnll, lda head), PCA of d = 64, on the test images of fashion-mnist"
	line := regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9.]+" font-size="[0-9.]+" text-anchor="start" class="title"[^>]*>([^<]*)</text>`)
	for name, doc := range map[string][]byte{
		"lines":       Lines(Figure{Title: title}, sampleSeries(), false),
		"reliability": Reliability(Figure{Title: title, Width: 960}, sampleBins(), 0.1),
		"short":       Lines(Figure{Title: "Training loss"}, sampleSeries(), false),
		"newline":     Lines(Figure{Title: "Reliability (test)\nLDA head, DNLL (λ = 0.01)"}, sampleSeries(), false),
		"parenthesis": Lines(Figure{Title: "Test ECE (10 bins) against λ (toy data)"}, sampleSeries(), false),
	} {
		var lines []string
		for _, m := range line.FindAllStringSubmatch(string(doc), -1) {
			if m[1] != "8" {
				t.Errorf("%s: a title line at x = %s, want 8", name, m[1])
			}
			if w := textWidth(m[2], titleSize); w > titleWidth {
				t.Errorf("%s: title line %q is %.0f px wide, more than %v", name, m[2], w, titleWidth)
			}
			lines = append(lines, m[2])
		}
		want := map[string][]string{"short": {"Training loss"}, "newline": {"Reliability (test)", "LDA head, DNLL (λ = 0.01)"},
			"parenthesis": {"Test ECE (10 bins) against λ", "(toy data)"}}[name]
		if want == nil && (len(lines) < 2 || strings.Join(lines, " ") != title) {
			t.Errorf("%s: the title's lines %q, want the whole title in two or more", name, lines)
		}
		if want != nil && !slices.Equal(lines, want) {
			t.Errorf("%s: the title's lines %q, want %q", name, lines, want)
		}
	}
}

// TestTextSize checks that every text of every figure type, a long title
// included, is drawn at 11 px or more at the figure's own size: the page
// shows figures at that size, so that is the size they are read at.
func TestTextSize(t *testing.T) {
	figs := figures()
	long := Figure{Title: strings.Repeat("A title far too long for the figure's width ", 4), Caption: "a caption"}
	figs["long-title"] = Lines(long, sampleSeries(), false)
	size := regexp.MustCompile(`font-size="([0-9.]+)"`)
	for name, doc := range figs {
		m := size.FindAllSubmatch(doc, -1)
		if len(m) == 0 {
			t.Errorf("%s: no text", name)
		}
		for _, sm := range m {
			if v, err := strconv.ParseFloat(string(sm[1]), 64); err != nil || v < 11 {
				t.Errorf("%s: text drawn at font-size %s px, under 11", name, sm[1])
			}
		}
	}
}

// TestLegendsOutside checks that every figure's legend is drawn right of
// its plot area (the clip rectangle), where it covers no data.
func TestLegendsOutside(t *testing.T) {
	clipRe := regexp.MustCompile(`<clipPath id="[^"]+"><rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`)
	legendRe := regexp.MustCompile(`<g class="legend">\n<rect x="([0-9.]+)"`)
	figs := figures()
	figs["stack"] = Stack(Figure{Title: "Stack"}, []Panel{{Series: sampleSeries()}, {Series: sampleSweep()}})
	for name, doc := range figs {
		docs := strings.SplitAfter(string(doc), "</svg>\n") // Stack nests a document per panel
		for _, d := range docs {
			c, l := clipRe.FindStringSubmatch(d), legendRe.FindStringSubmatch(d)
			if c == nil || l == nil {
				continue
			}
			x, _ := strconv.ParseFloat(c[1], 64)
			w, _ := strconv.ParseFloat(c[2], 64)
			lx, _ := strconv.ParseFloat(l[1], 64)
			if lx < x+w {
				t.Errorf("%s: the legend starts at x = %v, inside the plot area (%v to %v)", name, lx, x, x+w)
			}
		}
		if !strings.Contains(string(doc), `<g class="legend">`) {
			t.Errorf("%s: no legend", name)
		}
	}
}
