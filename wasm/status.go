//go:build js && wasm

package main

import (
	"fmt"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file shows the page's status: the progress bar, the backend badge
// and the notice bar.

// setProgress sets the bar to fraction f of the session.
func (a *app) setProgress(f float64) {
	f = min(max(f, 0), 1)
	a.bar.Style().SetProperty("width", fmt.Sprintf("%.1f%%", 100*f), "")
	a.progressBox.SetAttribute("aria-valuenow", fmt.Sprintf("%.0f", 100*f))
}

// setProgressText sets the line under the bar.
func (a *app) setProgressText(s string) { a.barText.SetTextContent(s) }

// showBackend names the backend in the header and shows why WebGPU is not
// used, if it is not.
func (a *app) showBackend(be *protocol.Backend) {
	a.badge.SetTextContent(page.Badge(be))
	a.badge.SetAttribute("title", page.BadgeTitle(be))
	a.badge.SetAttribute("data-backend", be.Info.Name)
	if be.Why != "" {
		a.notice.SetTextContent(be.Why)
		a.notice.Class().Remove("error")
		show(a.notice, true)
	} else if !a.notice.Class().Contains("error") {
		show(a.notice, false)
	}
}

// showError shows an error in the notice bar.
func (a *app) showError(msg string) {
	a.notice.SetTextContent(msg)
	a.notice.Class().Add("error")
	show(a.notice, true)
}

// hideError hides the notice bar if it shows an error.
func (a *app) hideError() {
	if a.notice.Class().Contains("error") {
		a.notice.Class().Remove("error")
		show(a.notice, false)
	}
}
