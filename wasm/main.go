//go:build js && wasm

// Command wasm is the browser trainer of Deep LDA: the page's entry point
// and its DOM layer. It reads the configuration from the URL query (the
// native command's flag names), trains the toy experiments of package
// experiment and the image experiment (the paper's ConvNet on
// Fashion-MNIST, MNIST or CIFAR, from the data the site hosts or the user's
// files) on WebGPU or the CPU backend, and shows what the runs report:
// progress, figures, the summary, report.json and the checkpoint.
//
// Everything runs on the browser's one thread: goroutines switch only where
// they block, so the app's state needs no locks. Training runs in a
// goroutine that yields to the event loop every few tens of milliseconds
// (see yielder); event handlers never block, they start goroutines.
//
// Files: main.go (entry), app.go (tabs, buttons, URL), status.go
// (progress bar, backend badge, notices), form.go (the controls),
// session.go (training runs, stop/resume, errors), savepoint.go (host
// copies of WebGPU runs, and moving to the CPU when the GPU fails), view.go
// and figures.go (results), data.go (the images demo's data), model.go
// (the trained models it opens: the site's, by model= in the URL or its
// list, or a dropped checkpoint), yieldbe.go
// (the CPU backend of image runs, which yields inside a training step),
// backend.go (WebGPU or the CPU), yield.go, warmup.go, download.go and
// dom.go (helpers). The settings and their validation are in package
// config (wasm/config), tested natively.
//
// Automation contracts (kept by the browser tests): document.body's
// data-state is idle, training, done or error; #report holds the latest
// report.json; data-ready="1" once the app has started (for the images
// demo with autostart, once its hosted data set is loaded); data-model
// names the trained model the images demo shows once it is evaluated (the
// site's name or the dropped file's). For the tests,
// debug=panic in the URL makes the first run panic once, and
// debug=lose-device destroys the WebGPU device halfway through a run (once
// it has a save point); body's data-lost-step, data-resume-step and
// data-kept-epochs then say where the device was lost, after which step the
// CPU took over and how many epochs of the history it kept. With bench=1
// the page times the GPU table instead of training (bench.go).
package main

import (
	"fmt"
	"runtime/debug"
)

func main() {
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
