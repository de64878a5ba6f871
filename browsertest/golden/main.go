//go:build js && wasm

// Command golden is the page program of the browser's golden check
// (browsertest/golden_test.go), its toy timing (bench_test.go) and its
// WebGPU benchmarks (gpubench_test.go): it runs the mode of the page's
// query (package internal/goldenpage, which says what each runs) with
// the files fetched from the server and the WebGPU backend opened through
// navigator.gpu, then writes the JSON result into <pre id="result"> and
// sets document.body.dataset.state to "done" (the mode ran; the result
// lists any failures) or "error" (it could not run).
package main

import (
	"errors"
	"fmt"
	"syscall/js"

	"github.com/deeplda/deeplda/internal/goldenpage"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

func main() {
	body := js.Global().Get("document").Get("body")
	body.Get("dataset").Set("ready", "1")
	q := js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search"))
	result, state := goldenpage.Run(goldenpage.Page{
		Param: func(name, def string) string {
			if v := q.Call("get", name); v.Type() == js.TypeString {
				return v.String()
			}
			return def
		},
		Fetch:  fetchBytes,
		WebGPU: func() (kernels.Backend, error) { return webgpu.New() },
	})
	js.Global().Get("document").Call("getElementById", "result").Set("textContent", string(result))
	body.Get("dataset").Set("state", state)
	// Stay alive: callbacks of the WebGPU binding may still arrive, and a
	// Go program that has exited answers them with an exception.
	select {}
}

// await waits for a promise (from the main goroutine, never from inside a
// js.FuncOf callback).
func await(p js.Value) (js.Value, error) {
	done := make(chan struct{})
	var v js.Value
	var err error
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		v = args[0]
		close(done)
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		err = errors.New(args[0].Call("toString").String())
		close(done)
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	<-done
	return v, err
}

// fetchBytes fetches url (relative to the page).
func fetchBytes(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", url, err)
	}
	if !resp.Get("ok").Bool() {
		return nil, fmt.Errorf("fetching %s: HTTP %d", url, resp.Get("status").Int())
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b, nil
}
