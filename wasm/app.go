//go:build js && wasm

package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"syscall/js"
	"time"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// app is the page: the demo tabs, the form, the buttons, the progress bar
// and the results.
type app struct {
	demo   config.Demo
	view   *view
	engine *link // the engine's worker, or deeplda ui's native engine
	// native names deeplda ui's native engine when deeplda ui serves the
	// page ("" otherwise).
	native string
	// route is the bookkeeping of the sessions' ids; last holds the events
	// of the session it offers.
	route  page.Routing
	last   *lastRun
	data   *dataSource // the images demo's data
	models *models     // the images demo's trained models
	// folders is deeplda ui's runs folder, listed where it serves the page.
	folders *folders
	sess    *page.Session
	// checkpoints are the runs' last good checkpoints, ArrayBuffers the
	// engine sent.
	checkpoints map[*page.Run]js.Value
	bench       *pageBench // bench=1: the benchmark instead of training
	// redraw is the session whose results the events being handled
	// changed (nil: none).
	redraw *page.Session
	yield  yielder
	ready  bool // the engine has warmed up and probed its backend
	// start is what the page does once the engine is ready (autostart,
	// model=).
	onReady func()

	trainBtn, progressBox dom.HTMLElement // for the benchmark
}

// newApp binds the page's elements (index.html) and builds the controls.
func newApp() *app {
	a := &app{
		trainBtn: byID("train"), progressBox: byID("progress"),
		checkpoints: map[*page.Run]js.Value{},
	}
	bindForm(func() {
		defer a.guard()
		a.edited()
	})
	a.view = newView(a)
	a.native = metaContent("deeplda-native")
	if a.native != "" {
		ui.Append("#f-backend", `<option value="`+config.NativeBackend+`"></option>`)
		ui.SetText(`#f-backend option[value="`+config.NativeBackend+`"]`, "native: "+a.native)
	}
	a.folders = newFolders(a)
	a.data = newDataSource(a)
	a.models = newModels(a)
	a.on(setHTML("tabs", page.TabsHTML()), "click", func(ev dom.Event) {
		if t := ev.Target().Underlying().Call("closest", "a[data-demo]"); t.Truthy() {
			ev.PreventDefault()
			a.switchDemo(config.Demo(t.Get("dataset").Get("demo").String()))
		}
	})
	a.on(byID("form"), "submit", func(ev dom.Event) {
		ev.PreventDefault()
		page.Show(ui, "#first-note", false)
		a.startSession()
	})
	a.on(byID("stop"), "click", func(dom.Event) { a.stop() })
	a.on(byID("resume"), "click", func(dom.Event) { a.resume() })
	a.on(byID("dl-report"), "click", func(dom.Event) {
		if jr := page.ShownRun(a.sess); jr != nil && jr.Report != nil {
			download(page.DownloadName(a.sess, "report.json", true), "application/json", jr.Report)
		}
	})
	a.on(byID("dl-checkpoint"), "click", func(dom.Event) {
		if jr := page.ShownRun(a.sess); jr != nil && a.checkpoints[jr].Truthy() {
			downloadBuffer(page.DownloadName(a.sess, experiment.CheckpointFile, true), "application/octet-stream", a.checkpoints[jr])
		}
	})
	a.on(byID("dl-all"), "click", func(dom.Event) { a.downloadAll() })
	return a
}

// on adds an event listener whose panics become the error state instead of
// killing the Go program.
func (a *app) on(e dom.Element, typ string, fn func(dom.Event)) {
	e.AddEventListener(typ, false, func(ev dom.Event) {
		defer a.guard()
		fn(ev)
	})
}

// guard recovers a panic in an event handler and shows it.
func (a *app) guard() {
	if r := recover(); r != nil {
		consoleError(fmt.Sprintf("deeplda: panic: %v\n%s", r, debug.Stack()))
		a.showError(fmt.Sprintf("internal error: %v", r))
		setState("error")
	}
}

