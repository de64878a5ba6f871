//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file is the view's side of a session: it sends the engine the
// commands and draws what package page makes of the engine's events.

// newSession plans the runs of s as the page's next session.
func (a *app) newSession(s config.Settings) (*page.Session, error) {
	return page.NewSession(a.route.Next(), s)
}

// onEvent takes one event of the engine (with the checkpoint that came
// beside it, or null).
func (a *app) onEvent(ev protocol.Event, ckpt js.Value) {
	if ev.MemoryBytes > 0 {
		// For scripts and the tests: the engine's WebAssembly memory.
		body().SetAttribute("data-engine-memory", strconv.FormatInt(ev.MemoryBytes, 10))
	}
	switch ev.Kind {
	case protocol.EvReady:
		a.engineReady(ev)
		return
	case protocol.EvBackend:
		a.showBackend(ev.Backend)
		return
	case protocol.EvData:
		a.data.update(ev.Data)
		return
	case protocol.EvModels:
		a.models.SetIndex(ui, ev.Models)
		return
	case protocol.EvOpenFailed:
		a.route.Awaited = 0
		a.models.failed(ev.Error)
		return
	case protocol.EvRefused:
		consoleWarn("deeplda: the engine refused a command: " + ev.Error)
	case protocol.EvBench, protocol.EvBenchDone:
		a.onBench(ev)
		return
	}
	s := a.sess
	switch a.route.Route(ev, s) {
	case page.RouteOffered:
		a.last.events = append(a.last.events, received{ev, ckpt})
		return
	case page.RouteOffer:
		a.offer(ev)
		return
	case page.RouteAdopt:
		a.adopt(ev)
		return
	case page.RouteOther:
		if ev.Kind == protocol.EvLoading {
			a.setProgressText(ev.Text)
		}
		return
	}
	switch ev.Kind {
	case protocol.EvSession:
		if s == a.models.Opening() {
			// The opened models' figures replace what the page showed.
			a.view.reset(s)
		}
		return
	case protocol.EvOpened:
		a.models.opened(s, ev.Opened)
		return
	case protocol.EvRun:
		if ev.RunState.Checkpoint && ckpt.Truthy() && ev.Run < len(s.Runs) {
			a.checkpoints[s.Runs[ev.Run]] = ckpt
		}
	}
	a.render(s.Apply(ev))
}

// adopt shows a session of the native engine that this page did not start
// (another tab's, or this page's before a reload), in place of the offer.
func (a *app) adopt(ev protocol.Event) {
	a.dropOffer()
	sess, err := page.Adopt(ev)
	if err != nil {
		consoleWarn("deeplda: " + err.Error())
		return
	}
	a.setDemo(sess.Settings.Demo)
	page.SetForm(ui, sess.Settings.Raw())
	page.SetFormErrors(ui, sess.Settings.Demo, nil)
	a.replaceURL(sess.Settings.Query())
	a.showNew(sess)
	a.setTraining()
}

// render shows what an event changed (page.ShowBefore, the results,
// page.ShowAfter, the state).
func (a *app) render(st page.Status) {
	page.ShowBefore(ui, st)
	if st.Gone {
		a.show(nil)
		a.view.reset(nil)
	}
	if st.Redraw && a.sess != nil {
		a.redraw = a.sess // drawn after the batch of events (handleBatch)
	}
	if s := a.sess; st.Live && s != nil {
		a.view.fillLive(s.Runs[s.Shown()].Figs[page.LossStepsFigure])
	}
	if st.State != "" && a.redraw != nil {
		// The results are drawn before the state says the session ended.
		s := a.redraw
		a.redraw = nil
		a.yield.now()
		a.view.update(s)
	}
	page.ShowAfter(ui, st)
	if st.State != "" && st.State != "training" {
		a.folders.refresh() // a run of deeplda ui's runs folder changed
	}
	if st.State != "" {
		a.setIdle(st.State == "idle" && st.Resumable)
		setState(st.State)
	}
}

// body returns the page's body.
func body() dom.HTMLElement { return doc.(dom.HTMLDocument).Body() }
