//go:build js && wasm

package main

import (
	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/page"
)

// bindForm builds the settings form (page.FormHTML) into #fields and
// #fields-advanced; onInput runs after every edit. Package page's
// controls (page.Form, page.SetForm, page.SetFormErrors, page.LockForm)
// read and write it.
func bindForm(onInput func()) {
	basic, advanced := page.FormHTML()
	for _, box := range []dom.HTMLElement{setHTML("fields", basic), setHTML("fields-advanced", advanced)} {
		box.AddEventListener("input", false, func(dom.Event) { onInput() })
		box.AddEventListener("change", false, func(dom.Event) { onInput() })
	}
}
