package plot

import (
	"fmt"
	"math"
)

// Bin is one confidence bin of a calibration analysis: samples whose
// confidence lies in [Lo, Hi), their accuracy and mean confidence (both
// fractions in [0,1]) and their number.
type Bin struct {
	Lo, Hi, Accuracy, Confidence float64
	Count                        int
}

func (b Bin) usable() bool {
	return finite(b.Lo) && finite(b.Hi) && b.Hi > b.Lo && b.Count > 0
}

// binRange returns the x range covered by the bins, at least [0,1].
func binRange(fig Figure, bins []Bin) (float64, float64) {
	lo, hi := 0.0, 1.0
	for _, b := range bins {
		if b.usable() {
			lo, hi = math.Min(lo, b.Lo), math.Max(hi, b.Hi)
		}
	}
	if l0, l1, ok := lim(fig.XLim, false); ok {
		lo, hi = l0, l1
	}
	return lo, hi
}

// calibrationDefaults fills in the usual axis labels.
func calibrationDefaults(fig *Figure, ylabel string) {
	if fig.XLabel == "" {
		fig.XLabel = "confidence"
	}
	if fig.YLabel == "" {
		fig.YLabel = ylabel
	}
}

// barBox returns the pixel rectangle of a bar over [lo,hi] from y=v0 to v1.
func barBox(a *axes, lo, hi, v0, v1 float64) box {
	xa, xb := a.x.pos(lo), a.x.pos(hi)
	ya, yb := a.y.pos(v0), a.y.pos(v1)
	return box{math.Min(xa, xb), math.Min(ya, yb), math.Max(xa, xb), math.Max(ya, yb)}
}

func drawBox(s *svg, b box, extra string) {
	s.rect(b.x0, b.y0, b.x1-b.x0, b.y1-b.y0, extra)
}

// Reliability draws a reliability diagram: the accuracy of every non-empty
// bin as a bar, the gap to the bin's mean confidence shaded, the diagonal of
// perfect calibration, and the expected calibration error ece (a fraction,
// shown as a percentage like everywhere else) in the legend.
func Reliability(fig Figure, bins []Bin, ece float64) []byte {
	w, h := fig.size(480, 460)
	calibrationDefaults(&fig, "accuracy")
	x0, x1 := binRange(fig, bins)
	y0, y1 := 0.0, 1.0
	if l0, l1, ok := lim(fig.YLim, false); ok {
		y0, y1 = l0, l1
	}
	gapColor := tableau10[2]
	entries := []legendEntry{
		{"accuracy", rectSwatch(tableau10[0], ` stroke="#2f4b6b" stroke-width="0.8"`)},
		{"gap", rectSwatch(gapColor, ` fill-opacity="0.3" stroke="`+gapColor+`" stroke-width="1"`)},
		{"perfect calibration", lineSwatch(mutedColor, 1.5, true, false)},
	}
	if finite(ece) {
		entries = append(entries, legendEntry{label: "ECE = " + percent(ece)})
	}
	leg := newLegend(entries, h)
	a := newAxes(fig, w, h, x0, x1, y0, y1, false, false, leg.width()+12, false)

	s := newSVG(w, h)
	a.drawBack(s, true)
	s.group("bars", clip()+` fill="`+tableau10[0]+`" stroke="#2f4b6b" stroke-width="0.8"`)
	for _, b := range bins {
		if b.usable() && finite(b.Accuracy) {
			drawBox(s, barBox(a, b.Lo, b.Hi, 0, b.Accuracy), "")
		}
	}
	s.end()
	s.group("gaps", clip()+` fill="`+gapColor+`" fill-opacity="0.3" stroke="`+gapColor+`" stroke-width="1"`)
	for _, b := range bins {
		if b.usable() && finite(b.Accuracy) && finite(b.Confidence) && b.Accuracy != b.Confidence {
			drawBox(s, barBox(a, b.Lo, b.Hi, b.Accuracy, b.Confidence), "")
		}
	}
	s.end()
	d0, d1 := math.Max(x0, y0), math.Min(x1, y1)
	if d1 > d0 {
		s.group("diagonal", clip())
		px0, py0, px1, py1 := a.x.pos(d0), a.y.pos(d0), a.x.pos(d1), a.y.pos(d1)
		s.line(px0, py0, px1, py1, mutedColor, 1.5, ` stroke-dasharray="6 4"`)
		s.end()
	}
	a.drawFrame(s)
	leg.draw(s, a.right+12, a.top)
	return a.finish(s)
}

// ConfidenceHistogram draws the fraction of samples in every bin, with
// vertical lines at the overall accuracy and the mean confidence (both
// fractions, labelled as percentages; NaN leaves a line out). The x axis
// reaches a little beyond the bins, so that a line at confidence 1 is not
// hidden under the frame.
func ConfidenceHistogram(fig Figure, bins []Bin, accuracy, meanConfidence float64) []byte {
	w, h := fig.size(480, 400)
	calibrationDefaults(&fig, "fraction of samples")
	x0, x1 := binRange(fig, bins)
	if _, _, fixed := lim(fig.XLim, false); !fixed {
		pad := 0.02 * (x1 - x0)
		x0, x1 = x0-pad, x1+pad
	}
	total := 0
	for _, b := range bins {
		if b.usable() {
			total += b.Count
		}
	}
	frac := func(b Bin) float64 { return float64(b.Count) / float64(total) }
	top := 0.0
	for _, b := range bins {
		if b.usable() {
			top = math.Max(top, frac(b))
		}
	}
	y0, y1 := 0.0, 1.0
	if top > 0 {
		y1 = top * 1.08
	}
	if l0, l1, ok := lim(fig.YLim, false); ok {
		y0, y1 = l0, l1
	}
	type vline struct {
		v      float64
		label  string
		color  string
		dashed bool
	}
	lines := []vline{
		{accuracy, "accuracy = " + percent(accuracy), tableau10[2], false},
		{meanConfidence, "mean confidence = " + percent(meanConfidence), tableau10[1], true},
	}
	var entries []legendEntry
	for _, l := range lines {
		if finite(l.v) {
			entries = append(entries, legendEntry{l.label, lineSwatch(l.color, 2, l.dashed, false)})
		}
	}
	leg := newLegend(entries, h)
	a := newAxes(fig, w, h, x0, x1, y0, y1, false, false, leg.width()+12, false)

	s := newSVG(w, h)
	a.drawBack(s, true)
	s.group("bars", clip()+` fill="`+tableau10[0]+`" fill-opacity="0.85" stroke="#ffffff" stroke-width="0.8"`)
	for _, b := range bins {
		if b.usable() {
			drawBox(s, barBox(a, b.Lo, b.Hi, 0, frac(b)), "")
		}
	}
	s.end()
	s.group("markers", clip()+` stroke-width="2"`)
	for _, l := range lines {
		if finite(l.v) {
			x := a.x.pos(l.v)
			extra := ""
			if l.dashed {
				extra = ` stroke-dasharray="6 4"`
			}
			s.line(x, a.top, x, a.bottom, l.color, 2, extra)
		}
	}
	s.end()
	a.drawFrame(s)
	leg.draw(s, a.right+12, a.top)
	return a.finish(s)
}

// percent formats a fraction as a percentage with two decimals, the unit
// in which the command line prints accuracy and ECE.
func percent(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }
