package page

import (
	"fmt"
	"html"
	"path"
	"slices"
	"strconv"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file is what App shows besides the controls: a session's figures
// and tables, the benchmark's table, and the panels of the images demo's
// data and trained models and of deeplda ui's runs folder.

// resetCards clears the results and lays out the (empty, hidden) figure
// cards of a new session (nil: nothing to show).
func (a *App) resetCards(s *Session) { a.cards.Reset(a.doc, s, config.Info(a.demo).Trainable) }

// updateCards redraws everything of s that changed. It yields to the
// browser after each new figure (so that the browser lays out and paints
// one at a time), so it blocks.
func (a *App) updateCards(s *Session) {
	if s == nil {
		return
	}
	ShowResults(a.doc, s)
	a.updateDownloads()
	a.host.Yield()
	overview, detail := Layout(s)
	for _, sl := range overview {
		a.fill(sl.Name, s.Overview[sl.Name])
	}
	for _, sl := range detail {
		a.cards.Caption(a.doc, sl.Name, sl.Caption)
		a.fill(sl.Name, s.Runs[s.Shown()].Figs[sl.Name])
	}
}

// fill shows svg in the named card; nothing changes when svg is empty or
// unchanged. After a change it waits for the browser to draw a frame.
func (a *App) fill(name, svg string) {
	if !a.cards.Changes(name, svg) {
		return
	}
	// Hand the browser a frame with nothing but this figure to draw.
	a.host.Yield()
	a.cards.Set(a.doc, name, svg)
	a.host.Frame()
}

// fillLive shows the shown run's live loss curve svg at once, to be drawn
// in the same frame as the progress line: a small figure that changes
// with every progress event.
func (a *App) fillLive(svg string) {
	if a.cards.Changes(LossStepsFigure, svg) {
		a.cards.Set(a.doc, LossStepsFigure, svg)
	}
}

// SaveFigure offers the figure of card name in format svg or png.
func (a *App) SaveFigure(name, format string) {
	svg, perRun := a.cards.Figure(name)
	if svg == "" {
		return
	}
	file := FigureFile(a.sess, name, format, perRun)
	if format == "svg" {
		a.host.Save(file, "image/svg+xml", []byte(svg))
		return
	}
	go func() {
		defer a.Guard()
		if err := a.host.SavePNG(file, svg); err != nil {
			ShowError(a.doc, err.Error())
		}
	}()
}

// SaveTable offers the summary's table id as CSV.
func (a *App) SaveTable(id string) {
	if a.sess == nil {
		return
	}
	if t, perRun := SessionTable(a.sess, id); t != nil {
		a.host.Save(DownloadName(a.sess, t.File, perRun), "text/csv", t.CSV())
	}
}

// PickRun shows the figures of run i (the summary's data-run).
func (a *App) PickRun(i string) {
	s := a.sess
	n, err := strconv.Atoi(i)
	if s == nil || err != nil || n < 0 || n >= len(s.Runs) {
		return
	}
	s.Picked = n
	go func() {
		defer a.Guard()
		a.updateCards(s)
	}()
}

// warmUpDrawing draws a figure like the engine's once outside the visible
// page and removes it, while the engine warms up: the first figure costs
// the browser a few hundred milliseconds more than later ones (fonts for
// the figures' symbols, first layout of SVG text), which belong to the
// page's loading, not to the first run's end.
func (a *App) warmUpDrawing() {
	svg := plot.Embedding(plot.Figure{Title: "z₁ z₂ Σ σ λ μ", XLabel: "z₁", YLabel: "z₂", Caption: "mean shift · KL"},
		plot.Points{X: []float64{0, 1, 2}, Y: []float64{0, 1, 0}, Class: []int{0, 1, 2}}, nil,
		[]plot.Ellipse{{Class: 0, Points: [][2]float64{{0, 0}, {1, 0}, {1, 1}}}}, []plot.Mean{{Class: 1, X: 1, Y: 1}}, nil)
	a.doc.Append("body", `<div id="warm-up" aria-hidden="true" style="position:fixed;left:-10000px;top:0;width:680px;pointer-events:none">`+string(svg)+`</div>`)
	a.host.Frame()
	a.doc.Remove("#warm-up")
}

// benchMode readies the benchmark of the URL (bench=1, Bench): bad
// settings end in the error state with the one-line notice; else the
// engine starts on backend (hello) and, once it is ready, the Train
// button runs the suite, or autostart runs it at once.
func (a *App) benchMode(q config.Query, backend experiment.BackendKind, hello *protocol.Hello, autostart bool) {
	suite, err := ParseBench(q)
	if err != nil {
		ShowError(a.doc, "The benchmark's settings: "+err.Error())
		a.writeBench(BenchResult{Error: err.Error()})
		SetState(a.doc, "error")
		a.doc.SetAttr("body", "data-ready", "1")
		return
	}
	a.bench = &Bench{Suite: suite, Backend: backend}
	a.onReady = func() {
		a.bench.Name = a.doc.Attr("#backend", "data-backend")
		a.doc.SetText("#train", "Run the benchmark")
		SetProgressText(a.doc, a.bench.ReadyText())
		Show(a.doc, "#progress", true)
		if autostart {
			a.runBench()
		}
	}
	a.startEngine(hello)
}

// runBench has the engine time the suite, unless it is running.
func (a *App) runBench() {
	if a.benching {
		return
	}
	a.benching = true
	cmd, text := a.bench.Start()
	HideError(a.doc)
	a.setTraining()
	SetProgressText(a.doc, text)
	a.host.Send(cmd, nil)
}

// onBench shows an event of the engine's benchmark (EvBench, EvBenchDone).
func (a *App) onBench(ev protocol.Event) {
	if !a.benching {
		return
	}
	v, ok := a.bench.Apply(ev)
	if !ok {
		return
	}
	if v.Result == nil {
		SetProgress(a.doc, v.Progress)
		SetProgressText(a.doc, v.Text)
		return
	}
	a.benching = false
	a.writeBench(*v.Result)
	a.setIdle(false)
	if v.Notice != "" {
		ShowError(a.doc, v.Notice)
	} else {
		SetProgressText(a.doc, v.Text)
	}
	SetState(a.doc, v.State)
}

// writeBench shows res: its table in the summary and the whole of it in
// #report.
func (a *App) writeBench(res BenchResult) {
	table := ""
	if res.Table != "" {
		table = "<pre>" + html.EscapeString(res.Table) + "</pre>"
	}
	a.doc.SetHTML("#summary", table)
	a.doc.SetText("#report", res.JSON())
	Show(a.doc, "#results", true)
}

// updateData takes where the engine's data sets stand now (Data.Update).
func (a *App) updateData(st *protocol.DataState) {
	msg, pick := a.data.Update(st, Form(a.doc)["data"])
	if msg != "" {
		a.doc.SetText("#e-files", msg)
	}
	if pick != "" {
		a.doc.SetValue("#f-data", pick)
		a.Edited()
	}
	a.describeData()
}

// describeData updates the data panel's line on where the chosen data set
// comes from.
func (a *App) describeData() { a.data.Describe(a.doc, Form(a.doc)["data"]) }

// ReadFiles hands the files the user chose or dropped to the engine,
// which reads the data set they hold (EvData says what it found); a
// single checkpoint is opened as a trained model.
func (a *App) ReadFiles(files []Upload) {
	if len(files) == 0 || !a.ready || a.state() == "training" {
		return
	}
	if len(files) == 1 && IsCheckpoint(files[0].Name) {
		if a.modelReady() {
			a.openModels("", &protocol.Open{File: files[0].Name}, files)
		}
		return
	}
	a.doc.SetText("#e-files", "")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	a.host.Send(protocol.Command{Kind: protocol.CmdFiles, Files: names, Data: Form(a.doc)["data"]}, files)
}

// PickModel describes the model the trained-model panel's select shows.
func (a *App) PickModel() { a.models.Describe(a.doc) }

// OpenModel opens the model the select shows; both opens it beside its
// counterpart (side by side is what reopens both from the URL).
func (a *App) OpenModel(both bool) {
	name := a.doc.Value("#f-model")
	if name == "" || both && a.state() == "training" {
		return
	}
	if both {
		a.doc.SetChecked("#f-compare", true)
		LockForm(a.doc, false)
	}
	a.openHosted(name)
}

// openHosted opens the site's model name (model=name in the URL, or the
// Open button), beside its counterpart with compare on in the form
// (Models.OpenHosted).
func (a *App) openHosted(name string) {
	if !a.modelReady() {
		return
	}
	o, data, msg := a.models.OpenHosted(name, Form(a.doc)["compare"] == "1")
	if o == nil {
		a.doc.SetText("#e-model", msg)
		return
	}
	a.doc.SetValue("#f-model", name)
	a.models.Describe(a.doc)
	a.openModels(data, o, nil)
}

// modelReady reports whether a model can be opened now (the engine is
// ready and nothing trains), clearing the panel's last message.
func (a *App) modelReady() bool {
	if !a.ready || a.state() == "training" {
		return false
	}
	a.doc.SetText("#e-model", "")
	return true
}

// openModels asks the engine to open the models of o (with their files)
// on data (OpenSettings).
func (a *App) openModels(data string, o *protocol.Open, files []Upload) {
	s, errs := OpenSettings(Form(a.doc), data, o)
	if len(errs) > 0 {
		a.openFailed(fmt.Sprintf("fix the settings marked in red first: %v", errs.Err()))
		return
	}
	sess, err := NewSession(a.route.Next(), s)
	if err != nil {
		a.openFailed(err.Error())
		return
	}
	a.models.Begin(sess, a.sess, a.state())
	a.sess = sess
	a.setTraining()
	Enable(a.doc, "#stop", false)
	a.sendSession(protocol.Command{Kind: protocol.CmdOpen, Session: sess.ID, Open: o, Start: sess.Start()}, files)
}

// openFailed shows why a model did not open; the page goes back to what
// it showed.
func (a *App) openFailed(msg string) {
	a.doc.SetText("#e-model", msg)
	prev, st, ok := a.models.Fail()
	if !ok {
		return
	}
	a.sess = prev
	SetProgressText(a.doc, "")
	Show(a.doc, "#progress", false)
	a.setIdle(false)
	SetState(a.doc, st)
}

// opened shows the opened models of session s.
func (a *App) opened(s *Session, op *protocol.Opened) {
	if !a.models.Opened(s, op) {
		return
	}
	for r := range a.checkpoints {
		if !slices.Contains(s.Runs, r) {
			delete(a.checkpoints, r) // the checkpoints of the session shown before
		}
	}
	line := s.Opened(op)
	SetForm(a.doc, s.Settings.Raw())
	a.Edited()
	a.updateCards(s)
	SetProgressText(a.doc, line)
	a.setIdle(false)
	Show(a.doc, "#continue-model", op.Continuable)
	a.doc.SetAttr("body", "data-model", op.Label)
	SetState(a.doc, "done")
}

// ContinueModel trains the opened model on from its checkpoint with the
// form's settings (Models.Continue): a new run, with its own history, and
// Adam from zero.
func (a *App) ContinueModel() {
	if a.state() == "training" {
		return
	}
	s, errs, ok := a.models.Continue(a.sess, Form(a.doc))
	if !ok {
		return
	}
	if len(errs) > 0 {
		SetFormErrors(a.doc, config.Images, errs)
		return
	}
	sess, err := NewSession(a.route.Next(), s)
	if err != nil {
		a.doc.SetText("#e-model", err.Error())
		return
	}
	a.forgetModel()
	a.show(sess)
	a.resetCards(sess)
	a.setTraining()
	a.sendSession(protocol.Command{Kind: protocol.CmdContinue, Session: sess.ID, Start: sess.Start()}, nil)
}

// forgetModel hides Continue training: the opened model is no longer
// shown, or trains on.
func (a *App) forgetModel() {
	a.models.Forget()
	Show(a.doc, "#continue-model", false)
	a.doc.RemoveAttr("body", "data-model")
}

// refreshFolders reads deeplda ui's runs folder again and shows its list.
func (a *App) refreshFolders() {
	if a.native == "" {
		return
	}
	go func() {
		defer a.Guard()
		b, err := a.host.Fetch("runs/index.json")
		if err == nil {
			err = a.folders.Set(b)
		}
		if err != nil {
			a.doc.SetText("#folders", "The runs folder cannot be read: "+err.Error())
			return
		}
		Enable(a.doc, "#folders-compare", a.folders.CanCompare())
		a.drawFolders()
	}()
}

// drawFolders shows the list in its order, unless it is unchanged.
func (a *App) drawFolders() {
	if h, changed := a.folders.HTML(); changed {
		a.doc.SetHTML("#folders", h)
	}
}

// TickFolder records a run's checkbox (data-pick) as it changed.
func (a *App) TickFolder(name string, on bool) {
	a.folders.Tick(name, on)
	Enable(a.doc, "#folders-compare", a.folders.CanCompare())
}

// FolderMarkStyle returns the style of the marker of run name's checkbox,
// as FoldersHTML draws it ("" when it is not ticked): the list is not
// drawn again under the pointer.
func (a *App) FolderMarkStyle(name string) string {
	return RunMarkStyle(slices.Index(a.folders.Picked, name))
}

// SaveFolders offers the runs folder's list as CSV.
func (a *App) SaveFolders() {
	t := FoldersTable(a.folders.List, a.folders.Order)
	a.host.Save(t.File, "text/csv", t.CSV())
}

// SortFolders sorts the list by the column key (a header's data-sort).
func (a *App) SortFolders(key string) {
	a.folders.Order = a.folders.Order.Toggle(key)
	a.drawFolders()
}

// ResumeFolder has the native engine resume run name with its folder's
// configuration; the page shows that session as it shows another tab's.
func (a *App) ResumeFolder(name string) {
	if a.state() != "training" {
		a.host.Send(protocol.Command{Kind: protocol.CmdStart, Session: a.route.Next(), Start: ResumeStart(name)}, nil)
	}
}

// SaveFolderFile offers a run's file (data-file, its URL).
func (a *App) SaveFolderFile(url string) {
	go func() {
		defer a.Guard()
		b, err := a.host.Fetch(url)
		if err != nil {
			ShowError(a.doc, fmt.Sprintf("%s: %v", url, err))
			return
		}
		a.host.Save(path.Base(url), "application/octet-stream", b)
	}()
}

// CompareFolders shows the ticked runs side by side.
func (a *App) CompareFolders() { a.ShowFolders(slices.Clone(a.folders.Picked)) }

// ShowFolders shows the named runs of the list as opened runs (side by
// side when there are several): their reports and their figures, unless
// the page trains.
func (a *App) ShowFolders(names []string) {
	if a.state() == "training" {
		return
	}
	runs := a.folders.Runs(names)
	go func() {
		defer a.Guard()
		read, err := ReadFolders(runs, a.host.Fetch)
		var s *Session
		if err == nil {
			s, err = FolderSession(a.route.Next(), read)
		}
		if err != nil {
			ShowError(a.doc, err.Error())
			return
		}
		a.setDemo(s.Settings.Demo)
		SetForm(a.doc, s.Settings.Raw())
		a.showNew(s)
		a.updateCards(s)
		a.setIdle(false)
		SetState(a.doc, "idle")
	}()
}
