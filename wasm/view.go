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
// and #report; its cards are page.Cards.
type view struct {
	page.Cards
	a                     *app
	summary, rep, results dom.HTMLElement // for the benchmark's table
}

func newView(a *app) *view {
	v := &view{a: a, summary: byID("summary"), rep: byID("report"), results: byID("results")}
	a.on(v.summary, "click", v.clicked)
	a.on(byID("overview"), "click", v.download)
	a.on(byID("figures"), "click", v.download)
	return v
}

// reset clears the results and lays out the (empty, hidden) figure cards
// of a new session (nil: nothing to show).
func (v *view) reset(s *page.Session) { v.Reset(ui, s, config.Info(v.a.demo).Trainable) }

// update redraws everything that changed. It yields to the browser after
// each new figure (so that the browser lays out and paints one at a time),
// so it must run in a goroutine, never directly in an event handler.
func (v *view) update(s *page.Session) {
	if s == nil {
		return
	}
	page.ShowResults(ui, s)
	v.a.updateDownloads()
	v.a.yield.now()
	overview, detail := page.Layout(s)
	for _, sl := range overview {
		v.fill(sl.Name, s.Overview[sl.Name])
	}
	for _, sl := range detail {
		v.Caption(ui, sl.Name, sl.Caption)
		v.fill(sl.Name, s.Runs[s.Shown()].Figs[sl.Name])
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
	svg, perRun := v.Figure(name)
	format := b.Get("dataset").Get("download").String()
	file := page.FigureFile(v.a.sess, name, format, perRun)
	if format == "svg" {
		download(file, "image/svg+xml", []byte(svg))
		return
	}
	go func() {
		defer v.a.guard()
		if err := downloadPNG(file, svg); err != nil {
			v.a.showError(err.Error())
		}
	}()
}

// fill shows svg in the named card; nothing changes when svg is nil or
// unchanged. After a change it waits for the browser to draw a frame.
func (v *view) fill(name, svg string) {
	if !v.Changes(name, svg) {
		return
	}
	// Hand the browser a frame with nothing but this figure to draw.
	v.a.yield.now()
	v.Set(ui, name, svg)
	v.a.yield.frame()
}

// fillLive shows the shown run's live loss curve svg at once, to be drawn
// in the same frame as the progress line: a small figure that changes
// with every progress event.
func (v *view) fillLive(svg string) {
	if v.Changes(page.LossStepsFigure, svg) {
		v.Set(ui, page.LossStepsFigure, svg)
	}
}

// clicked downloads the summary's table whose CSV button was clicked
// (data-csv), or shows the figures of the run whose label was (a button
// with data-run).
func (v *view) clicked(ev dom.Event) {
	s := v.a.sess
	if id := csvButton(ev); id != "" && s != nil {
		if t, perRun := page.SessionTable(s, id); t != nil {
			downloadCSV(t, page.DownloadName(s, t.File, perRun))
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
