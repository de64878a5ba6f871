//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// bind binds the events of the page's elements (index.html's and those
// page.NewApp built) to a's methods; a handler's panic becomes the error
// state (page.App.Guard).
func bind(a *page.App) {
	on := func(sel, typ string, fn func(ev js.Value)) {
		doc.QuerySelector(sel).AddEventListener(typ, false, func(ev dom.Event) {
			defer a.Guard()
			fn(ev.Underlying())
		})
	}
	click := func(sel string, fn func()) { on(sel, "click", func(js.Value) { fn() }) }
	for _, box := range []string{"#fields", "#fields-advanced"} {
		on(box, "input", func(js.Value) { a.Edited() })
		on(box, "change", func(js.Value) { a.Edited() })
	}
	on("#tabs", "click", func(ev js.Value) {
		if t := closest(ev, "a[data-demo]"); t.Truthy() {
			ev.Call("preventDefault")
			a.SwitchDemo(config.Demo(t.Call("getAttribute", "data-demo").String()))
		}
	})
	on("#form", "submit", func(ev js.Value) {
		ev.Call("preventDefault")
		a.Submit()
	})
	click("#stop", a.Stop)
	click("#resume", a.Resume)
	click("#show-last", a.ShowLast)
	click("#dl-report", a.SaveReport)
	click("#dl-checkpoint", a.SaveCheckpoint)
	click("#dl-all", a.SaveAll)
	on("#summary", "click", func(ev js.Value) {
		if id := attr(ev, "data-csv"); id.Truthy() {
			a.SaveTable(id.String())
		} else if i := attr(ev, "data-run"); i.Truthy() {
			a.PickRun(i.String())
		}
	})
	for _, box := range []string{"#overview", "#figures"} {
		on(box, "click", func(ev js.Value) {
			if b := closest(ev, "button[data-download]"); b.Truthy() {
				a.SaveFigure(b.Call("closest", "figure").Call("getAttribute", "data-name").String(), b.Call("getAttribute", "data-download").String())
			}
		})
	}
	on("#f-model", "change", func(js.Value) { a.PickModel() })
	click("#open-model", func() { a.OpenModel(false) })
	click("#open-both", func() { a.OpenModel(true) })
	click("#continue-model", a.ContinueModel)
	on("#f-files", "change", func(ev js.Value) { a.ReadFiles(uploads(ev.Get("target").Get("files"))) })
	dropping := func(on bool) { ui.SetClass("#data-box", "drop", on) }
	on("#data-box", "dragover", func(ev js.Value) {
		ev.Call("preventDefault")
		dropping(true)
	})
	on("#data-box", "dragleave", func(js.Value) { dropping(false) })
	on("#data-box", "drop", func(ev js.Value) {
		ev.Call("preventDefault")
		dropping(false)
		a.ReadFiles(uploads(ev.Get("dataTransfer").Get("files")))
	})
	on("#folders", "click", func(ev js.Value) {
		if attr(ev, "data-csv").Truthy() {
			a.SaveFolders()
		} else if key := attr(ev, "data-sort"); key.Truthy() {
			a.SortFolders(key.String())
		} else if name := attr(ev, "data-resume"); name.Truthy() {
			a.ResumeFolder(name.String())
		} else if url := attr(ev, "data-file"); url.Truthy() {
			a.SaveFolderFile(url.String())
		} else if name := attr(ev, "data-folder"); name.Truthy() {
			a.ShowFolders([]string{name.String()})
		}
	})
	on("#folders", "change", func(ev js.Value) {
		if t := ev.Get("target"); t.Call("hasAttribute", "data-pick").Bool() {
			a.TickFolder(t.Call("getAttribute", "data-pick").String(), t.Get("checked").Bool())
		}
		// The markers take their colours in place: the list is not drawn
		// again under the pointer.
		for _, box := range doc.QuerySelectorAll("#folders input[data-pick]") {
			mark := box.Underlying().Get("nextElementSibling")
			if style := a.FolderMarkStyle(box.GetAttribute("data-pick")); style != "" {
				mark.Call("setAttribute", "style", style)
			} else {
				mark.Call("removeAttribute", "style")
			}
		}
	})
	click("#folders-compare", a.CompareFolders)
}

// closest returns the element nearest ev's target, itself or above it,
// that sel selects (null: none).
func closest(ev js.Value, sel string) js.Value { return ev.Get("target").Call("closest", sel) }

// attr returns attribute name of the button nearest ev's target that has
// it (null: none).
func attr(ev js.Value, name string) js.Value {
	if b := closest(ev, "button["+name+"]"); b.Truthy() {
		return b.Call("getAttribute", name)
	}
	return js.Null()
}

// uploads returns the files of a FileList.
func uploads(list js.Value) []page.Upload {
	var out []page.Upload
	for i := range list.Get("length").Int() {
		f := list.Call("item", i)
		out = append(out, page.Upload{Name: f.Get("name").String(), Handle: f})
	}
	return out
}
