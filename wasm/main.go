//go:build js && wasm

// Command wasm is the browser trainer of Deep LDA. The same program has
// two roles. In a Web Worker (site/engine.js) it is the engine (package
// engine): it trains the toy experiments of package experiment and the
// image experiment (the paper's ConvNet on Fashion-MNIST, MNIST or CIFAR,
// from the data the site hosts or the user's files) on WebGPU or the CPU
// backend, evaluates and draws. In the page it is the view: it reads the
// configuration from the URL query (the native command's flag names),
// builds the form, sends the engine the run protocol's commands (package
// protocol) and shows its events: progress, figures, the summary,
// report.json and the checkpoint. The page's thread never trains, so the
// tab stays responsive; the engine computes exactly what it computes
// outside the page.
//
// Goroutines switch only where they block, so the app's state needs no
// locks. Event handlers never block: the engine's events are shown in a
// goroutine of their own (link.go).
//
// Files: main.go (entry), worker.go (the engine's host in the worker),
// link.go (the page's end of the protocol), app.go (tabs, buttons, URL),
// status.go (progress bar, backend badge, notices), form.go (the
// controls), session.go (the engine's events: runs, stop/resume, the move
// to the CPU, errors), view.go (results), data.go (the images demo's
// data panel), model.go (the trained models it opens: the site's, by
// model= in the URL or its list, or a dropped checkpoint), bench.go (the
// GPU table, which the engine times), backend.go, yield.go, jsutil.go,
// download.go and dom.go (helpers). The settings and their validation are
// in package config (wasm/config), tested natively.
//
// Automation contracts (kept by the browser tests): document.body's
// data-state is idle, training, done or error; #report holds the latest
// report.json; data-ready="1" once the engine is ready (for the images
// demo with autostart, once its hosted data set is loaded); data-model
// names the trained model the images demo shows once it is evaluated (the
// site's name or the dropped file's); data-memory says which WebAssembly
// memory the program runs on, data-engine-memory the size in bytes of the
// engine's (its high-water mark, from its progress events). For the
// tests, debug=panic in the URL makes the first run panic once, and
// debug=lose-device destroys the WebGPU device halfway through a run
// (once it has a save point); body's data-lost-step, data-resume-step and
// data-kept-epochs then say where the device was lost, after which step
// the CPU took over and how many epochs of the history it kept;
// debug=bad-shader and debug=big-buffer make the WebGPU device fail while
// the engine warms up (an invalid shader, a buffer over its
// maxBufferSize), and the page says so and runs on the CPU. With bench=1
// the engine times the GPU table instead of training (bench.go).
package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

func main() {
	if js.Global().Get("document").IsUndefined() {
		runEngine()
		return
	}
	doc = dom.GetWindow().Document()
	// The view's heap is small and mostly figures: collecting it less
	// often keeps the collector's pauses off the page's frames.
	debug.SetGCPercent(400)
	defer func() {
		if r := recover(); r != nil {
			consoleError(fmt.Sprintf("deeplda: panic while starting: %v\n%s", r, debug.Stack()))
			fatal(fmt.Sprintf("The app failed to start: %v", r))
		}
	}()
	a := newApp()
	a.start()
	select {} // keep the Go program alive for the event handlers
}

// fatal shows an error without relying on the app's state.
func fatal(msg string) {
	if e := doc.GetElementByID("notice"); e != nil {
		e.SetTextContent(msg)
		e.Class().Add("error")
		show(e, true)
	}
	setState("error")
}
