package page

import (
	"strings"
	"testing"
)

func TestCardsHTML(t *testing.T) {
	got := CardsHTML([]Slot{{"embedding.svg", "Test <embeddings>"}, {"curves.svg", ""}})
	for _, want := range []string{
		`<figure class="card" data-name="embedding.svg" hidden><div class="plot"></div><figcaption><span>Test &lt;embeddings&gt;</span>`,
		`<button class="link" type="button" title="download this figure as SVG" data-download="svg">SVG ⤓</button>`,
		`title="download this figure as PNG, 2 times its size" data-download="png">PNG ⤓</button></span></figcaption></figure>`,
		`data-name="curves.svg" hidden><div class="plot"></div><figcaption><span></span>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("CardsHTML lacks %s:\n%s", want, got)
		}
	}
	if CardsHTML(nil) != "" {
		t.Error("no slots, yet cards")
	}
}

func TestFigureFile(t *testing.T) {
	one := &Session{Runs: []*Run{{Label: "DNLL"}}}
	two := &Session{Runs: []*Run{{Label: "DNLL"}, {Label: "NLL (λ=0)"}}, Picked: 1}
	for _, c := range []struct {
		s            *Session
		name, format string
		perRun       bool
		want         string
	}{
		{nil, "embedding.svg", "svg", true, "embedding.svg"},
		{one, "embedding.svg", "png", true, "embedding.png"},
		{two, "compare_ece.svg", "png", false, "compare_ece.png"},
		{two, "embedding.svg", "svg", true, two.FileName(1, "embedding.svg")},
		{two, "embedding.svg", "png", true, two.FileName(1, "embedding.png")},
	} {
		if got := FigureFile(c.s, c.name, c.format, c.perRun); got != c.want {
			t.Errorf("FigureFile(%s, %s, %v) = %q, want %q", c.name, c.format, c.perRun, got, c.want)
		}
	}
	if got := FigureFile(two, "embedding.svg", "png", true); got == "embedding.png" || !strings.HasSuffix(got, "-embedding.png") {
		t.Errorf("a figure of a session of two runs is not named after its run: %s", got)
	}
}
