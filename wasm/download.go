//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"time"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/wasm/page"
)

// download offers data to the user as a file.
func download(name, mime string, data []byte) {
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	downloadBuffer(name, mime, arr)
}

// downloadBuffer offers buf (an ArrayBuffer, a view of one or a Blob) to
// the user as a file: a Blob behind a temporary object URL, clicked through an
// invisible link.
func downloadBuffer(name, mime string, buf js.Value) {
	blob := js.Global().Get("Blob").New([]any{buf}, map[string]any{"type": mime})
	urlAPI := js.Global().Get("URL")
	href := urlAPI.Call("createObjectURL", blob)
	a := doc.CreateElement("a")
	a.SetAttribute("href", href.String())
	a.SetAttribute("download", name)
	body := doc.GetElementsByTagName("body")[0]
	body.AppendChild(a)
	a.Underlying().Call("click")
	body.RemoveChild(a)
	// Revoke later: the download may start after this handler returns.
	go func() {
		time.Sleep(time.Minute)
		urlAPI.Call("revokeObjectURL", href)
	}()
}

// csvButton returns the id of the table whose CSV button (data-csv) ev's
// target is in, "" when it is in none.
func csvButton(ev dom.Event) string {
	b := ev.Target().Underlying().Call("closest", "button[data-csv]")
	if !b.Truthy() {
		return ""
	}
	return b.Get("dataset").Get("csv").String()
}

// downloadCSV offers table t as a CSV file called name.
func downloadCSV(t *page.Table, name string) {
	download(name, "text/csv", t.CSV())
}

// downloadPNG offers the SVG figure svg as a PNG file called name: the
// browser draws it on a canvas page.PNGScale times its size. It waits for the
// browser, so it must run in a goroutine, never directly in an event
// handler.
func downloadPNG(name, svg string) error {
	blob := js.Global().Get("Blob").New([]any{svg}, map[string]any{"type": "image/svg+xml"})
	urlAPI := js.Global().Get("URL")
	src := urlAPI.Call("createObjectURL", blob)
	defer urlAPI.Call("revokeObjectURL", src)
	img := js.Global().Get("Image").New()
	img.Set("src", src)
	if _, err := await(img.Call("decode")); err != nil {
		return fmt.Errorf("drawing %s: %v", name, err)
	}
	w, h := img.Get("naturalWidth").Int(), img.Get("naturalHeight").Int()
	canvas := js.Global().Get("OffscreenCanvas").New(page.PNGScale*w, page.PNGScale*h)
	ctx := canvas.Call("getContext", "2d")
	ctx.Call("scale", page.PNGScale, page.PNGScale)
	ctx.Call("drawImage", img, 0, 0, w, h)
	png, err := await(canvas.Call("convertToBlob", map[string]any{"type": "image/png"}))
	if err != nil {
		return fmt.Errorf("drawing %s: %v", name, err)
	}
	downloadBuffer(name, "image/png", png)
	return nil
}
