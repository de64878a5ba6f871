//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"
)

// fetchURL downloads a file, with deeplda ui's token where the page holds
// one (site/app.js).
func fetchURL(url string) ([]byte, error) {
	init := map[string]any{}
	if tok := js.Global().Get("deepldaToken"); tok.Type() == js.TypeString && tok.String() != "" {
		init["headers"] = map[string]any{"X-Deeplda-Token": tok.String()}
	}
	resp, err := await(js.Global().Call("fetch", url, init))
	if err != nil {
		return nil, err
	}
	if !resp.Get("ok").Bool() {
		return nil, fmt.Errorf("HTTP %d %s", resp.Get("status").Int(), resp.Get("statusText").String())
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, err
	}
	return jsBytes(buf), nil
}

// jsBytes copies an ArrayBuffer into Go memory.
func jsBytes(buf js.Value) []byte {
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b
}

// await blocks the calling goroutine (never an event handler) until a
// promise settles.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "failed"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", ok, fail)
	r := <-ch
	ok.Release()
	fail.Release()
	return r.v, r.err
}

// console writes msg to the browser's console at level (log, warn,
// error).
func console(level, msg string) { js.Global().Get("console").Call(level, msg) }
