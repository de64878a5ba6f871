//go:build js && wasm

package main

import (
	"fmt"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// view draws a session's results: the overview (runs side by side or the
// sweep), the summary table, the shown run's figures and #report.
type view struct {
	a                               *app
	overview, summary, figures, rep dom.HTMLElement
	results                         dom.HTMLElement
	cards                           map[string]*card
}

// card is one figure on the page with its download button.
type card struct {
	root, body dom.HTMLElement
	svg        []byte
	file       string // download name
	perRun     bool   // a figure of the shown run (named after it when there are several)
}

func newView(a *app) *view {
	return &view{a: a, overview: byID("overview"), summary: byID("summary"), figures: byID("figures"),
		rep: byID("report"), results: byID("results"), cards: map[string]*card{}}
}

// reset clears the results and lays out the (empty, hidden) figure cards
// of a new session (nil: nothing to show).
func (v *view) reset(s *page.Session) {
	removeChildren(v.overview)
	removeChildren(v.summary)
	removeChildren(v.figures)
	v.rep.SetTextContent("")
	v.cards = map[string]*card{}
	show(v.results, s != nil)
	show(byID("hint"), s == nil && config.Info(v.a.demo).Trainable)
	if s == nil {
		return
	}
	overview, detail := page.Layout(s)
	cols := 2
	if s.Settings.Demo != config.Sweep {
		cols = max(2, min(len(s.Runs), 3))
	}
	v.overview.Style().SetProperty("grid-template-columns", fmt.Sprintf("repeat(%d, minmax(0, 1fr))", cols), "")
	for _, sl := range overview {
		v.newCard(v.overview, sl, false)
	}
	if c := v.cards[experiment.CompareReliabilityFile]; c != nil {
		// Two diagrams side by side take the whole row.
		c.root.Style().SetProperty("grid-column", "1 / -1", "")
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
	v.drawSummary(s)
	jr := s.Runs[s.Shown()]
	v.rep.SetTextContent(string(jr.Report))
	v.a.updateDownloads()
	overview, detail := page.Layout(s)
	for _, sl := range overview {
		v.fill(sl.Name, s.Overview[sl.Name])
	}
	for _, sl := range detail {
		v.fill(sl.Name, jr.Figs[sl.Name])
	}
}

// newCard adds a hidden figure card to parent.
func (v *view) newCard(parent dom.HTMLElement, sl page.Slot, perRun bool) {
	c := &card{root: el("figure", "card", ""), body: el("div", "plot", ""), file: sl.Name, perRun: perRun}
	c.root.SetAttribute("data-name", sl.Name)
	capt := el("figcaption", "", "")
	capt.AppendChild(el("span", "", sl.Caption))
	btn := el("button", "link", "SVG ⤓")
	btn.SetAttribute("type", "button")
	btn.SetAttribute("title", "download this figure as SVG")
	capt.AppendChild(btn)
	c.root.AppendChild(c.body)
	c.root.AppendChild(capt)
	show(c.root, false)
	parent.AppendChild(c.root)
	v.cards[sl.Name] = c
	v.a.on(btn, "click", func(dom.Event) { download(v.a.fileName(c.file, c.perRun), "image/svg+xml", c.svg) })
}

// fill shows svg in the named card; nothing changes when svg is nil or
// unchanged. After a change it waits for the browser to draw a frame.
func (v *view) fill(name string, svg []byte) {
	c := v.cards[name]
	if c == nil || svg == nil || string(svg) == string(c.svg) {
		return
	}
	c.svg = svg
	// Hand the browser a frame with nothing but this figure to draw.
	v.a.yield.now()
	c.body.SetInnerHTML(string(svg))
	show(c.root, true)
	v.a.yield.frame()
}

// drawSummary rebuilds the table of runs; a click on a run shows its
// figures.
func (v *view) drawSummary(s *page.Session) {
	removeChildren(v.summary)
	table := el("table", "summary", "")
	v.fillTable(table, page.SummaryHeader, nil)
	body := table.QuerySelector("tbody").(dom.HTMLElement)
	for i, jr := range s.Runs {
		tr := el("tr", "", "")
		if i == s.Shown() {
			tr.Class().Add("shown")
		}
		pick := el("button", "link", jr.Label)
		pick.SetAttribute("type", "button")
		pick.SetAttribute("title", "show this run's figures and report")
		idx := i
		v.a.on(pick, "click", func(dom.Event) {
			s.Picked = idx
			go func() {
				defer v.a.guard()
				v.update(s)
			}()
		})
		td := el("td", "", "")
		td.AppendChild(pick)
		tr.AppendChild(td)
		for _, cell := range page.SummaryCells(jr) {
			tr.AppendChild(el("td", "", cell))
		}
		body.AppendChild(tr)
	}
	v.summary.AppendChild(table)
	if jr := s.Runs[s.Shown()]; jr.Rep != nil {
		v.drawExtras(jr.Rep)
	}
	v.drawGap(s)
}

// drawGap adds the gap between the heads of an images comparison to the
// summary (#compare-gap), once both have finished (or both were opened),
// and how well each head's scores tell the other data set's images apart
// (#compare-ood).
func (v *view) drawGap(s *page.Session) {
	gap := page.Gap(s)
	if gap == "" {
		return
	}
	p := el("p", "gap", gap)
	p.SetID("compare-gap")
	v.summary.AppendChild(p)
	if o := page.OODComparison(s); o != "" {
		p := el("p", "gap", o)
		p.SetID("compare-ood")
		v.summary.AppendChild(p)
	}
}

// drawExtras adds the shown run's test evaluations to the summary
// (#extras, page.Extras) and, for an image run that scored another data
// set, each out-of-distribution score's figures (#ood).
func (v *view) drawExtras(full *page.Report) {
	t := page.Extras(full)
	if t == nil {
		return
	}
	table := el("table", "summary extras", "")
	table.SetID("extras")
	v.fillTable(table, t.Header, t.Rows)
	v.summary.AppendChild(table)
	if o := page.OOD(full); o != "" {
		p := el("p", "extras", o)
		p.SetID("ood")
		v.summary.AppendChild(p)
	}
}

// fillTable adds a header and rows of text to table.
func (v *view) fillTable(table dom.HTMLElement, header []string, rows [][]string) {
	head := el("tr", "", "")
	for _, h := range header {
		head.AppendChild(el("th", "", h))
	}
	thead := el("thead", "", "")
	thead.AppendChild(head)
	table.AppendChild(thead)
	body := el("tbody", "", "")
	for _, r := range rows {
		tr := el("tr", "", "")
		for _, cell := range r {
			tr.AppendChild(el("td", "", cell))
		}
		body.AppendChild(tr)
	}
	table.AppendChild(body)
}
