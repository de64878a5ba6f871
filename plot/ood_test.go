package plot

import (
	"strings"
	"testing"
)

// TestOODFigures checks the histograms (one panel per score, both sets in
// the legend with their sizes, the range in the panel's label) and the ROC
// figure (a curve per score and the chance diagonal).
func TestOODFigures(t *testing.T) {
	in := []float64{0.9, 0.95, 0.99, 1, 1, 0.8}
	out := []float64{0.5, 0.6, 0.9, 0.7}
	svg := string(ScoreHistograms(Figure{Title: "scores"}, []Scores{{Name: "max_softmax", In: in, Out: out}, {Name: "density", In: []float64{-1, 0, 1}, Out: []float64{-40, -30}}}, "fashion-mnist", "mnist"))
	parse(t, []byte(svg))
	for _, want := range []string{"fashion-mnist, 6", "mnist, 4", "max_softmax 0.5 to 1", "density -40 to 1"} {
		if !strings.Contains(svg, want) {
			t.Errorf("histograms lack %q", want)
		}
	}
	roc := string(ROC(Figure{Title: "ROC"}, []Curve{{Name: "density", FPR: []float64{0, 0.5, 1}, TPR: []float64{0, 1, 1}}}))
	parse(t, []byte(roc))
	for _, want := range []string{">density<", ">chance<", "false positive rate"} {
		if !strings.Contains(roc, want) {
			t.Errorf("ROC figure lacks %q", want)
		}
	}
	// Nothing finite: a valid figure, no panic.
	parse(t, ScoreHistograms(Figure{}, []Scores{{Name: "x"}}, "a", "b"))
}
