//go:build js && wasm

package main

import (
	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// lastRun is deeplda ui's session that ended before this page connected:
// its events as the engine sent them, kept while the page offers it (a
// button, "Show the native engine's last run") instead of putting it in
// place of the settings the page opened with.
type lastRun struct {
	events []received
	button dom.HTMLElement
}

// offer keeps the ended session that ev starts and shows the button that
// shows it.
func (a *app) offer(ev protocol.Event) {
	a.dropOffer()
	a.route.Offered = ev.Session
	b := doc.CreateElement("button").(dom.HTMLElement)
	b.SetID("show-last")
	b.SetAttribute("type", "button")
	b.Class().Add("secondary")
	b.SetTextContent(page.Offer(ev))
	l := &lastRun{events: []received{{ev: ev}}, button: b}
	a.on(b, "click", func(dom.Event) {
		if a.last != l || state() == "training" {
			return
		}
		a.dropOffer()
		// The events go again the way the engine's go, in order: the
		// start, no longer marked, is shown as any other session's.
		l.events[0].ev.Ended = false
		go func() {
			for _, r := range l.events {
				a.engine.events <- r
			}
		}()
	})
	a.progressBox.ParentNode().InsertBefore(b, a.progressBox)
	a.last = l
}

// dropOffer removes the offer of an ended session, if there is one.
func (a *app) dropOffer() {
	if a.last != nil {
		a.last.button.Remove()
		a.last, a.route.Offered = nil, 0
	}
}
