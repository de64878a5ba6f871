//go:build js && wasm

package main

import (
	"fmt"
	"maps"
	"slices"
	"syscall/js"
	"time"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// host is the page's page.Host: the engine's link (site/app.js's
// deepldaEngine: the Web Worker, or deeplda ui's native engine over
// HTTP), files, the address bar and the event loop.
type host struct {
	app   *page.App
	link  js.Value // deepldaEngine's link: send(json, files)
	yield yielder
}

// buffer is an ArrayBuffer (or a Blob) as a page.Buffer.
type buffer js.Value

func (b buffer) Bytes() []byte { return jsBytes(js.Value(b)) }

// StartEngine starts the engine; its events, with the checkpoint and the
// figures that came beside their JSON, go to the app.
func (h *host) StartEngine(remote bool) {
	onEvent := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ev, err := protocol.DecodeEvent([]byte(args[0].String()))
		if err != nil {
			ev = protocol.Event{Kind: protocol.EvRefused, Error: err.Error()}
		}
		if figs := args[2]; figs.Type() == js.TypeObject {
			keys := js.Global().Get("Object").Call("keys", figs)
			for i := range keys.Length() {
				ev.AddFigure(keys.Index(i).String(), figs.Get(keys.Index(i).String()).String())
			}
		}
		r := page.Received{Ev: ev}
		if args[1].Truthy() {
			r.Checkpoint = buffer(args[1])
		}
		h.app.Receive(r)
		return nil
	})
	onFatal := js.FuncOf(func(_ js.Value, args []js.Value) any {
		page.Fatal(ui, args[0].String())
		return nil
	})
	h.link = js.Global().Call("deepldaEngine", onEvent, onFatal, remote)
}

// Send posts a command to the engine with its files (File objects).
func (h *host) Send(c protocol.Command, files []page.Upload) {
	b, err := protocol.Encode(c)
	if err != nil {
		page.Fatal(ui, err.Error())
		return
	}
	list := make([]any, len(files))
	for i, f := range files {
		list[i] = f.Handle
	}
	h.link.Call("send", string(b), list)
}

// Save offers data to the user as a file.
func (h *host) Save(name, mime string, data []byte) {
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	h.SaveBuffer(name, mime, buffer(arr))
}

// SaveBuffer offers b (an ArrayBuffer, a view of one or a Blob) to the
// user as a file: a Blob behind a temporary object URL, clicked through
// an invisible link.
func (h *host) SaveBuffer(name, mime string, b page.Buffer) {
	blob := js.Global().Get("Blob").New([]any{js.Value(b.(buffer))}, map[string]any{"type": mime})
	urlAPI := js.Global().Get("URL")
	href := urlAPI.Call("createObjectURL", blob)
	a := js.Global().Get("document").Call("createElement", "a")
	a.Call("setAttribute", "href", href)
	a.Call("setAttribute", "download", name)
	body := js.Global().Get("document").Get("body")
	body.Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
	// Revoke later: the download may start after this handler returns.
	go func() {
		time.Sleep(time.Minute)
		urlAPI.Call("revokeObjectURL", href)
	}()
}

// SavePNG offers the SVG figure svg as a PNG file called name: the
// browser draws it on a canvas page.PNGScale times its size.
func (h *host) SavePNG(name, svg string) error {
	blob := js.Global().Get("Blob").New([]any{svg}, map[string]any{"type": "image/svg+xml"})
	urlAPI := js.Global().Get("URL")
	src := urlAPI.Call("createObjectURL", blob)
	defer urlAPI.Call("revokeObjectURL", src)
	img := js.Global().Get("Image").New()
	img.Set("src", src)
	if _, err := await(img.Call("decode")); err != nil {
		return fmt.Errorf("drawing %s: %v", name, err)
	}
	w, ht := img.Get("naturalWidth").Int(), img.Get("naturalHeight").Int()
	canvas := js.Global().Get("OffscreenCanvas").New(page.PNGScale*w, page.PNGScale*ht)
	ctx := canvas.Call("getContext", "2d")
	ctx.Call("scale", page.PNGScale, page.PNGScale)
	ctx.Call("drawImage", img, 0, 0, w, ht)
	png, err := await(canvas.Call("convertToBlob", map[string]any{"type": "image/png"}))
	if err != nil {
		return fmt.Errorf("drawing %s: %v", name, err)
	}
	h.SaveBuffer(name, "image/png", buffer(png))
	return nil
}

// Fetch downloads a file (jsutil.go).
func (h *host) Fetch(url string) ([]byte, error) { return fetchURL(url) }

// SetURL puts q into the address bar without reloading.
func (h *host) SetURL(q config.Query) {
	params := js.Global().Get("URLSearchParams").New()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			params.Call("append", k, v)
		}
	}
	u := js.Global().Get("location").Get("pathname").String() + "?" + params.Call("toString").String()
	js.Global().Get("history").Call("replaceState", nil, "", u)
}

// Reload loads the page again.
func (h *host) Reload() { js.Global().Get("location").Call("reload") }

// Log writes msg to the browser's console at level (log, warn, error).
func (h *host) Log(level, msg string) { console(level, msg) }

// Yield returns to the browser's event loop.
func (h *host) Yield() { h.yield.now() }

// Frame waits until the browser has drawn a frame.
func (h *host) Frame() { h.yield.frame() }

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
