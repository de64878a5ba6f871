package plot

import (
	"fmt"
	"math"
	"slices"
)

// Scores are the values of one out-of-distribution score on the
// in-distribution examples (In) and the out-of-distribution ones (Out).
type Scores struct {
	Name    string
	In, Out []float64
}

// scoreBins is the number of bins of ScoreHistograms.
const scoreBins = 30

// ScoreHistograms draws, for each score, the histograms of its values on
// the in-distribution and the out-of-distribution examples, one panel per
// score with the fraction of each set per bin, over the range from the 1st
// to the 99th percentile of both sets together (values beyond it count in
// the end bins). The x axis is the position in each panel's range (0: its
// low end, 1: its high end), which the panel's label gives. inName and
// outName name the two sets in the legends.
func ScoreHistograms(fig Figure, scores []Scores, inName, outName string) []byte {
	panels := make([]Panel, 0, len(scores))
	for _, sc := range scores {
		var all []float64
		for _, v := range slices.Concat(sc.In, sc.Out) {
			if finite(v) {
				all = append(all, v)
			}
		}
		if len(all) == 0 {
			continue
		}
		slices.Sort(all)
		lo, hi := all[len(all)/100], all[len(all)-1-len(all)/100]
		if !(hi > lo) {
			lo, hi = lo-0.5, lo+0.5
		}
		panels = append(panels, Panel{YLabel: fmt.Sprintf("%s %.3g to %.3g", sc.Name, lo, hi), ZeroY: true, Series: []Series{
			histogram(inName, sc.In, lo, hi), histogram(outName, sc.Out, lo, hi),
		}})
	}
	if fig.XLabel == "" {
		fig.XLabel = "position in the score's range (low to high)"
	}
	return Stack(fig, panels)
}

// histogram returns the outline of the histogram of v in scoreBins bins over
// [lo,hi], as the fraction of v's finite values per bin (values outside
// count in the end bins), drawn with the bins' centres rescaled to [0,1]
// so that panels of different ranges share the x axis.
func histogram(name string, v []float64, lo, hi float64) Series {
	counts := make([]float64, scoreBins)
	n := 0.0
	for _, x := range v {
		if !finite(x) {
			continue
		}
		b := int(math.Floor((x - lo) / (hi - lo) * scoreBins))
		counts[min(scoreBins-1, max(0, b))]++
		n++
	}
	s := Series{Name: fmt.Sprintf("%s, %d", name, int(n))}
	for b, c := range counts {
		f := 0.0
		if n > 0 {
			f = c / n
		}
		x0, x1 := float64(b)/scoreBins, float64(b+1)/scoreBins
		s.X = append(s.X, x0, x1)
		s.Y = append(s.Y, f, f)
	}
	return s
}

// Curve is one named ROC curve: FPR and TPR per threshold, from (0,0) to
// (1,1).
type Curve struct {
	Name     string
	FPR, TPR []float64
}

// ROC draws ROC curves (true positive rate against false positive rate)
// on the unit square, with the diagonal of a score that tells nothing
// dashed.
func ROC(fig Figure, curves []Curve) []byte {
	if fig.XLabel == "" {
		fig.XLabel = "false positive rate (out-of-distribution kept)"
	}
	if fig.YLabel == "" {
		fig.YLabel = "true positive rate (in-distribution kept)"
	}
	fig.XLim, fig.YLim = [2]float64{0, 1}, [2]float64{0, 1}
	series := make([]Series, 0, len(curves)+1)
	for _, c := range curves {
		series = append(series, Series{Name: c.Name, X: c.FPR, Y: c.TPR})
	}
	series = append(series, Series{Name: "chance", X: []float64{0, 1}, Y: []float64{0, 1}, Dashed: true})
	return Lines(fig, series, false)
}
