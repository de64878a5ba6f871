//go:build js && wasm

package main

import (
	"fmt"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file opens trained models in the images demo: the ones this site
// hosts (site/models/<name>/, listed in site/models/index.json by the
// build; model=<name> in the URL opens one when the page loads) and the
// checkpoints the user drops or chooses (.safetensors written by deeplda
// train, or by PyTorch with the reference names). An opened model is
// evaluated on the test set of its data set and shown as a run, with the
// history of its report when the site hosts it; Continue training trains
// it on from its weights and BatchNorm statistics for the form's epochs,
// with Adam starting afresh and a new history.

// models is the trained-model panel of the images demo.
type models struct {
	a     *app
	index []experiment.ModelInfo // the site's models; nil: none
	// The opened model, while it is shown: its session and its data set
	// (Continue training trains it on).
	sess *session
	data string
	// opening is the session of models being opened, with the session and
	// the state the page had before (restored when opening fails).
	opening   *session
	prev      *session
	prevState string
	// hosted names the opened model when the site hosts it: model= stays
	// in the URL while it is shown, so that the address reopens it.
	hosted string

	pick, openBtn, bothBtn, cont dom.HTMLElement
	about, msg                   dom.HTMLElement
}

// newModels adds the trained-model panel to the data box.
func newModels(a *app) *models {
	m := &models{a: a, pick: el("select", "", ""), openBtn: el("button", "", "Open"), bothBtn: el("button", "", "Open both heads"),
		cont: el("button", "", "Continue training"), about: el("p", "data-status", ""), msg: el("p", "field-error", "")}
	box := el("div", "model-box", "")
	box.SetID("model-box")
	label := el("label", "", "Trained model")
	label.SetAttribute("for", "f-model")
	m.pick.SetID("f-model")
	m.pick.Style().SetProperty("max-width", "100%", "")
	m.pick.SetAttribute("aria-describedby", "e-model")
	m.openBtn.SetID("open-model")
	m.bothBtn.SetID("open-both")
	m.bothBtn.SetAttribute("title", "open this model and the site's model of the other head on the same data set, side by side")
	m.cont.SetID("continue-model")
	m.about.SetID("model-status")
	m.about.SetAttribute("role", "status")
	m.msg.SetID("e-model")
	m.msg.SetAttribute("role", "alert")
	for _, b := range []dom.HTMLElement{m.openBtn, m.bothBtn, m.cont} {
		b.SetAttribute("type", "button")
	}
	m.cont.SetAttribute("title", "train on from this model's weights and BatchNorm statistics for the epochs above; Adam's moments start afresh")
	show(m.cont, false)
	row := el("div", "buttons", "")
	row.AppendChild(m.pick)
	row.AppendChild(m.openBtn)
	row.AppendChild(m.bothBtn)
	row.AppendChild(m.cont)
	for _, e := range []dom.HTMLElement{label, row, m.about, m.msg} {
		box.AppendChild(e)
	}
	a.data.box.AppendChild(box)
	in := a.data.input
	in.SetAttribute("accept", in.GetAttribute("accept")+",.safetensors")
	a.on(m.pick, "change", func(dom.Event) { m.describe() })
	a.on(m.openBtn, "click", func(dom.Event) {
		if name := m.pick.Underlying().Get("value").String(); name != "" {
			m.openHosted(name)
		}
	})
	a.on(m.bothBtn, "click", func(dom.Event) {
		if name := m.pick.Underlying().Get("value").String(); name != "" && state() != "training" {
			// Side by side is what reopens both from the URL.
			a.form.value("compare").Set("checked", true)
			a.form.lock(false)
			m.openHosted(name)
		}
	})
	a.on(m.cont, "click", func(dom.Event) { m.continueTraining() })
	m.fill()
	return m
}

// setIndex lists the trained models the site hosts (the engine read
// them).
func (m *models) setIndex(idx []experiment.ModelInfo) {
	m.index = idx
	m.fill()
}

// fill lists the site's models in the select.
func (m *models) fill() {
	m.pick.SetInnerHTML("") // the options
	if len(m.index) == 0 {
		m.pick.AppendChild(el("option", "", "this site hosts no trained models"))
		m.pick.Underlying().Get("options").Index(0).Set("value", "")
	}
	for _, info := range m.index {
		opt := el("option", "", fmt.Sprintf("%s: %s", info.Name, summary(&info)))
		opt.SetAttribute("value", info.Name)
		m.pick.AppendChild(opt)
	}
	enable(m.pick, len(m.index) > 0)
	enable(m.openBtn, len(m.index) > 0)
	m.describe()
}

// summary says what a hosted model is, in one line.
func summary(info *experiment.ModelInfo) string {
	head := info.Head + " head"
	if info.Cov != "" {
		head += " (" + info.Cov + ")"
	}
	loss := info.Loss
	if info.Lambda != 0 {
		loss += fmt.Sprintf(", λ = %g", info.Lambda)
	}
	epochs := "epochs"
	if info.Epochs == 1 {
		epochs = "epoch"
	}
	return fmt.Sprintf("%s, %s, %s, %d %s; test accuracy %.2f%%, ECE %.2f%%%s",
		info.Data, head, loss, info.Epochs, epochs, 100*info.TestAccuracy, 100*info.TestECE, trainedBN(info))
}

// trainedBN says, for a checkpoint with recalibrated BatchNorm statistics,
// what its report gives with the statistics as trained.
func trainedBN(info *experiment.ModelInfo) string {
	if info == nil || info.Trained == nil {
		return ""
	}
	return fmt.Sprintf(" (BatchNorm recalibrated; with the statistics as trained %.2f%%, ECE %.2f%%)", 100*info.Trained.Accuracy, 100*info.Trained.ECE)
}

// find returns the site's model name, or nil.
func (m *models) find(name string) *experiment.ModelInfo {
	for i := range m.index {
		if m.index[i].Name == name {
			return &m.index[i]
		}
	}
	return nil
}

// describe says how the chosen model was trained and what opening it
// downloads.
func (m *models) describe() {
	s := "Drop a checkpoint (.safetensors, written by deeplda train or by PyTorch with the reference names) here to open it."
	if info := m.find(m.pick.Underlying().Get("value").String()); info != nil {
		open := fmt.Sprintf("Open downloads its checkpoint (%.1f MB) and evaluates it on the test images. Trained with: %s. ",
			float64(info.CheckpointBytes)/1e6, info.Command)
		other := m.counterpart(info)
		if other != nil {
			open += fmt.Sprintf("Open both heads (or Open with Side by side checked) also opens %s (%s head) beside it. ", other.Name, other.Head)
		}
		enable(m.bothBtn, other != nil)
		s = open + s
	} else {
		enable(m.bothBtn, false)
	}
	m.about.SetTextContent(s)
}

// openHosted opens the site's model name (model=name in the URL, or the
// Open button). With compare on in the form, it opens the site's model of
// the other head on the same data set beside it, when there is one.
func (m *models) openHosted(name string) {
	if !m.ready() {
		return
	}
	info := m.find(name)
	if info == nil {
		var names []string
		for _, i := range m.index {
			names = append(names, i.Name)
		}
		have := "none"
		if len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		m.msg.SetTextContent(fmt.Sprintf("model=%s: this site hosts no trained model of that name (it hosts: %s)", name, have))
		return
	}
	m.pick.Underlying().Set("value", name)
	m.describe()
	names := []string{name}
	if m.a.form.raw()["compare"] == "1" {
		if other := m.counterpart(info); other != nil {
			names = append(names, other.Name)
		}
	}
	m.open(info.Data, &protocol.Open{Hosted: names}, nil)
}

// counterpart returns the site's first model (by name) of the same data set
// as info with the other kind of head (LDA for softmax, softmax for LDA),
// or nil.
func (m *models) counterpart(info *experiment.ModelInfo) *experiment.ModelInfo {
	for i := range m.index {
		o := &m.index[i]
		if o.Data == info.Data && (o.Head == experiment.CompareHeads[0]) != (info.Head == experiment.CompareHeads[0]) {
			return o
		}
	}
	return nil
}

// openFile opens the checkpoint the user dropped or chose (a File).
func (m *models) openFile(f js.Value) {
	if !m.ready() {
		return
	}
	m.open("", &protocol.Open{File: f.Get("name").String()}, []js.Value{f})
}

// ready reports whether a model can be opened now (the app has started and
// nothing trains), clearing the last message.
func (m *models) ready() bool {
	if !m.a.ready || state() == "training" {
		return false
	}
	m.msg.SetTextContent("")
	return true
}

// open asks the engine to open the models of o (with their files) on data
// (the form's data set when ""), planned as the form plans its runs: one,
// or both heads side by side.
func (m *models) open(data string, o *protocol.Open, files []js.Value) {
	a := m.a
	raw := a.form.raw()
	if data != "" {
		raw["data"] = data
	}
	raw["compare"] = "0"
	if len(o.Hosted) == 2 {
		raw["compare"] = "1"
	}
	s, errs := config.Parse(config.Images, raw)
	if len(errs) > 0 {
		m.failed(fmt.Sprintf("fix the settings marked in red first: %v", errs.Err()))
		return
	}
	sess, err := a.newSession(s)
	if err != nil {
		m.failed(err.Error())
		return
	}
	m.opening, m.prev, m.prevState = sess, a.sess, state()
	a.sess = sess
	a.setTraining()
	enable(a.stopBtn, false)
	a.engine.send(protocol.Command{Kind: protocol.CmdOpen, Session: sess.id, Open: o, Start: sess.start()}, files)
}

// failed shows why a model did not open; the page goes back to what it
// showed.
func (m *models) failed(msg string) {
	m.msg.SetTextContent(msg)
	a := m.a
	if m.opening == nil {
		return
	}
	a.sess = m.prev
	m.opening, m.prev = nil, nil
	a.setProgressText("")
	show(a.progressBox, false)
	a.setIdle(false)
	setState(m.prevState)
}

// opened shows the opened models of session s.
func (m *models) opened(s *session, op *protocol.Opened) {
	a := m.a
	if m.opening != s {
		return
	}
	m.opening, m.prev = nil, nil
	var lines []string
	for i, c := range op.Configs {
		c := c
		s.jobs[i].Image, s.jobs[i].Label = &c, config.ImageLabel(c)
		s.runs[i].label = s.jobs[i].Label
		om := op.Models[i]
		lines = append(lines, fmt.Sprintf("%s (%s head): test accuracy %.2f%%, ECE %.2f%% on %d test images of %s%s",
			om.Label, om.Head, 100*om.Accuracy, 100*om.ECE, om.Images, om.Data, trainedBN(om.Info)))
	}
	// The form shows the (first, LDA) model's settings; the held-out
	// images stay the form's.
	c := op.Configs[0]
	c.Val = s.settings.Image.Val
	s.settings.Image = c
	s.settings.Compare = len(op.Configs) == 2
	m.hosted = op.Hosted
	m.sess, m.data = nil, ""
	if op.Continuable {
		m.sess, m.data = s, c.Data
	}
	a.form.setRaw(s.settings.Raw())
	a.edited()
	a.view.update(s)
	if len(lines) == 1 {
		a.setProgressText("Opened " + lines[0] + ". Continue training trains it on (Adam starts afresh).")
	} else {
		a.setProgressText("Opened side by side: " + strings.Join(lines, "; ") + ".")
	}
	a.setIdle(false)
	show(m.cont, op.Continuable)
	doc.(dom.HTMLDocument).Body().SetAttribute("data-model", op.Label)
	setState("done")
}

// continueTraining trains the opened model on from its checkpoint with
// the form's settings (its data set and model stay): a new run, with its
// own history, and Adam from zero.
func (m *models) continueTraining() {
	a := m.a
	if m.sess == nil || a.sess != m.sess || state() == "training" {
		return
	}
	raw := a.form.raw()
	raw["data"] = m.data
	s, errs := config.Parse(config.Images, raw)
	if len(errs) > 0 {
		a.form.showErrors(config.Images, errs)
		return
	}
	s.Compare = false
	sess, err := a.newSession(s)
	if err != nil {
		m.msg.SetTextContent(err.Error())
		return
	}
	m.forget()
	a.sess = sess
	a.view.reset(sess)
	a.setTraining()
	a.engine.send(protocol.Command{Kind: protocol.CmdContinue, Session: sess.id, Start: sess.start()}, nil)
}

// forget hides Continue training: the opened model is no longer shown, or
// trains on.
func (m *models) forget() {
	m.sess, m.hosted = nil, ""
	show(m.cont, false)
	doc.(dom.HTMLDocument).Body().RemoveAttribute("data-model")
}
