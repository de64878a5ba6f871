//go:build js && wasm

package main

import (
	"syscall/js"
	"time"
)

// yieldEvery is the longest stretch of Go work between two returns to the
// browser's event loop. Go's js/wasm scheduler runs one goroutine until it
// blocks; only when every goroutine is blocked does control go back to the
// browser, which then paints, runs timers and delivers clicks.
const yieldEvery = 50 * time.Millisecond

// yielder hands the thread back to the browser at least every yieldEvery.
type yielder struct {
	last      time.Time
	port      js.Value // the sending end of the MessageChannel used by now
	onMessage js.Func  // kept for the page's lifetime
	wake      chan struct{}
}

// maybe yields if the last yield is more than yieldEvery ago.
func (y *yielder) maybe() {
	if time.Since(y.last) >= yieldEvery {
		y.now()
	}
}

// now yields: it posts a message to itself through a MessageChannel and
// blocks until it arrives, so the runtime returns to the event loop (which
// paints and handles input) and resumes at once afterwards. A timer would
// do too, but browsers stretch short timers to about 4 ms.
func (y *yielder) now() {
	if y.port.IsUndefined() {
		y.wake = make(chan struct{}, 1)
		ch := js.Global().Get("MessageChannel").New()
		y.onMessage = js.FuncOf(func(js.Value, []js.Value) any {
			select {
			case y.wake <- struct{}{}:
			default:
			}
			return nil
		})
		ch.Get("port1").Set("onmessage", y.onMessage)
		y.port = ch.Get("port2")
	}
	y.port.Call("postMessage", nil)
	<-y.wake
	y.last = time.Now()
}

// frame yields until the browser has drawn a frame: after a large DOM
// change, so that each big figure is laid out and painted on its own rather
// than several in one long frame.
func (y *yielder) frame() {
	done := make(chan struct{})
	var after, onFrame js.Func
	after = js.FuncOf(func(js.Value, []js.Value) any {
		close(done)
		return nil
	})
	onFrame = js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Call("setTimeout", after, 0)
		return nil
	})
	js.Global().Call("requestAnimationFrame", onFrame)
	<-done
	after.Release()
	onFrame.Release()
	y.last = time.Now()
}
