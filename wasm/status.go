//go:build js && wasm

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/deeplda/deeplda/protocol"
)

// This file shows the page's status: the progress bar, the backend badge
// and the notice bar.

// progress shows a training progress report (at most ten times a second).
func (a *app) progress(s *session, pp *protocol.Progress) {
	p := pp.Progress
	last := p.Epoch == p.Epochs && p.Step == p.Steps
	if time.Since(a.lastProgress) < 100*time.Millisecond && !last {
		return
	}
	a.lastProgress = time.Now()
	runFrac := float64(p.TotalStep) / float64(max(1, p.Epochs*p.Steps))
	f := (float64(s.cur) + runFrac) / float64(len(s.runs))
	a.setProgress(f)
	var b strings.Builder
	if len(s.runs) > 1 {
		fmt.Fprintf(&b, "Run %d of %d (%s) · ", s.cur+1, len(s.runs), s.runs[s.cur].label)
	}
	fmt.Fprintf(&b, "epoch %d / %d · step %d / %d · %s examples/s · loss %.4g · accuracy %.2f%%",
		p.Epoch, p.Epochs, p.Step, p.Steps, thousands(p.ExamplesPerSecond), p.Loss, 100*p.Accuracy)
	if f > 0.005 {
		left := time.Duration(pp.Seconds * float64(time.Second) * (1 - f) / f)
		fmt.Fprintf(&b, " · %s left", roundDuration(left))
	}
	a.setProgressText(b.String())
}

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
	a.badge.SetTextContent(backendBadge(be))
	a.badge.SetAttribute("title", backendBadge(be))
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

// thousands formats a rate with a thousands separator ("12,345").
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// roundDuration rounds a duration for display.
func roundDuration(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