// start applies the URL's configuration (page.Start), starts the engine
// and, once it is ready, opens the site's model of model= or, with
// autostart=1 and valid settings, starts training.
func (a *app) start() {
	q := locationQuery()
	st := page.Start(q, a.native)
	s := st.Settings
	page.Show(ui, "#first-note", st.First)
	if st.ThreadsError != "" {
		a.showError(st.ThreadsError)
	} else if st.Hello.Threads > 0 {
		gemm.SetThreads(st.Hello.Threads)
	}
	a.route.Remote = st.Remote
	if st.Remote {
		// The engine serves every tab and outlives a reload: this page
		// numbers its sessions where no other page's are.
		a.route.LastID = 1<<21 + rand.IntN(1<<30)
	}
	a.setDemo(s.Demo)
	page.SetForm(ui, st.Raw)
	page.SetFormErrors(ui, s.Demo, st.Errs)
	page.LockForm(ui, false)
	setState("idle")
	a.setProgressText("")
	if st.Bench {
		a.benchMode(q, s.Backend, &st.Hello, s.Autostart)
		return
	}
	a.onReady = func() {
		if st.Open != "" {
			a.models.openHosted(st.Open)
		} else if st.Train {
			a.startSession()
			if st.Address != nil {
				a.replaceURL(st.Address)
			}
		}
	}
	a.engine = startEngine(a)
	a.engine.send(protocol.Command{Kind: protocol.CmdHello, Hello: &st.Hello}, nil)
	go func() {
		defer a.guard()
		a.warmUpDrawing()
	}()
}

// engineReady shows the engine's backend, with the limits its WebGPU
// device was granted in the console, and readies the page.
func (a *app) engineReady(ev protocol.Event) {
	a.showBackend(ev.Backend)
	if l := page.GrantedLimits(ev.Backend); l != "" {
		consoleLog("deeplda: the WebGPU device was granted " + l)
	}
	a.ready = true
	a.setIdle(false)
	a.data.describe()
	doc.(dom.HTMLDocument).Body().SetAttribute("data-ready", "1")
	a.folders.refresh()
	if f := a.onReady; f != nil {
		a.onReady = nil
		f()
	}
}

// setDemo shows demo d (page.SetDemo).
func (a *app) setDemo(d config.Demo) {
	a.demo = d
	page.SetDemo(ui, d, a.sess != nil)
	a.data.describe()
}

// switchDemo shows another demo with its defaults (not while training).
func (a *app) switchDemo(d config.Demo) {
	if state() == "training" {
		return
	}
	a.show(nil)
	a.models.forget()
	a.view.reset(nil)
	page.Show(ui, "#first-note", false)
	a.setDemo(d)
	page.SetForm(ui, config.Defaults(d).Raw())
	page.SetFormErrors(ui, d, nil)
	page.LockForm(ui, false)
	a.setIdle(false)
	a.setProgressText("")
	page.Show(ui, "#progress", false)
	a.replaceURL(config.Query{"demo": {string(d)}})
	setState("idle")
}

// edited validates the form after an edit and writes it into the URL
// (page.Edit); settings that ask for the other engine start the page
// again with it.
func (a *app) edited() {
	errs, q, other := page.Edit(a.demo, page.Form(ui), a.models.Hosted, a.route.Remote)
	page.SetFormErrors(ui, a.demo, errs)
	if state() != "training" {
		page.LockForm(ui, false)
	}
	a.data.describe()
	a.replaceURL(q)
	if other && a.native != "" && state() != "training" {
		js.Global().Get("location").Call("reload")
	}
}

// metaContent returns the content of the page's meta element called name
// ("" when there is none).
func metaContent(name string) string {
	m := doc.QuerySelector(`meta[name="` + name + `"]`)
	if m == nil {
		return ""
	}
	return m.GetAttribute("content")
}

