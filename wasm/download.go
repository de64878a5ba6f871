//go:build js && wasm

package main

import (
	"syscall/js"
	"time"
)

// download offers data to the user as a file.
func download(name, mime string, data []byte) {
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	downloadBuffer(name, mime, arr)
}

// downloadBuffer offers buf (an ArrayBuffer or a view of one) to the user
// as a file: a Blob behind a temporary object URL, clicked through an
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
