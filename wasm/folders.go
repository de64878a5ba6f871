//go:build js && wasm

package main

import (
	"fmt"
	"path"
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file is the list of deeplda ui's runs folder, on a page that deeplda
// ui serves: the runs, a finished one shown as an opened run, and ticked
// ones side by side.

// folders is the runs folder's list (page.FolderList).
type folders struct {
	page.FolderList
	a   *app
	box dom.HTMLElement // the list
}

// newFolders shows the list where deeplda ui serves the page.
func newFolders(a *app) *folders {
	f := &folders{a: a, box: byID("folders")}
	page.Show(ui, "#folders-box", a.native != "")
	a.on(f.box, "click", f.clicked)
	a.on(f.box, "change", f.ticked)
	a.on(byID("folders-compare"), "click", func(dom.Event) { f.showRuns(slices.Clone(f.Picked)) })
	return f
}

// refresh reads the list again and shows it.
func (f *folders) refresh() {
	if f.a.native == "" {
		return
	}
	go func() {
		defer f.a.guard()
		b, err := fetchURL("runs/index.json")
		if err == nil {
			err = f.Set(b)
		}
		if err != nil {
			f.box.SetTextContent("The runs folder cannot be read: " + err.Error())
			return
		}
		page.Enable(ui, "#folders-compare", f.CanCompare())
		f.draw()
	}()
}

// draw shows the list in its order, unless it is unchanged.
func (f *folders) draw() {
	if html, changed := f.HTML(); changed {
		f.box.SetInnerHTML(html)
	}
}

// ticked records a run's checkbox (data-pick) as it changed, and gives
// the picked runs' markers their colours in place, as FoldersHTML draws
// them (the list is not drawn again under the pointer).
func (f *folders) ticked(ev dom.Event) {
	t := ev.Target().Underlying()
	if name := t.Get("dataset").Get("pick"); name.Type() == js.TypeString {
		f.Tick(name.String(), t.Get("checked").Bool())
		page.Enable(ui, "#folders-compare", f.CanCompare())
	}
	for _, box := range f.box.QuerySelectorAll("input[data-pick]") {
		mark := box.Underlying().Get("nextElementSibling")
		if style := page.RunMarkStyle(slices.Index(f.Picked, box.Underlying().Get("dataset").Get("pick").String())); style != "" {
			mark.Call("setAttribute", "style", style)
		} else {
			mark.Call("removeAttribute", "style")
		}
	}
}

// clicked downloads the list as CSV when its CSV button was clicked
// (data-csv), sorts the list by the column whose header was clicked (a
// button with data-sort), shows the run whose name was clicked (a button with
// data-folder), downloads the run's file whose name was (data-file), or
// resumes the run whose Resume was (data-resume): the native engine starts
// it with its folder's configuration, and the page shows that session as
// it shows another tab's.
func (f *folders) clicked(ev dom.Event) {
	if csvButton(ev) == page.TableFolders {
		t := page.FoldersTable(f.List, f.Order)
		downloadCSV(t, t.File)
		return
	}
	closest := func(attr string) js.Value {
		t := ev.Target().Underlying().Call("closest", "button["+attr+"]")
		if !t.Truthy() {
			return t
		}
		return t.Call("getAttribute", attr)
	}
	if key := closest("data-sort"); key.Truthy() {
		f.Order = f.Order.Toggle(key.String())
		f.draw()
	} else if name := closest("data-resume"); name.Truthy() && state() != "training" {
		f.a.engine.send(protocol.Command{Kind: protocol.CmdStart, Session: f.a.route.Next(), Start: page.ResumeStart(name.String())}, nil)
	} else if url := closest("data-file"); url.Truthy() {
		go func() {
			defer f.a.guard()
			b, err := fetchURL(url.String())
			if err != nil {
				f.a.showError(fmt.Sprintf("%s: %v", url.String(), err))
				return
			}
			download(path.Base(url.String()), "application/octet-stream", b)
		}()
	} else if name := closest("data-folder"); name.Truthy() {
		f.showRuns([]string{name.String()})
	}
}

// showRuns shows the named runs of the list as opened runs (side by side
// when there are several): their reports and their figures, unless the
// page trains.
func (f *folders) showRuns(names []string) {
	if state() == "training" {
		return
	}
	runs := f.Runs(names)
	go func() {
		defer f.a.guard()
		read, err := page.ReadFolders(runs, fetchURL)
		var s *page.Session
		if err == nil {
			s, err = page.FolderSession(f.a.route.Next(), read)
		}
		if err != nil {
			f.a.showError(err.Error())
			return
		}
		a := f.a
		a.setDemo(s.Settings.Demo)
		page.SetForm(ui, s.Settings.Raw())
		a.showNew(s)
		a.view.update(s)
		a.setIdle(false)
		setState("idle")
	}()
}
