//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"strings"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/wasm/config"
)

// detailFigures are the figures of the shown run, in page order, with the
// captions under them.
var detailFigures = []struct{ name, caption string }{
	{"embedding.svg", "Test embeddings, the head's 90% ellipses, class means and decision regions, shaded by the head's log density (the term DNLL penalises) when that is on."},
	{"consistency.svg", "The learned Gaussians against the closed-form LDA fit on the same training embeddings."},
	{"curves.svg", "Mean training loss per epoch."},
	{"accuracy.svg", "Accuracy per epoch and the test ECE (10 bins)."},
	{"logdet.svg", "log det Σ per epoch: under NLL it falls without bound."},
	{"reliability.svg", "Reliability diagram on the test set (10 bins)."},
	{"confidence.svg", "Confidence histogram on the test set."},
}

// imageFigures are the figures of an image run, in page order.
var imageFigures = []struct{ name, caption string }{
	{"embedding.svg", "Test embeddings on their first two principal components, with the LDA head's projected means and 90% ellipses."},
	{"reliability.svg", "Reliability diagram on the test set, 10 bins (BatchNorm statistics recomputed where the run recomputed them, as the table below says; else the trained ones)."},
	{"confidence.svg", "Confidence histogram on the test set."},
	{"reliability_temperature.svg", "Reliability on the test set after temperature scaling (fitted on held-out training images)."},
	{"curves.svg", "Mean training loss per epoch."},
	{"accuracy.svg", "Accuracy per epoch and the test ECE (10 bins); the per-epoch rows use the running BatchNorm statistics."},
	{"logdet.svg", "log det Σ per epoch."},
	{"ood_scores.svg", "Out-of-distribution scores (those of report.json's ood: the model's head's of every score the summary lists) on the test images and on the other data set's."},
	{"ood_roc.svg", "How well each score tells the test images from the other data set's: ROC curves and their areas (AUROC)."},
}

// headLabel names a head kind in the page's text ("LDA head").
func headLabel(h string) string {
	if h == model.HeadLDA.String() {
		return "LDA head"
	}
	return h + " head"
}

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

// slot is a figure's place on the page: its card name and caption.
type slot struct{ name, caption string }

// layout returns the figures a session shows, in page order: the overview
// (runs side by side, or the sweep) and the shown run's figures.
func layout(s *session) (overview, detail []slot) {
	multi := len(s.runs) > 1
	switch {
	case multi && s.settings.Demo == config.Sweep:
		overview = []slot{
			{"sweep_accuracy.svg", "Test accuracy of every finished run against λ."},
			{"sweep_ece.svg", "Test ECE (10 bins) of every finished run against λ."},
			{"sweep_sigma.svg", "The learned σ of the spherical head against λ."},
		}
	case multi && s.settings.Demo == config.Images:
		overview = []slot{
			{experiment.CompareECEFigure, "Test ECE (10 bins) per epoch of both heads (running BatchNorm statistics)."},
			{experiment.CompareAccuracyFigure, "Test accuracy per epoch of both heads."},
			{experiment.CompareReliabilityFile, "Reliability diagrams of both heads on the test set, side by side."},
		}
	case multi:
		for i, jr := range s.runs {
			overview = append(overview, slot{fmt.Sprintf("run%d-embedding.svg", i+1), jr.label + ": test embeddings and the head's Gaussians."})
		}
		overview = append(overview,
			slot{"compare-logdet.svg", "log det Σ of every run."},
			slot{"compare-accuracy.svg", "Test accuracy of every run."})
	}
	figs := detailFigures
	if s.settings.Demo == config.Images {
		figs = imageFigures
	}
	for _, f := range figs {
		if multi && (s.settings.Demo == config.Deep || s.settings.Demo == config.Classical) && f.name == "embedding.svg" {
			continue // already side by side above
		}
		detail = append(detail, slot{f.name, f.caption})
	}
	return overview, detail
}

