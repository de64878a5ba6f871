//go:build js && wasm

package main

import (
	"fmt"
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

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

// models is the trained-model panel of the images demo
// (page.ModelBoxHTML), its state page.Models.
type models struct {
	page.Models
	a   *app
	msg dom.HTMLElement
}

// newModels adds the trained-model panel to the data box.
func newModels(a *app) *models {
	a.data.box.Underlying().Call("insertAdjacentHTML", "beforeend", page.ModelBoxHTML)
	m := &models{a: a, msg: byID("e-model")}
	in := a.data.input
	in.SetAttribute("accept", in.GetAttribute("accept")+",.safetensors")
	a.on(byID("f-model"), "change", func(dom.Event) { m.Describe(ui) })
	a.on(byID("open-model"), "click", func(dom.Event) {
		if name := m.picked(); name != "" {
			m.openHosted(name)
		}
	})
	a.on(byID("open-both"), "click", func(dom.Event) {
		if name := m.picked(); name != "" && state() != "training" {
			// Side by side is what reopens both from the URL.
			ui.SetChecked("#f-compare", true)
			page.LockForm(ui, false)
			m.openHosted(name)
		}
	})
	a.on(byID("continue-model"), "click", func(dom.Event) { m.continueTraining() })
	m.SetIndex(ui, nil)
	return m
}

// picked returns the name of the model the select shows.
func (m *models) picked() string { return ui.Value("#f-model") }

// openHosted opens the site's model name (model=name in the URL, or the
// Open button), beside its counterpart with compare on in the form
// (page.Models.OpenHosted).
func (m *models) openHosted(name string) {
	if !m.ready() {
		return
	}
	o, data, msg := m.OpenHosted(name, page.Form(ui)["compare"] == "1")
	if o == nil {
		m.msg.SetTextContent(msg)
		return
	}
	ui.SetValue("#f-model", name)
	m.Describe(ui)
	m.open(data, o, nil)
}

// openFile opens the checkpoint the user dropped or chose (a File).
func (m *models) openFile(f js.Value) {
	if m.ready() {
		m.open("", &protocol.Open{File: f.Get("name").String()}, []js.Value{f})
	}
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
// (page.OpenSettings).
func (m *models) open(data string, o *protocol.Open, files []js.Value) {
	a := m.a
	s, errs := page.OpenSettings(page.Form(ui), data, o)
	if len(errs) > 0 {
		m.failed(fmt.Sprintf("fix the settings marked in red first: %v", errs.Err()))
		return
	}
	sess, err := a.newSession(s)
	if err != nil {
		m.failed(err.Error())
		return
	}
	m.Begin(sess, a.sess, state())
	a.sess = sess
	a.setTraining()
	page.Enable(ui, "#stop", false)
	a.sendSession(protocol.Command{Kind: protocol.CmdOpen, Session: sess.ID, Open: o, Start: sess.Start()}, files)
}

// failed shows why a model did not open; the page goes back to what it
// showed.
func (m *models) failed(msg string) {
	m.msg.SetTextContent(msg)
	a := m.a
	prev, st, ok := m.Fail()
	if !ok {
		return
	}
	a.sess = prev
	a.setProgressText("")
	page.Show(ui, "#progress", false)
	a.setIdle(false)
	setState(st)
}

// opened shows the opened models of session s.
func (m *models) opened(s *page.Session, op *protocol.Opened) {
	a := m.a
	if !m.Opened(s, op) {
		return
	}
	for r := range a.checkpoints {
		if !slices.Contains(s.Runs, r) {
			delete(a.checkpoints, r) // the checkpoints of the session shown before
		}
	}
	line := s.Opened(op)
	page.SetForm(ui, s.Settings.Raw())
	a.edited()
	a.view.update(s)
	a.setProgressText(line)
	a.setIdle(false)
	page.Show(ui, "#continue-model", op.Continuable)
	body().SetAttribute("data-model", op.Label)
	setState("done")
}

// continueTraining trains the opened model on from its checkpoint with
// the form's settings (page.Models.Continue): a new run, with its own
// history, and Adam from zero.
func (m *models) continueTraining() {
	a := m.a
	if state() == "training" {
		return
	}
	s, errs, ok := m.Continue(a.sess, page.Form(ui))
	if !ok {
		return
	}
	if len(errs) > 0 {
		page.SetFormErrors(ui, config.Images, errs)
		return
	}
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
	m.Forget()
	page.Show(ui, "#continue-model", false)
	body().RemoveAttribute("data-model")
}
