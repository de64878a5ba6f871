//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file is the list of deeplda ui's runs folder, on a page that deeplda
// ui serves: the runs, and a finished one shown as an opened run.

// folders is the runs folder's list.
type folders struct {
	a    *app
	box  dom.HTMLElement
	list []protocol.RunFolder
	html string // what box shows
}

// newFolders shows the list where deeplda ui serves the page.
func newFolders(a *app) *folders {
	f := &folders{a: a, box: byID("folders")}
	show(byID("folders-box"), a.native != "")
	a.on(f.box, "click", f.clicked)
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
		if html := page.FoldersHTML(list); html != f.html {
			// Unchanged, the list stays as it is, under the pointer too.
			f.html = html
			f.box.SetInnerHTML(html)
		}
	}()
}

// clicked shows the run whose name was clicked (a button with
// data-folder).
func (f *folders) clicked(ev dom.Event) {
	t := ev.Target().Underlying().Call("closest", "button[data-folder]")
	if !t.Truthy() || state() == "training" {
		return
	}
	name := t.Get("dataset").Get("folder").String()
	for _, r := range f.list {
		if r.Name == name {
			go func() {
				defer f.a.guard()
				if err := f.show(r); err != nil {
					f.a.showError(err.Error())
				}
			}()
		}
	}
}

// show shows run r of the folder as an opened run: its report and its
// figures.
func (f *folders) show(r protocol.RunFolder) error {
	base := r.Path
	rep, err := fetchURL(base + "report.json")
	if err != nil {
		return fmt.Errorf("run %s: %v", r.Name, err)
	}
	figs := map[string]string{}
	for _, name := range r.Figures {
		b, err := fetchURL(base + name)
		if err != nil {
			return fmt.Errorf("run %s: %v", r.Name, err)
		}
		figs[name] = string(b)
	}
	f.a.lastID++
	s, err := page.FolderSession(f.a.lastID, r, rep, figs)
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
