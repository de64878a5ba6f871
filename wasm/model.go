//go:build js && wasm

package main

import (
	"fmt"
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
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
	sess *page.Session
	data string
	// opening is the session of models being opened, with the session and
	// the state the page had before (restored when opening fails).
	opening   *page.Session
	prev      *page.Session
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
	// How the model was trained (a whole command line) is folded, so that
	// Train stays near the top of the form.
	about := el("details", "help", "")
	about.AppendChild(el("summary", "", "How it was trained"))
	about.AppendChild(m.about)
	for _, e := range []dom.HTMLElement{label, row, about, m.msg} {
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
		opt := el("option", "", fmt.Sprintf("%s: %s", info.Name, page.ModelSummary(&info)))
		opt.SetAttribute("value", info.Name)
		m.pick.AppendChild(opt)
	}
	enable(m.pick, len(m.index) > 0)
	enable(m.openBtn, len(m.index) > 0)
	m.describe()
}

// describe says how the chosen model was trained and what opening it
// downloads.
func (m *models) describe() {
	info := page.FindModel(m.index, m.pick.Underlying().Get("value").String())
	enable(m.bothBtn, info != nil && page.Counterpart(m.index, info) != nil)
	m.about.SetTextContent(page.ModelAbout(m.index, info))
}

// openHosted opens the site's model name (model=name in the URL, or the
// Open button). With compare on in the form, it opens the site's model of
// the other head on the same data set beside it, when there is one.
func (m *models) openHosted(name string) {
	if !m.ready() {
		return
	}
	info := page.FindModel(m.index, name)
	if info == nil {
		m.msg.SetTextContent(page.UnknownModel(m.index, name))
		return
	}
	m.pick.Underlying().Set("value", name)
	m.describe()
	names := []string{name}
	if m.a.form.raw()["compare"] == "1" {
		if other := page.Counterpart(m.index, info); other != nil {
			names = append(names, other.Name)
		}
	}
	m.open(info.Data, &protocol.Open{Hosted: names}, nil)
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
	a.sendSession(protocol.Command{Kind: protocol.CmdOpen, Session: sess.ID, Open: o, Start: sess.Start()}, files)
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
func (m *models) opened(s *page.Session, op *protocol.Opened) {
	a := m.a
	if m.opening != s {
		return
	}
	m.opening, m.prev = nil, nil
	for r := range a.checkpoints {
		if !slices.Contains(s.Runs, r) {
			delete(a.checkpoints, r) // the checkpoints of the session shown before
		}
	}
	line := s.Opened(op)
	m.hosted = op.Hosted
	m.sess, m.data = nil, ""
	if op.Continuable {
		m.sess, m.data = s, s.Settings.Image.Data
	}
	a.form.setRaw(s.Settings.Raw())
	a.edited()
	a.view.update(s)
	a.setProgressText(line)
	a.setIdle(false)
	show(m.cont, op.Continuable)
	body().SetAttribute("data-model", op.Label)
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
	a.show(sess)
	a.view.reset(sess)
	a.setTraining()
	a.sendSession(protocol.Command{Kind: protocol.CmdContinue, Session: sess.ID, Start: sess.Start()}, nil)
}

// forget hides Continue training: the opened model is no longer shown, or
// trains on.
func (m *models) forget() {
	m.sess, m.hosted = nil, ""
	show(m.cont, false)
	doc.(dom.HTMLDocument).Body().RemoveAttribute("data-model")
}
