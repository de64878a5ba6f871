//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file is the list of deeplda ui's runs folder, on a page that deeplda
// ui serves: the runs, a finished one shown as an opened run, and ticked
// ones side by side.

// folders is the runs folder's list.
type folders struct {
	a       *app
	box     dom.HTMLElement
	compare dom.HTMLElement // shows the picked runs side by side
	list    []protocol.RunFolder
	picked  []string // the ticked runs, in the order ticked
	order   page.FolderSort
	html    string // what box shows
}

// newFolders shows the list where deeplda ui serves the page.
func newFolders(a *app) *folders {
	f := &folders{a: a, box: byID("folders"), compare: byID("folders-compare")}
	show(byID("folders-box"), a.native != "")
	a.on(f.box, "click", f.clicked)
	a.on(f.box, "change", f.ticked)
	a.on(f.compare, "click", func(dom.Event) { f.showPicked() })
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
		var list []protocol.RunFolder
		if err == nil {
			err = json.Unmarshal(b, &list)
		}
		if err != nil {
			f.box.SetTextContent("The runs folder cannot be read: " + err.Error())
			return
		}
		f.list = list
		f.picked = slices.DeleteFunc(f.picked, func(name string) bool { return f.find(name) == nil })
		f.enableCompare()
		f.draw()
	}()
}

// draw shows the list in its order.
func (f *folders) draw() {
	if html := page.FoldersHTML(f.list, f.pickedSet(), f.order); html != f.html {
		// Unchanged, the list stays as it is, under the pointer too.
		f.html = html
		f.box.SetInnerHTML(html)
	}
}

// find returns the listed run named name, or nil.
func (f *folders) find(name string) *protocol.RunFolder {
	for i := range f.list {
		if f.list[i].Name == name {
			return &f.list[i]
		}
	}
	return nil
}

// pickedSet returns the ticked runs' names as a set.
func (f *folders) pickedSet() map[string]bool {
	set := map[string]bool{}
	for _, name := range f.picked {
		set[name] = true
	}
	return set
}

// enableCompare enables the side-by-side button for 2 to
// page.MaxSideBySide ticked runs.
func (f *folders) enableCompare() {
	enable(f.compare, len(f.picked) >= 2 && len(f.picked) <= page.MaxSideBySide)
}

// ticked records a run's checkbox (data-pick) as it changed.
func (f *folders) ticked(ev dom.Event) {
	t := ev.Target().Underlying()
	name := t.Get("dataset").Get("pick")
	if name.Type() != js.TypeString {
		return
	}
	f.picked = slices.DeleteFunc(f.picked, func(n string) bool { return n == name.String() })
	if t.Get("checked").Bool() {
		f.picked = append(f.picked, name.String())
	}
	f.enableCompare()
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
		t := page.FoldersTable(f.list, f.order)
		downloadCSV(t, t.File)
		return
	}
	if t := ev.Target().Underlying().Call("closest", "button[data-sort]"); t.Truthy() {
		f.order = f.order.Toggle(t.Get("dataset").Get("sort").String())
		f.draw()
		return
	}
	if t := ev.Target().Underlying().Call("closest", "button[data-resume]"); t.Truthy() {
		if state() == "training" {
			return
		}
		name := t.Get("dataset").Get("resume").String()
		start := &protocol.Start{Jobs: []protocol.Job{{Resume: name}}, Backend: experiment.BackendAuto, Density: true}
		f.a.engine.send(protocol.Command{Kind: protocol.CmdStart, Session: f.a.route.Next(), Start: start}, nil)
		return
	}
	if t := ev.Target().Underlying().Call("closest", "button[data-file]"); t.Truthy() {
		url := t.Get("dataset").Get("file").String()
		go func() {
			defer f.a.guard()
			b, err := fetchURL(url)
			if err != nil {
				f.a.showError(fmt.Sprintf("%s: %v", url, err))
				return
			}
			download(path.Base(url), "application/octet-stream", b)
		}()
		return
	}
	t := ev.Target().Underlying().Call("closest", "button[data-folder]")
	if !t.Truthy() {
		return
	}
	f.showRuns([]string{t.Get("dataset").Get("folder").String()})
}

// showPicked shows the ticked runs side by side.
func (f *folders) showPicked() { f.showRuns(slices.Clone(f.picked)) }

// showRuns shows the named runs of the list, unless the page trains.
func (f *folders) showRuns(names []string) {
	if state() == "training" {
		return
	}
	var runs []protocol.RunFolder
	for _, name := range names {
		if r := f.find(name); r != nil {
			runs = append(runs, *r)
		}
	}
	go func() {
		defer f.a.guard()
		if err := f.show(runs); err != nil {
			f.a.showError(err.Error())
		}
	}()
}

// show shows runs of the folder as opened runs (side by side when there
// are several): their reports and their figures.
func (f *folders) show(runs []protocol.RunFolder) error {
	var read []page.Folder
	for _, r := range runs {
		rep, err := fetchURL(r.Path + "report.json")
		if err != nil {
			return fmt.Errorf("run %s: %v", r.Name, err)
		}
		figs := map[string]string{}
		for _, name := range r.Figures {
			b, err := fetchURL(r.Path + name)
			if err != nil {
				return fmt.Errorf("run %s: %v", r.Name, err)
			}
			figs[name] = string(b)
		}
		read = append(read, page.Folder{RunFolder: r, ReportJSON: rep, Figs: figs})
	}
	s, err := page.FolderSession(f.a.route.Next(), read)
	if err != nil {
		return err
	}
	a := f.a
	a.setDemo(s.Settings.Demo)
	a.form.setRaw(s.Settings.Raw())
	a.showNew(s)
	a.view.update(s)
	a.setIdle(false)
	setState("idle")
	return nil
}
