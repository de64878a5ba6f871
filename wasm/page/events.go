package page

import (
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/deeplda/deeplda/protocol"
)

// This file is the page's side of the run protocol: the engine's events,
// one at a time and in order, in a goroutine of their own (drawing an
// event's figures waits for the browser's frames, which an event handler
// must not), and the ended session the page offers.

// Receive takes an event of the engine, to be shown in its turn.
func (a *App) Receive(r Received) { a.events <- r }

// loop shows the engine's events in batches: those that came while the
// page drew the last ones.
func (a *App) loop() {
	for r := range a.events {
		batch := []Received{r}
		for more := true; more; {
			select {
			case r := <-a.events:
				batch = append(batch, r)
			default:
				more = false
			}
		}
		a.handleBatch(batch)
	}
}

// handleBatch shows a batch of events: a progress or phase event that a
// later one of its kind replaces is skipped, and the results are redrawn
// once, after all of them, so that the page never falls behind the
// engine.
func (a *App) handleBatch(batch []Received) {
	a.redraw = nil
	latest := map[string]int{}
	for i, r := range batch {
		latest[r.Ev.Kind] = i
	}
	for i, r := range batch {
		if (r.Ev.Kind == protocol.EvProgress || r.Ev.Kind == protocol.EvPhase) && latest[r.Ev.Kind] != i {
			continue
		}
		a.handle(r)
	}
	if s := a.redraw; s != nil && s == a.sess {
		a.host.Yield() // reading the events and drawing them are two tasks of the page
		a.updateCards(s)
	}
}

// handle shows one event; a panic becomes the error state.
func (a *App) handle(r Received) {
	defer func() {
		if p := recover(); p != nil {
			a.host.Log("error", fmt.Sprintf("deeplda: panic while showing an event (%s): %v\n%s", r.Ev.Kind, p, debug.Stack()))
			Fatal(a.doc, fmt.Sprintf("internal error: %v", p))
		}
	}()
	a.onEvent(r)
}

// onEvent shows one event of the engine.
func (a *App) onEvent(r Received) {
	ev := r.Ev
	if ev.MemoryBytes > 0 {
		// For scripts and the tests: the engine's WebAssembly memory.
		a.doc.SetAttr("body", "data-engine-memory", strconv.FormatInt(ev.MemoryBytes, 10))
	}
	switch ev.Kind {
	case protocol.EvReady:
		a.engineReady(ev)
		return
	case protocol.EvBackend:
		ShowBackend(a.doc, ev.Backend)
		return
	case protocol.EvData:
		a.updateData(ev.Data)
		return
	case protocol.EvModels:
		a.models.SetIndex(a.doc, ev.Models)
		return
	case protocol.EvOpenFailed:
		a.route.Awaited = 0
		a.openFailed(ev.Error)
		return
	case protocol.EvRefused:
		a.host.Log("warn", "deeplda: the engine refused a command: "+ev.Error)
	case protocol.EvBench, protocol.EvBenchDone:
		a.onBench(ev)
		return
	}
	s := a.sess
	switch a.route.Route(ev, s) {
	case RouteOffered:
		a.offered = append(a.offered, r)
		return
	case RouteOffer:
		a.offer(ev)
		return
	case RouteAdopt:
		a.adopt(ev)
		return
	case RouteOther:
		if ev.Kind == protocol.EvLoading {
			SetProgressText(a.doc, ev.Text)
		}
		return
	}
	switch ev.Kind {
	case protocol.EvSession:
		if s == a.models.Opening() {
			// The opened models' figures replace what the page showed.
			a.resetCards(s)
		}
		return
	case protocol.EvOpened:
		a.opened(s, ev.Opened)
		return
	case protocol.EvRun:
		if ev.RunState.Checkpoint && r.Checkpoint != nil && ev.Run < len(s.Runs) {
			a.checkpoints[s.Runs[ev.Run]] = r.Checkpoint
		}
	}
	a.render(s.Apply(ev))
}

// adopt shows a session of the native engine that this page did not start
// (another tab's, or this page's before a reload), in place of the offer.
func (a *App) adopt(ev protocol.Event) {
	a.dropOffer()
	sess, err := Adopt(ev)
	if err != nil {
		a.host.Log("warn", "deeplda: "+err.Error())
		return
	}
	a.setDemo(sess.Settings.Demo)
	SetForm(a.doc, sess.Settings.Raw())
	SetFormErrors(a.doc, sess.Settings.Demo, nil)
	a.host.SetURL(sess.Settings.Query())
	a.showNew(sess)
	a.setTraining()
}

// render shows what an event changed (ShowBefore, the results,
// ShowAfter, the state).
func (a *App) render(st Status) {
	ShowBefore(a.doc, st)
	if st.Gone {
		a.show(nil)
		a.resetCards(nil)
	}
	if st.Redraw && a.sess != nil {
		a.redraw = a.sess // drawn after the batch of events (handleBatch)
	}
	if s := a.sess; st.Live && s != nil {
		a.fillLive(s.Runs[s.Shown()].Figs[LossStepsFigure])
	}
	if st.State != "" && a.redraw != nil {
		// The results are drawn before the state says the session ended.
		s := a.redraw
		a.redraw = nil
		a.host.Yield()
		a.updateCards(s)
	}
	ShowAfter(a.doc, st)
	if st.State != "" && st.State != "training" {
		a.refreshFolders() // a run of deeplda ui's runs folder changed
	}
	if st.State != "" {
		a.setIdle(st.State == "idle" && st.Resumable)
		SetState(a.doc, st.State)
	}
}

// offer keeps deeplda ui's ended session that ev starts, offered on the
// #show-last button instead of put in place of the settings the page
// opened with.
func (a *App) offer(ev protocol.Event) {
	a.dropOffer()
	a.route.Offered = ev.Session
	a.offered = []Received{{Ev: ev}}
	a.doc.SetText("#show-last", Offer(ev))
	Show(a.doc, "#show-last", true)
}

// dropOffer withdraws the offer of an ended session, if there is one.
func (a *App) dropOffer() {
	a.offered, a.route.Offered = nil, 0
	Show(a.doc, "#show-last", false)
}

// ShowLast shows the offered session: its events go again the way the
// engine's go, in order; the start, no longer marked, is shown as any
// other session's.
func (a *App) ShowLast() {
	events := a.offered
	if events == nil || a.state() == "training" {
		return
	}
	a.dropOffer()
	events[0].Ev.Ended = false
	go func() {
		for _, r := range events {
			a.Receive(r)
		}
	}()
}
