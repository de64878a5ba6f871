//go:build js && wasm

package main

import (
	"strconv"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// view draws a session's results: the overview (runs side by side or the
// sweep), the summary table, the shown run's figures under their heading
// and #report.
type view struct {
	a                               *app
	overview, summary, figures, rep dom.HTMLElement
	results, figuresTitle           dom.HTMLElement
	cards                           map[string]*card
}

// card is one figure on the page (page.CardsHTML) and what it shows.
type card struct {
	root, body, caption dom.Element
	svg                 string
	perRun              bool // a figure of the shown run (named after it when there are several)
}

func newView(a *app) *view {
	v := &view{a: a, overview: byID("overview"), summary: byID("summary"), figures: byID("figures"),
		rep: byID("report"), results: byID("results"), figuresTitle: byID("figures-title"), cards: map[string]*card{}}
	a.on(v.summary, "click", v.clicked)
	a.on(v.overview, "click", v.download)
	a.on(v.figures, "click", v.download)
	return v
}

// reset clears the results and lays out the (empty, hidden) figure cards
// of a new session (nil: nothing to show).
func (v *view) reset(s *page.Session) {
	removeChildren(v.summary)
	v.rep.SetTextContent("")
	show(v.figuresTitle, false)
	v.cards = map[string]*card{}
	show(v.results, s != nil)
	show(byID("hint"), s == nil && config.Info(v.a.demo).Trainable)
	var overview, detail []page.Slot
	if s != nil {
		overview, detail = page.Layout(s)
	}
	v.overview.SetInnerHTML(page.CardsHTML(overview))
	v.figures.SetInnerHTML(page.CardsHTML(detail))
	for _, e := range append(v.overview.QuerySelectorAll("figure"), v.figures.QuerySelectorAll("figure")...) {
		c := &card{root: e, body: e.QuerySelector(".plot"), caption: e.QuerySelector("figcaption span"), perRun: v.figures.Contains(e)}
		v.cards[e.GetAttribute("data-name")] = c
	}
}

// update redraws everything that changed. It yields to the browser after
// each new figure (so that the browser lays out and paints one at a time),
// so it must run in a goroutine, never directly in an event handler.
func (v *view) update(s *page.Session) {
	if s == nil {
		return
	}
	show(v.results, true)
	show(byID("hint"), false)
	// The summary's row of the shown run and #report change together.
	jr := s.Runs[s.Shown()]
	v.rep.SetTextContent(string(jr.Report))
	v.summary.SetInnerHTML(page.SummaryHTML(s))
	title := page.FiguresTitle(s)
	v.figuresTitle.SetTextContent(title)
	show(v.figuresTitle, title != "")
	v.a.updateDownloads()
	v.a.yield.now()
	overview, detail := page.Layout(s)
	for _, sl := range overview {
		v.fill(sl.Name, s.Overview[sl.Name])
	}
	for _, sl := range detail {
		if c := v.cards[sl.Name]; c != nil && c.caption.TextContent() != sl.Caption {
			// The shown run changed: so does whose figure it says it is.
			c.caption.SetTextContent(sl.Caption)
			c.label()
		}
		v.fill(sl.Name, jr.Figs[sl.Name])
	}
}

// download offers the figure whose download button (data-download, the
// format) was clicked.
func (v *view) download(ev dom.Event) {
	b := ev.Target().Underlying().Call("closest", "button[data-download]")
	if !b.Truthy() {
		return
	}
	name := b.Call("closest", "figure").Get("dataset").Get("name").String()
	c, format := v.cards[name], b.Get("dataset").Get("download").String()
	if c == nil {
		return
	}
	file := page.FigureFile(v.a.sess, name, format, c.perRun)
	if format == "svg" {
		download(file, "image/svg+xml", []byte(c.svg))
		return
	}
	go func() {
		defer v.a.guard()
		if err := downloadPNG(file, c.svg); err != nil {
			v.a.showError(err.Error())
		}
	}()
}

// fill shows svg in the named card; nothing changes when svg is nil or
// unchanged. After a change it waits for the browser to draw a frame.
func (v *view) fill(name, svg string) {
	c := v.changing(name, svg)
	if c == nil {
		return
	}
	// Hand the browser a frame with nothing but this figure to draw.
	v.a.yield.now()
	c.set(svg)
	v.a.yield.frame()
}

// fillLive shows the shown run's live loss curve svg at once, to be drawn
// in the same frame as the progress line: a small figure that changes
// with every progress event.
func (v *view) fillLive(svg string) {
	if c := v.changing(page.LossStepsFigure, svg); c != nil {
		c.set(svg)
	}
}

// changing returns the named card when svg changes it, else nil (no such
// card, no figure, or the same).
func (v *view) changing(name, svg string) *card {
	c := v.cards[name]
	if c == nil || svg == "" || svg == c.svg {
		return nil
	}
	return c
}

// set shows svg in the card.
func (c *card) set(svg string) {
	c.svg = svg
	c.body.SetInnerHTML(svg)
	c.label()
	show(c.root, true)
}

// label gives the card's figure its text alternative: role img, labelled
// by the caption.
func (c *card) label() {
	if f := c.body.QuerySelector("svg"); f != nil {
		f.SetAttribute("role", "img")
		f.SetAttribute("aria-label", c.caption.TextContent())
	}
}

// clicked downloads the summary's table whose CSV button was clicked
// (data-csv), or shows the figures of the run whose label was (a button
// with data-run).
func (v *view) clicked(ev dom.Event) {
	s := v.a.sess
	if id := csvButton(ev); id != "" && s != nil {
		if t, perRun := page.SessionTable(s, id); t != nil {
			downloadCSV(t, v.a.fileName(t.File, perRun))
		}
		return
	}
	t := ev.Target().Underlying().Call("closest", "button[data-run]")
	if s == nil || !t.Truthy() {
		return
	}
	i, err := strconv.Atoi(t.Get("dataset").Get("run").String())
	if err != nil || i < 0 || i >= len(s.Runs) {
		return
	}
	s.Picked = i
	go func() {
		defer v.a.guard()
		v.update(s)
	}()
}
