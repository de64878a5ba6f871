//go:build js && wasm

package main

import (
	"strings"
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

// dataSource is the data panel: where the engine's data sets stand
// (protocol.DataState) and the files the user drops.
type dataSource struct {
	a  *app
	st protocol.DataState

	box, status, msg dom.HTMLElement
	input            dom.HTMLElement
}

func newDataSource(a *app) *dataSource {
	d := &dataSource{a: a, box: byID("data-box"), status: byID("data-status"), msg: byID("e-files"), input: byID("f-files")}
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

// update takes where the engine's data sets stand now; when the user's
// files turned out to hold another data set than the form's, the form
// follows them.
func (d *dataSource) update(st *protocol.DataState) {
	was := d.st
	d.st = *st
	if st.Error != "" && st.Error != was.Error {
		d.msg.SetTextContent(st.Error)
	}
	if st.Picked != "" && (st.Picked != was.Picked || st.From != was.From) && page.Form(ui)["data"] != st.Picked {
		ui.SetValue("#f-data", st.Picked)
		d.a.edited()
	}
	d.describe()
}

// describe updates the panel's line on where the chosen data set comes
// from.
func (d *dataSource) describe() {
	text, hosted := page.DataText(&d.st, page.Form(ui)["data"])
	d.status.SetTextContent(text)
	if hosted != "" {
		d.box.SetAttribute("data-hosted", hosted)
	}
}

// readFiles hands the files the user chose or dropped (a FileList) to the
// engine, which reads the data set they hold (EvData says what it found);
// a single checkpoint is opened as a trained model.
func (d *dataSource) readFiles(list js.Value) {
	n := list.Get("length").Int()
	if n == 0 || !d.a.ready {
		return
	}
	if f := list.Call("item", 0); n == 1 && isCheckpoint(f.Get("name").String()) {
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

// isCheckpoint reports whether a file's name is a checkpoint's.
func isCheckpoint(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".safetensors")
}
