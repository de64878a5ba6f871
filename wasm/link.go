//go:build js && wasm

package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/deeplda/deeplda/protocol"
)

// link is the page's end of the run protocol: it posts commands to the
// engine's worker (started by site/app.js's deepldaEngine), or with the
// app's remote to deeplda ui's native engine over HTTP, and hands the
// engine's events to the app, one at a time and in order, in a goroutine
// of their own (drawing an event's figures waits for the browser's
// frames, which an event handler must not).
type link struct {
	js     js.Value // deepldaEngine's link: send(json, files)
	events chan received
}

// received is an event with the checkpoint that came beside it.
type received struct {
	ev   protocol.Event
	ckpt js.Value
}

// startEngine starts the engine's worker and delivers its events to a.
func startEngine(a *app) *link {
	l := &link{events: make(chan received, 1<<12)}
	onEvent := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ev, err := protocol.DecodeEvent([]byte(args[0].String()))
		if err != nil {
			ev = protocol.Event{Kind: protocol.EvRefused, Error: err.Error()}
		}
		addFigures(&ev, args[2])
		l.events <- received{ev, args[1]}
		return nil
	})
	onFatal := js.FuncOf(func(_ js.Value, args []js.Value) any {
		fatal(args[0].String())
		return nil
	})
	l.js = js.Global().Call("deepldaEngine", onEvent, onFatal, a.route.Remote)
	go func() {
		for r := range l.events {
			a.handleBatch(append([]received{r}, l.pending()...))
		}
	}()
	return l
}

// pending returns the events that are waiting, without blocking.
func (l *link) pending() []received {
	var out []received
	for {
		select {
		case r := <-l.events:
			out = append(out, r)
		default:
			return out
		}
	}
}

// handleBatch takes the events that came while the page drew the last
// ones: a progress or phase event that a later one of its kind replaces
// is skipped, and the results are redrawn once, after all of them, so
// that the page never falls behind the engine.
func (a *app) handleBatch(batch []received) {
	a.redraw = nil
	latest := map[string]int{}
	for i, r := range batch {
		latest[r.ev.Kind] = i
	}
	for i, r := range batch {
		if (r.ev.Kind == protocol.EvProgress || r.ev.Kind == protocol.EvPhase) && latest[r.ev.Kind] != i {
			continue
		}
		a.handle(r)
	}
	if s := a.redraw; s != nil && s == a.sess {
		a.yield.now() // reading the events and drawing them are two tasks of the page
		a.view.update(s)
	}
}

// addFigures puts the figures that came beside ev's JSON (an object of
// strings by key, or undefined) back into ev.
func addFigures(ev *protocol.Event, figs js.Value) {
	if figs.Type() != js.TypeObject {
		return
	}
	keys := js.Global().Get("Object").Call("keys", figs)
	for i := range keys.Length() {
		ev.AddFigure(keys.Index(i).String(), figs.Get(keys.Index(i).String()).String())
	}
}

// handle takes one event; a panic becomes the error state.
func (a *app) handle(r received) {
	defer func() {
		if p := recover(); p != nil {
			consoleError(fmt.Sprintf("deeplda: panic while showing an event (%s): %v\n%s", r.ev.Kind, p, debug.Stack()))
			fatal(fmt.Sprintf("internal error: %v", p))
		}
	}()
	a.onEvent(r.ev, r.ckpt)
}

// send posts a command to the engine with its files (File objects).
func (l *link) send(c protocol.Command, files []js.Value) {
	b, err := protocol.Encode(c)
	if err != nil {
		fatal(err.Error())
		return
	}
	list := make([]any, len(files))
	for i, f := range files {
		list[i] = f
	}
	l.js.Call("send", string(b), list)
}
