package browsertest

import (
	"strings"
	"testing"
	"time"
)

// TestImagesCompare trains both heads side by side (compare=1) for one
// epoch on 128 Fashion-MNIST images on the CPU backend, and checks that
// both runs finish with their own head and loss, that the comparison's
// figures hold one line (or one diagram) per head, and that the gap
// between them is given in numbers.
func TestImagesCompare(t *testing.T) {
	site := fashionSite(t)
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&compare=1&data=fashion-mnist&backend=cpu&limit-train=128&limit-test=64&epochs=1&batch=64&autostart=1")
	b.waitFinished("done", 8*time.Minute)
	reps := b.runReports()
	if len(reps) != 2 {
		t.Fatalf("%d runs, want 2 (both heads)", len(reps))
	}
	for i, want := range [][2]string{{"lda", "dnll"}, {"softmax", "ce"}} {
		r := reps[i]
		if r.Config["head"] != want[0] || r.Config["loss"] != want[1] || r.Status != "done" || len(r.History) != 1 || r.Test.Examples != 64 {
			t.Errorf("run %d: head %v, loss %v, status %q, %d epochs, %d test images; want %s with %s", i+1, r.Config["head"], r.Config["loss"], r.Status, len(r.History), r.Test.Examples, want[0], want[1])
		}
		if r.Config["seed"] != reps[0].Config["seed"] || r.Config["limit_train"] != 128.0 {
			t.Errorf("run %d: seed %v, limit_train %v; both heads must train on the same images and seed", i+1, r.Config["seed"], r.Config["limit_train"])
		}
	}
	for _, name := range []string{"compare_ece.svg", "compare_accuracy.svg", "compare_reliability.svg"} {
		card := `.card[data-name="` + name + `"]:not([hidden])`
		svg := eval[string](b, `(document.querySelector('`+card+`') || {innerHTML: ''}).innerHTML`)
		for _, label := range []string{"LDA head, DNLL", "softmax head, CE"} {
			if !strings.Contains(svg, label) {
				t.Errorf("%s does not show %q", name, label)
			}
		}
	}
	if n := eval[int](b, `document.querySelectorAll('.card[data-name="compare_reliability.svg"] svg svg').length`); n != 2 {
		t.Errorf("the reliability figure nests %d diagrams, want 2 side by side", n)
	}
	// The two diagrams are shown at the size they are drawn, not squeezed
	// into the width of one.
	if w := eval[[]float64](b, `(s => [s.getBoundingClientRect().width, +s.getAttribute('width')])(document.querySelector('.card[data-name="compare_reliability.svg"] .plot > svg'))`); w[0] < w[1]-0.5 {
		t.Errorf("the reliability figure is shown %.0f px wide, drawn %.0f px wide", w[0], w[1])
	}
	gap := b.text("#compare-gap")
	if !strings.Contains(gap, "Gap (LDA − softmax)") || !strings.Contains(gap, "accuracy") || !strings.Contains(gap, "ECE") || !strings.Contains(gap, "points") {
		t.Errorf("#compare-gap: %q", gap)
	}
	b.screenshot("images-compare.png")
	b.checkClean()
}
