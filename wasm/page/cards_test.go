package page

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/wasm/config"
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

func TestCards(t *testing.T) {
	s, err := NewSession(1, config.Defaults(config.Deep))
	if err != nil {
		t.Fatal(err)
	}
	overview, detail := Layout(s)
	d := fakeDoc{}
	var c Cards
	c.Reset(d, s, true)
	if d.el("#figures").html != CardsHTML(detail) || d.el("#overview").html != CardsHTML(overview) || d.has("#results", "hidden") || !d.has("#hint", "hidden") {
		t.Errorf("reset: %v", d)
	}
	name := detail[0].Name
	if c.Changes(name, "") || c.Changes("nope.svg", "<svg/>") || !c.Changes(name, "<svg/>") {
		t.Error("Changes: no figure, no card, a new figure")
	}
	d.SetText(card(name)+" figcaption > span:first-child", detail[0].Caption)
	c.Set(d, name, "<svg/>")
	if c.Changes(name, "<svg/>") || d.el(card(name)+" .plot").html != "<svg/>" || d.has(card(name), "hidden") ||
		d.Attr(card(name)+" .plot > svg", "aria-label") != detail[0].Caption {
		t.Errorf("set: %v", d)
	}
	if svg, perRun := c.Figure(name); svg != "<svg/>" || !perRun {
		t.Errorf("Figure = %q %v", svg, perRun)
	}
	c.Caption(d, name, "another run's")
	if d.Attr(card(name)+" .plot > svg", "aria-label") != "another run's" {
		t.Error("the caption changed, the label did not")
	}
	c.Reset(d, nil, true)
	if !d.has("#results", "hidden") || d.has("#hint", "hidden") || d.el("#figures").html != "" {
		t.Errorf("reset to none: %v", d)
	}
	if c.Changes(name, "<svg/>") {
		t.Error("a card of no session changes")
	}
}

func TestShowResults(t *testing.T) {
	s, err := NewSession(1, config.Defaults(config.Deep))
	if err != nil {
		t.Fatal(err)
	}
	s.Runs[0].Report = []byte(`{"status":"done"}`)
	d := fakeDoc{}
	d.SetAttr("#results", "hidden", "")
	ShowResults(d, s)
	if d.has("#results", "hidden") || !d.has("#hint", "hidden") || d.Text("#report") != `{"status":"done"}` || d.el("#summary").html != SummaryHTML(s) {
		t.Errorf("results: %v", d)
	}
	if title := FiguresTitle(s); d.has("#figures-title", "hidden") == (title != "") || d.Text("#figures-title") != title {
		t.Errorf("title %q", d.Text("#figures-title"))
	}
}

func TestDownloads(t *testing.T) {
	d := fakeDoc{}
	Downloads(d, nil, true)
	if !d.has("#dl-report", "disabled") || !d.has("#dl-checkpoint", "disabled") || !d.has("#dl-all", "disabled") || ShownRun(nil) != nil {
		t.Errorf("no session: %v", d)
	}
	s := &Session{Runs: []*Run{{Label: "a"}, {Label: "b", Report: []byte("{}")}}, Picked: 1}
	Downloads(d, s, false)
	if d.has("#dl-report", "disabled") || !d.has("#dl-checkpoint", "disabled") || d.has("#dl-all", "disabled") || ShownRun(s) != s.Runs[1] {
		t.Errorf("a report: %v", d)
	}
	Downloads(d, s, true)
	if d.has("#dl-checkpoint", "disabled") {
		t.Error("a checkpoint, not offered")
	}
	if DownloadName(s, "report.json", false) != "report.json" || DownloadName(s, "report.json", true) != s.FileName(1, "report.json") {
		t.Errorf("DownloadName: %s", DownloadName(s, "report.json", true))
	}
}
