//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"strings"

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

// card is one figure on the page with its caption and download buttons.
type card struct {
	root, body, caption dom.HTMLElement
	svg                 string
	file                string // download name
	perRun              bool   // a figure of the shown run (named after it when there are several)
}

func newView(a *app) *view {
	v := &view{a: a, overview: byID("overview"), summary: byID("summary"), figures: byID("figures"),
		rep: byID("report"), results: byID("results"), figuresTitle: byID("figures-title"), cards: map[string]*card{}}
	a.on(v.summary, "click", v.clicked)
	return v
}

// reset clears the results and lays out the (empty, hidden) figure cards
// of a new session (nil: nothing to show).
func (v *view) reset(s *page.Session) {
	removeChildren(v.overview)
	removeChildren(v.summary)
	removeChildren(v.figures)
	v.rep.SetTextContent("")
	show(v.figuresTitle, false)
	v.cards = map[string]*card{}
	show(v.results, s != nil)
	show(byID("hint"), s == nil && config.Info(v.a.demo).Trainable)
	if s == nil {
		return
	}
	overview, detail := page.Layout(s)
	for _, sl := range overview {
		v.newCard(v.overview, sl, false)
	}
	for _, sl := range detail {
		v.newCard(v.figures, sl, true)
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
	v.drawSummary(s)
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

// newCard adds a hidden figure card to parent, with the buttons that
// download its figure as SVG and as PNG (data-download).
func (v *view) newCard(parent dom.HTMLElement, sl page.Slot, perRun bool) {
	c := &card{root: el("figure", "card", ""), body: el("div", "plot", ""), caption: el("span", "", sl.Caption), file: sl.Name, perRun: perRun}
	c.root.SetAttribute("data-name", sl.Name)
	capt := el("figcaption", "", "")
	capt.AppendChild(c.caption)
	btns := el("span", "fig-buttons", "")
	capt.AppendChild(btns)
	c.root.AppendChild(c.body)
	c.root.AppendChild(capt)
	show(c.root, false)
	parent.AppendChild(c.root)
	v.cards[sl.Name] = c
	v.a.on(figButton(btns, "svg", "download this figure as SVG"), "click", func(dom.Event) {
		download(v.a.fileName(c.file, c.perRun), "image/svg+xml", []byte(c.svg))
	})
	v.a.on(figButton(btns, "png", fmt.Sprintf("download this figure as PNG, %d times its size", pngScale)), "click", func(dom.Event) {
		name := v.a.fileName(strings.TrimSuffix(c.file, ".svg")+".png", c.perRun)
		go func() {
			defer v.a.guard()
			if err := downloadPNG(name, c.svg); err != nil {
				v.a.showError(err.Error())
			}
		}()
	})
}

// figButton adds to box a button that downloads a card's figure in format
// (svg or png), and returns it.
func figButton(box dom.HTMLElement, format, title string) dom.HTMLElement {
	b := el("button", "link", strings.ToUpper(format)+" ⤓")
	b.SetAttribute("type", "button")
	b.SetAttribute("title", title)
	b.SetAttribute("data-download", format)
	box.AppendChild(b)
	return b
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

// drawSummary rebuilds the summary box (page.SummaryHTML); a click on a
// run's label shows its figures (see pickRun).
func (v *view) drawSummary(s *page.Session) {
	v.summary.SetInnerHTML(page.SummaryHTML(s))
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
