//go:build js && wasm

package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/deeplda/deeplda/protocol"
)

// link is the page's end of the run protocol: it posts commands to the
// engine's worker (started by site/app.js's deepldaEngine) and hands the
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
		l.events <- received{ev, args[1]}
		return nil
	})
	onFatal := js.FuncOf(func(_ js.Value, args []js.Value) any {
		fatal(args[0].String())
		return nil
	})
	l.js = js.Global().Call("deepldaEngine", onEvent, onFatal)
	go func() {
		for r := range l.events {
			a.handle(r)
		}
	}()
	return l
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