// reset clears the results and lays out the (empty, hidden) figure cards
// of a new session (nil: nothing to show).
func (v *view) reset(s *session) {
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
	overview, detail := layout(s)
	cols := 2
	if s.settings.Demo != config.Sweep {
		cols = max(2, min(len(s.runs), 3))
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
func (v *view) update(s *session) {
	if s == nil {
		return
	}
	show(v.results, true)
	show(byID("hint"), false)
	v.drawSummary(s)
	jr := s.runs[s.shown()]
	v.rep.SetTextContent(string(jr.report))
	v.a.updateDownloads()
	overview, detail := layout(s)
	for _, sl := range overview {
		v.fill(sl.name, s.overview[sl.name])
	}
	for _, sl := range detail {
		v.fill(sl.name, jr.figs[sl.name])
	}
}

// newCard adds a hidden figure card to parent.
func (v *view) newCard(parent dom.HTMLElement, sl slot, perRun bool) {
	c := &card{root: el("figure", "card", ""), body: el("div", "plot", ""), file: sl.name, perRun: perRun}
	c.root.SetAttribute("data-name", sl.name)
	capt := el("figcaption", "", "")
	capt.AppendChild(el("span", "", sl.caption))
	btn := el("button", "link", "SVG ⤓")
	btn.SetAttribute("type", "button")
	btn.SetAttribute("title", "download this figure as SVG")
	capt.AppendChild(btn)
	c.root.AppendChild(c.body)
	c.root.AppendChild(capt)
	show(c.root, false)
	parent.AppendChild(c.root)
	v.cards[sl.name] = c
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
func (v *view) drawSummary(s *session) {
	removeChildren(v.summary)
	table := el("table", "summary", "")
	head := el("tr", "", "")
	for _, h := range []string{"Run", "Status", "Train acc.", "Test acc.", "Test ECE (10 bins)", "log det Σ", "σ", "Mean shift", "KL", "Train time"} {
		head.AppendChild(el("th", "", h))
	}
	thead := el("thead", "", "")
	thead.AppendChild(head)
	table.AppendChild(thead)
	body := el("tbody", "", "")
	for i, jr := range s.runs {
		tr := el("tr", "", "")
		if i == s.shown() {
			tr.Class().Add("shown")
		}
		pick := el("button", "link", jr.label)
		pick.SetAttribute("type", "button")
		pick.SetAttribute("title", "show this run's figures and report")
		idx := i
		v.a.on(pick, "click", func(dom.Event) {
			s.picked = idx
			go func() {
				defer v.a.guard()
				v.update(s)
			}()
		})
		td := el("td", "", "")
		td.AppendChild(pick)
		tr.AppendChild(td)
		for _, cell := range summaryCells(jr) {
			tr.AppendChild(el("td", "", cell))
		}
		body.AppendChild(tr)
	}
	table.AppendChild(body)
	v.summary.AppendChild(table)
	if jr := s.runs[s.shown()]; jr.rep != nil {
		v.drawExtras(jr.rep)
	}
	if s.settings.Demo == config.Images && len(s.runs) > 1 {
		v.drawGap(s)
	}
}

// drawGap adds the gap between the heads of an images comparison to the
// summary (#compare-gap), once both have finished (or both were opened).
func (v *view) drawGap(s *session) {
	for _, jr := range s.runs {
		if jr.status != "done" && !jr.opened || jr.rep == nil {
			return
		}
	}
	c := experiment.NewComparison(*s.jobs[0].Image, *s.jobs[1].Image, &s.runs[0].rep.Report, &s.runs[1].rep.Report)
	p := el("p", "gap", fmt.Sprintf("Gap (LDA − softmax) on the test set: accuracy %+.2f points, ECE (10 bins) %+.2f points (%s: %.2f%%, ECE %.2f%%; %s: %.2f%%, ECE %.2f%%).",
		100*float64(c.Gap.Accuracy), 100*float64(c.Gap.ECE),
		c.LDA.Label(), 100*float64(c.LDA.Test.Accuracy), 100*float64(c.LDA.Test.ECE),
		c.Softmax.Label(), 100*float64(c.Softmax.Test.Accuracy), 100*float64(c.Softmax.Test.ECE)))
	p.SetID("compare-gap")
	v.summary.AppendChild(p)
	if o := oodComparison(s); o != "" {
		p := el("p", "gap", o)
		p.SetID("compare-ood")
		v.summary.AppendChild(p)
	}
}

// oodComparison says how well each head's scores of experiment.Scores tell
// the test images from the other data set's, when both runs scored it: ""
// otherwise.
func oodComparison(s *session) string {
	var parts []string
	for i, jr := range s.runs {
		if jr.rep == nil || jr.rep.OOD == nil {
			return ""
		}
		head := headLabel(s.jobs[i].Image.Head)
		for _, sc := range experiment.OODScores() {
			if d, ok := jr.rep.OOD.Detection(sc.Name); ok {
				parts = append(parts, fmt.Sprintf("%s's %s %.2f%%", head, sc.Label, 100*d.AUROC))
			}
		}
	}
	o := s.runs[0].rep.OOD
	return fmt.Sprintf("Out-of-distribution detection against %s (AUROC, %d test images against %d): %s.", o.Dataset, o.NIn, o.NOut, strings.Join(parts, ", "))
}

// drawExtras adds the shown run's test evaluations to the summary (#extras):
// accuracy, the calibration metrics of experiment.Scores and NLL of its
// test split, or for an image run that recomputed its BatchNorm
// statistics of both evaluations, and after temperature scaling; then, for
// an image run that scored another data set, each out-of-distribution
// score's figures (#ood).
func (v *view) drawExtras(full *fullReport) {
	rep, x := &full.Report, full.ImageExtras
	if rep.Test.Examples == 0 {
		return
	}
	calibration := experiment.CalibrationScores()
	table := el("table", "summary extras", "")
	table.SetID("extras")
	head := el("tr", "", "")
	head.AppendChild(el("th", "", "Test evaluation"))
	head.AppendChild(el("th", "", "Accuracy"))
	for _, sc := range calibration {
		head.AppendChild(el("th", "", sc.Label))
	}
	head.AppendChild(el("th", "", "NLL"))
	thead := el("thead", "", "")
	thead.AppendChild(head)
	table.AppendChild(thead)
	body := el("tbody", "", "")
	row := func(name string, split report.Split) {
		tr := el("tr", "", "")
		tr.AppendChild(el("td", "", name))
		tr.AppendChild(el("td", "", fmt.Sprintf("%.2f%%", 100*float64(split.Accuracy))))
		for _, sc := range calibration {
			cell := "–" // a report written before the metric
			if m, ok := split.Metric(sc.Name); ok {
				cell = fmt.Sprintf("%.4f", float64(m))
			}
			tr.AppendChild(el("td", "", cell))
		}
		tr.AppendChild(el("td", "", fmt.Sprintf("%.4f", float64(split.NLL))))
		body.AppendChild(tr)
	}
	if bn := x.BatchNorm; bn != nil {
		row(fmt.Sprintf("BatchNorm: recalibrated (%d batches of %d)", bn.Batches, bn.Batch), bn.Recalibrated)
		row("BatchNorm: running statistics (as trained)", bn.Running)
	} else {
		row("Test set", rep.Test)
	}
	if ts := x.Temperature; ts != nil {
		row(fmt.Sprintf("Temperature scaled (T = %.3g, fitted on %d held-out images)", ts.T, ts.ValExamples), ts.TestAfter)
	}
	table.AppendChild(body)
	v.summary.AppendChild(table)
	if o := x.OOD; o != nil {
		var parts []string
		for _, sc := range experiment.OODScores() {
			if d, ok := o.Detection(sc.Name); ok {
				parts = append(parts, fmt.Sprintf("%s %.2f%%, %.2f%%, %.2f%%", sc.Label, 100*d.AUROC, 100*d.AUPR, 100*d.FPRAt95TPR))
			}
		}
		p := el("p", "extras", fmt.Sprintf("Out-of-distribution detection against %s (%d test images against %d; AUROC, AUPR, FPR at 95%% TPR): %s.", o.Dataset, o.NIn, o.NOut, strings.Join(parts, "; ")))
		p.SetID("ood")
		v.summary.AppendChild(p)
	}
}

// summaryCells formats a run's report for the summary table.
func summaryCells(jr *runView) []string {
	dash := "–"
	if jr.rep == nil {
		return []string{jr.status, dash, dash, dash, dash, dash, dash, dash, dash}
	}
	r := &jr.rep.Report
	pct := func(f report.Float, ok bool) string {
		if !ok || math.IsNaN(float64(f)) {
			return dash
		}
		return fmt.Sprintf("%.2f%%", 100*float64(f))
	}
	num := func(f *report.Float) string {
		if f == nil || math.IsNaN(float64(*f)) {
			return dash
		}
		return fmt.Sprintf("%.3g", float64(*f))
	}
	hasTrain, hasTest := r.Train.Examples > 0, r.Test.Examples > 0
	logdet := r.Head.LogDetCov
	if n := len(r.History); n > 0 && r.History[n-1].LogDetCov != nil {
		logdet = r.History[n-1].LogDetCov
	}
	var shift, kl *report.Float
	if c := r.Consistency; c != nil {
		shift, kl = &c.MeanShift, &c.KL
	}
	return []string{jr.status, pct(r.Train.Accuracy, hasTrain), pct(r.Test.Accuracy, hasTest), pct(r.Test.ECE, hasTest),
		num(logdet), num(r.Head.Sigma), num(shift), num(kl), trainTime(float64(r.Seconds))}
}

// slug turns a run's label into a file-name prefix ("DNLL, λ = 0.01" gives
// "dnll-lambda-0.01").
func slug(label string) string {
	label = strings.ReplaceAll(strings.ToLower(label), "λ", "lambda")
	var b strings.Builder
	dash := false
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// trainTime writes a training time in seconds, with hundredths under ten
// seconds (a short toy run takes a few of them).
func trainTime(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}
