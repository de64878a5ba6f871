package page

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file is the page as a whole (App): what it does as it loads, on
// each control and on each of the engine's events, through a Doc and a
// Host. Package main binds the DOM's events to App's methods; the tests
// drive it with a fake Doc and a fake Host.

// Host is what the page needs of the browser beyond its document: the
// engine, files, the address bar and the event loop. Package main
// implements it on JavaScript.
type Host interface {
	// StartEngine starts the engine (the Web Worker, or deeplda ui's
	// native engine when remote), whose events then go to App.Receive.
	StartEngine(remote bool)
	// Send posts a command to the engine with the user's files.
	Send(c protocol.Command, files []Upload)
	// Save offers data to the user as a file; SaveBuffer offers bytes
	// the host holds; SavePNG draws an SVG figure as a PNG file at
	// PNGScale times its size and offers it (it blocks).
	Save(name, mime string, data []byte)
	SaveBuffer(name, mime string, b Buffer)
	SavePNG(name, svg string) error
	// Fetch downloads a file by URL (it blocks).
	Fetch(url string) ([]byte, error)
	// SetURL puts q into the address bar without reloading; Reload
	// loads the page again.
	SetURL(q config.Query)
	Reload()
	// Log writes to the browser's console at level log, warn or error.
	Log(level, msg string)
	// Yield returns to the browser's event loop and resumes at once;
	// Frame waits until the browser has drawn a frame (both block).
	Yield()
	Frame()
}

// Upload is a file the user chose or dropped, which the host holds (a
// File in the browser).
type Upload struct {
	Name   string
	Handle any
}

// Buffer is bytes the host holds (an ArrayBuffer the engine sent, in the
// browser).
type Buffer interface{ Bytes() []byte }

// Received is an event of the engine with the checkpoint that came beside
// it (nil: none).
type Received struct {
	Ev         protocol.Event
	Checkpoint Buffer
}

// App is the page: the demo tabs, the form, the buttons, the progress
// bar, the results and the panels, as the engine's events change them.
// Goroutines switch only where they block, so its state needs no locks;
// the methods that block (they wait for the browser) run in goroutines of
// their own, never in an event handler.
type App struct {
	doc  Doc
	host Host
	demo config.Demo
	// native names deeplda ui's native engine when deeplda ui serves the
	// page ("" otherwise).
	native string
	// route is the bookkeeping of the sessions' ids; offered holds the
	// events of the ended session the page offers (Offer).
	route   Routing
	offered []Received
	data    Data
	models  Models
	folders FolderList
	cards   Cards
	sess    *Session
	// checkpoints are the runs' last good checkpoints, as the engine sent
	// them.
	checkpoints map[*Run]Buffer
	bench       *Bench // bench=1: the benchmark instead of training
	benching    bool   // the benchmark runs
	// redraw is the session whose results the events being handled
	// changed (nil: none).
	redraw *Session
	ready  bool // the engine has warmed up and probed its backend
	// onReady is what the page does once the engine is ready (autostart,
	// model=).
	onReady func()
	events  chan Received
}

// NewApp builds the page's controls into d (index.html's elements):
// the tabs, the form, the trained-model panel, and the native engine's
// backend and runs folder where deeplda ui serves the page (native names
// its engine).
func NewApp(d Doc, h Host, native string) *App {
	a := &App{doc: d, host: h, native: native, checkpoints: map[*Run]Buffer{}, events: make(chan Received, 1<<12)}
	basic, advanced := FormHTML()
	d.SetHTML("#fields", basic)
	d.SetHTML("#fields-advanced", advanced)
	d.SetHTML("#tabs", TabsHTML())
	if native != "" {
		d.Append("#f-backend", `<option value="`+config.NativeBackend+`"></option>`)
		d.SetText(`#f-backend option[value="`+config.NativeBackend+`"]`, "native: "+native)
	}
	Show(d, "#folders-box", native != "")
	d.Append("#data-box", ModelBoxHTML)
	d.SetAttr("#f-files", "accept", d.Attr("#f-files", "accept")+",.safetensors")
	a.models.SetIndex(d, nil)
	return a
}

