// Command nodeengine runs the page's engine (package engine) outside the
// page, under Node.js: it plans the session of a page address's query as
// the page does (package wasm/page), trains it on the CPU backend with the
// site's files read from a folder, and prints the report.json of the
// session's first run. The browser tests compare it with the page's, bit
// for bit. It holds no JavaScript, so it builds, and is tested, natively
// too.
//
//	node wasm_exec_node.js nodeengine.wasm SITE-DIR 'demo=deep&epochs=3'
package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// host is the engine's host under Node.js: no WebGPU, the site in a
// folder, the events on a channel.
type host struct {
	site   string
	events chan protocol.Event
}

func (h *host) OpenWebGPU() (kernels.Backend, string) { return nil, "no WebGPU under Node.js" }
func (h *host) Yield()                                {}
func (h *host) LoseDevice()                           {}
func (h *host) Memory() string                        { return "plain" }
func (h *host) Engine() string                        { return "page" }
func (h *host) Emit(ev protocol.Event)                { h.events <- ev }

func (h *host) Fetch(path string) ([]byte, error) {
	return os.ReadFile(filepath.Join(h.site, filepath.FromSlash(path)))
}

func main() {
	err := errors.New("usage: nodeengine SITE-DIR QUERY")
	if len(os.Args) == 3 {
		err = run(os.Args[1], os.Args[2], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodeengine:", err)
		os.Exit(1)
	}
}

// run trains the session of the page's query with the site in the folder
// site and writes the report.json of its first run to w.
func run(site, query string, w io.Writer) error {
	v, err := url.ParseQuery(query)
	if err != nil {
		return err
	}
	s, _, errs := config.FromQuery(config.Query(v))
	if len(errs) > 0 {
		return errs.Err()
	}
	sess, err := page.NewSession(1, s)
	if err != nil {
		return err
	}
	h := &host{site: site, events: make(chan protocol.Event, 1<<16)}
	e := engine.New(h)
	e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: s.Backend}}, nil)
	e.Handle(protocol.Command{Kind: protocol.CmdStart, Session: sess.ID, Start: sess.Start()}, nil)
	for ev := range h.events {
		if ev.Session != sess.ID {
			continue
		}
		sess.Apply(ev)
		switch ev.Kind {
		case protocol.EvDone:
			_, err := w.Write(sess.Runs[0].Report)
			return err
		case protocol.EvFailed, protocol.EvNoData, protocol.EvRefused, protocol.EvStopped:
			return fmt.Errorf("the session ended with %s: %s", ev.Kind, ev.Error)
		}
	}
	return nil
}