// replaceURL puts q into the address bar without reloading.
func (a *app) replaceURL(q config.Query) {
	params := js.Global().Get("URLSearchParams").New()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			params.Call("append", k, v)
		}
	}
	u := js.Global().Get("location").Get("pathname").String() + "?" + params.Call("toString").String()
	js.Global().Get("history").Call("replaceState", nil, "", u)
}

// locationQuery returns the query of the page's URL, as the browser's
// URLSearchParams reads it.
func locationQuery() config.Query {
	q := config.Query{}
	pairs := js.Global().Get("Array").Call("from", js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search")))
	for i := range pairs.Length() {
		k, v := pairs.Index(i).Index(0).String(), pairs.Index(i).Index(1).String()
		q[k] = append(q[k], v)
	}
	return q
}

// startSession validates the form and starts training its runs.
func (a *app) startSession() {
	if !a.ready || state() == "training" {
		return
	}
	if a.bench != nil {
		a.runBench()
		return
	}
	a.dropOffer()
	s, errs := page.TrainSettings(a.demo, page.Form(ui))
	page.SetFormErrors(ui, a.demo, errs)
	if len(errs) > 0 {
		return
	}
	sess, err := a.newSession(s)
	if err != nil {
		page.SetFormErrors(ui, a.demo, config.Errors{"": err.Error()})
		return
	}
	a.showNew(sess)
	a.setTraining()
	a.sendSession(protocol.Command{Kind: protocol.CmdStart, Session: sess.ID, Start: sess.Start()}, nil)
}

// sendSession sends a command that starts session c.Session, which the
// page awaits.
func (a *app) sendSession(c protocol.Command, files []js.Value) {
	a.route.Await(c.Session)
	a.engine.send(c, files)
}

// stop asks the training goroutine to stop after the current step.
func (a *app) stop() {
	if a.bench != nil && a.bench.running {
		page.Enable(ui, "#stop", false)
		a.setProgressText("Stopping after the current step…")
		a.engine.send(protocol.Command{Kind: protocol.CmdStop}, nil)
		return
	}
	if a.sess != nil && state() == "training" {
		page.Enable(ui, "#stop", false)
		a.setProgressText("Stopping after the current step…")
		a.engine.send(protocol.Command{Kind: protocol.CmdStop, Session: a.sess.ID}, nil)
	}
}

// resume continues a stopped session where it stopped.
func (a *app) resume() {
	if a.sess == nil || state() != "idle" {
		return
	}
	a.sess.Runs[a.sess.Cur].Status = "training"
	a.setTraining()
	a.engine.send(protocol.Command{Kind: protocol.CmdResume, Session: a.sess.ID}, nil)
}

// show makes s the page's session (nil: none), forgetting the checkpoints
// of the one before.
func (a *app) show(s *page.Session) {
	a.sess = s
	clear(a.checkpoints)
}

// showNew shows session s in place of the one shown, with nothing of the
// last one left: its error, its move marks, an opened model, its figures.
func (a *app) showNew(s *page.Session) {
	a.hideError()
	page.ClearMoveMarks(ui)
	a.models.forget()
	a.show(s)
	a.view.reset(s)
}

// updateDownloads enables the download buttons (page.Downloads).
func (a *app) updateDownloads() {
	page.Downloads(ui, a.sess, a.checkpoints[page.ShownRun(a.sess)].Truthy())
}

// downloadAll offers the shown run's files in one zip
// (page.Session.RunZip), with its checkpoint where the page has one.
func (a *app) downloadAll() {
	s := a.sess
	if s == nil {
		return
	}
	i := s.Shown()
	var ckpt []byte
	if buf := a.checkpoints[s.Runs[i]]; buf.Truthy() {
		ckpt = jsBytes(buf)
	}
	name, data, err := s.RunZip(i, ckpt, time.Now())
	if err != nil {
		a.showError("Download all: " + err.Error())
		return
	}
	download(name, "application/zip", data)
}