// Guard recovers a panic of an event handler or of a goroutine of the
// page and shows it as the error state; deferred, it must be called
// directly.
func (a *App) Guard() {
	if r := recover(); r != nil {
		a.host.Log("error", fmt.Sprintf("deeplda: panic: %v\n%s", r, debug.Stack()))
		ShowError(a.doc, fmt.Sprintf("internal error: %v", r))
		SetState(a.doc, "error")
	}
}

// Fatal shows an error without relying on the page's state.
func Fatal(d Doc, msg string) {
	ShowError(d, msg)
	SetState(d, "error")
}

// Start applies the URL's query q (Start), starts the engine and, once
// it is ready, opens the site's model of model= or, with autostart=1 and
// valid settings, starts training.
func (a *App) Start(q config.Query) {
	st := Start(q, a.native)
	s := st.Settings
	Show(a.doc, "#first-note", st.First)
	if st.ThreadsError != "" {
		ShowError(a.doc, st.ThreadsError)
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
	SetForm(a.doc, st.Raw)
	SetFormErrors(a.doc, s.Demo, st.Errs)
	LockForm(a.doc, false)
	SetState(a.doc, "idle")
	SetProgressText(a.doc, "")
	if st.Bench {
		a.benchMode(q, s.Backend, &st.Hello, s.Autostart)
		return
	}
	a.onReady = func() {
		if st.Open != "" {
			a.openHosted(st.Open)
		} else if st.Train {
			a.startSession()
			if st.Address != nil {
				a.host.SetURL(st.Address)
			}
		}
	}
	a.startEngine(&st.Hello)
	go func() {
		defer a.Guard()
		a.warmUpDrawing()
	}()
}

// startEngine starts the engine, its events' loop and says hello.
func (a *App) startEngine(hello *protocol.Hello) {
	a.host.StartEngine(a.route.Remote)
	go a.loop()
	a.host.Send(protocol.Command{Kind: protocol.CmdHello, Hello: hello}, nil)
}

// engineReady shows the engine's backend, with the limits its WebGPU
// device was granted in the console, and readies the page.
func (a *App) engineReady(ev protocol.Event) {
	ShowBackend(a.doc, ev.Backend)
	if l := GrantedLimits(ev.Backend); l != "" {
		a.host.Log("log", "deeplda: the WebGPU device was granted "+l)
	}
	a.ready = true
	a.setIdle(false)
	a.describeData()
	a.doc.SetAttr("body", "data-ready", "1")
	a.refreshFolders()
	if f := a.onReady; f != nil {
		a.onReady = nil
		f()
	}
}

// state returns the automation state.
func (a *App) state() string { return State(a.doc) }

// setDemo shows demo d (SetDemo).
func (a *App) setDemo(d config.Demo) {
	a.demo = d
	SetDemo(a.doc, d, a.sess != nil)
	a.describeData()
}

// SwitchDemo shows another demo with its defaults (not while training).
func (a *App) SwitchDemo(d config.Demo) {
	if a.state() == "training" {
		return
	}
	a.show(nil)
	a.forgetModel()
	a.resetCards(nil)
	Show(a.doc, "#first-note", false)
	a.setDemo(d)
	SetForm(a.doc, config.Defaults(d).Raw())
	SetFormErrors(a.doc, d, nil)
	LockForm(a.doc, false)
	a.setIdle(false)
	SetProgressText(a.doc, "")
	Show(a.doc, "#progress", false)
	a.host.SetURL(config.Query{"demo": {string(d)}})
	SetState(a.doc, "idle")
}

// Edited validates the form after an edit and writes it into the URL
// (Edit); settings that ask for the other engine start the page again
// with it.
func (a *App) Edited() {
	errs, q, other := Edit(a.demo, Form(a.doc), a.models.Hosted, a.route.Remote)
	SetFormErrors(a.doc, a.demo, errs)
	if a.state() != "training" {
		LockForm(a.doc, false)
	}
	a.describeData()
	a.host.SetURL(q)
	if other && a.native != "" && a.state() != "training" {
		a.host.Reload()
	}
}

// Submit is the form's Train: it starts training the form's runs.
func (a *App) Submit() {
	Show(a.doc, "#first-note", false)
	a.startSession()
}

// startSession validates the form and starts training its runs.
func (a *App) startSession() {
	if !a.ready || a.state() == "training" {
		return
	}
	if a.bench != nil {
		a.runBench()
		return
	}
	a.dropOffer()
	s, errs := TrainSettings(a.demo, Form(a.doc))
	SetFormErrors(a.doc, a.demo, errs)
	if len(errs) > 0 {
		return
	}
	sess, err := NewSession(a.route.Next(), s)
	if err != nil {
		SetFormErrors(a.doc, a.demo, config.Errors{"": err.Error()})
		return
	}
	a.showNew(sess)
	a.setTraining()
	a.sendSession(protocol.Command{Kind: protocol.CmdStart, Session: sess.ID, Start: sess.Start()}, nil)
}

// sendSession sends a command that starts session c.Session, which the
// page awaits.
func (a *App) sendSession(c protocol.Command, files []Upload) {
	a.route.Await(c.Session)
	a.host.Send(c, files)
}

// Stop asks the engine to stop the session or the benchmark after the
// current step.
func (a *App) Stop() {
	c := protocol.Command{Kind: protocol.CmdStop}
	switch {
	case a.benching:
	case a.sess != nil && a.state() == "training":
		c.Session = a.sess.ID
	default:
		return
	}
	Enable(a.doc, "#stop", false)
	SetProgressText(a.doc, "Stopping after the current step…")
	a.host.Send(c, nil)
}

// Resume continues a stopped session where it stopped.
func (a *App) Resume() {
	if a.sess == nil || a.state() != "idle" {
		return
	}
	a.sess.Runs[a.sess.Cur].Status = "training"
	a.setTraining()
	a.host.Send(protocol.Command{Kind: protocol.CmdResume, Session: a.sess.ID}, nil)
}

// show makes s the page's session (nil: none), forgetting the checkpoints
// of the one before.
func (a *App) show(s *Session) {
	a.sess = s
	clear(a.checkpoints)
}

// showNew shows session s in place of the one shown, with nothing of the
// last one left: its error, its move marks, an opened model, its figures.
func (a *App) showNew(s *Session) {
	HideError(a.doc)
	ClearMoveMarks(a.doc)
	a.forgetModel()
	a.show(s)
	a.resetCards(s)
}

// setTraining switches the controls to training.
func (a *App) setTraining() { SetTraining(a.doc) }

// setIdle switches the controls back; resumable shows Resume.
func (a *App) setIdle(resumable bool) {
	SetIdle(a.doc, a.ready && config.Info(a.demo).Trainable, resumable)
	a.updateDownloads()
}

// updateDownloads enables the download buttons (Downloads).
func (a *App) updateDownloads() {
	Downloads(a.doc, a.sess, a.checkpoints[ShownRun(a.sess)] != nil)
}

// SaveReport offers the shown run's report.json.
func (a *App) SaveReport() {
	if r := ShownRun(a.sess); r != nil && r.Report != nil {
		a.host.Save(DownloadName(a.sess, "report.json", true), "application/json", r.Report)
	}
}

// SaveCheckpoint offers the shown run's checkpoint.
func (a *App) SaveCheckpoint() {
	if b := a.checkpoints[ShownRun(a.sess)]; b != nil {
		a.host.SaveBuffer(DownloadName(a.sess, experiment.CheckpointFile, true), "application/octet-stream", b)
	}
}

// SaveAll offers the shown run's files in one zip (Session.RunZip), with
// its checkpoint where the page has one.
func (a *App) SaveAll() {
	s := a.sess
	if s == nil {
		return
	}
	i := s.Shown()
	var ckpt []byte
	if b := a.checkpoints[s.Runs[i]]; b != nil {
		ckpt = b.Bytes()
	}
	name, data, err := s.RunZip(i, ckpt, time.Now())
	if err != nil {
		ShowError(a.doc, "Download all: "+err.Error())
		return
	}
	a.host.Save(name, "application/zip", data)
}
