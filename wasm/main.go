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
// What the page decides and does (page.App: the form, the controls, the
// sessions and their figures, tables and downloads, the panels, the
// automation contracts that package page's documentation lists) is
// package page (wasm/page), the settings package config (wasm/config),
// both tested natively. This package binds them to JavaScript: dom.go
// implements page.Doc, host.go page.Host, bind.go the DOM's events,
// worker.go the engine's host in the worker.
package main

import (
	"fmt"
	"runtime/debug"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/page"
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
			console("error", fmt.Sprintf("deeplda: panic while starting: %v\n%s", r, debug.Stack()))
			page.Fatal(ui, fmt.Sprintf("The app failed to start: %v", r))
		}
	}()
	h := &host{}
	native := ""
	if m := first(`meta[name="deeplda-native"]`); m.Truthy() {
		native = m.Call("getAttribute", "content").String()
	}
	h.app = page.NewApp(ui, h, native)
	bind(h.app)
	h.app.Start(locationQuery())
	select {} // keep the Go program alive for the event handlers
}
