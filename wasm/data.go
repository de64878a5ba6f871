//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file gives the images demo its data: the data sets this site hosts
// (site/data/<name>/, listed in site/data/index.json by the build) or the
// files the user chooses or drops (IDX files of Fashion-MNIST and MNIST,
// gzipped or raw, and CIFAR binary batches). Files are parsed by package
// images, whose messages name the file and the problem.

// dataSource is the data panel (page.Data) with the files the user
// drops.
type dataSource struct {
	page.Data
	a               *app
	box, msg, input dom.HTMLElement
}

func newDataSource(a *app) *dataSource {
	d := &dataSource{a: a, box: byID("data-box"), msg: byID("e-files"), input: byID("f-files")}
	a.on(d.input, "change", func(dom.Event) {
		d.readFiles(d.input.Underlying().Get("files"))
	})
	a.on(d.box, "dragover", func(ev dom.Event) {
		ev.PreventDefault()
		d.box.Class().Add("drop")
	})
	a.on(d.box, "dragleave", func(dom.Event) { d.box.Class().Remove("drop") })
	a.on(d.box, "drop", func(ev dom.Event) {
		ev.PreventDefault()
		d.box.Class().Remove("drop")
		if state() == "training" {
			return
		}
		d.readFiles(ev.Underlying().Get("dataTransfer").Get("files"))
	})
	return d
}

// update takes where the engine's data sets stand now (page.Data.Update).
func (d *dataSource) update(st *protocol.DataState) {
	msg, pick := d.Update(st, page.Form(ui)["data"])
	if msg != "" {
		d.msg.SetTextContent(msg)
	}
	if pick != "" {
		ui.SetValue("#f-data", pick)
		d.a.edited()
	}
	d.describe()
}

// describe updates the panel's line on where the chosen data set comes
// from.
func (d *dataSource) describe() { d.Describe(ui, page.Form(ui)["data"]) }

// readFiles hands the files the user chose or dropped (a FileList) to the
// engine, which reads the data set they hold (EvData says what it found);
// a single checkpoint is opened as a trained model.
func (d *dataSource) readFiles(list js.Value) {
	n := list.Get("length").Int()
	if n == 0 || !d.a.ready {
		return
	}
	if f := list.Call("item", 0); n == 1 && page.IsCheckpoint(f.Get("name").String()) {
		d.a.models.openFile(f)
		return
	}
	d.msg.SetTextContent("")
	var files []js.Value
	var names []string
	for i := range n {
		f := list.Call("item", i)
		files = append(files, f)
		names = append(names, f.Get("name").String())
	}
	d.a.engine.send(protocol.Command{Kind: protocol.CmdFiles, Files: names, Data: page.Form(ui)["data"]}, files)
}
