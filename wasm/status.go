//go:build js && wasm

package main

import (
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
	"github.com/deeplda/deeplda/wasm/page"
)

// This file shows the page's status (package page's controls): the
// progress bar, the backend badge, the notice bar and the controls'
// state.

func (a *app) setProgress(f float64)            { page.SetProgress(ui, f) }
func (a *app) setProgressText(s string)         { page.SetProgressText(ui, s) }
func (a *app) showBackend(be *protocol.Backend) { page.ShowBackend(ui, be) }
func (a *app) showError(msg string)             { page.ShowError(ui, msg) }
func (a *app) hideError()                       { page.HideError(ui) }
func (a *app) setTraining()                     { page.SetTraining(ui) }

// setIdle switches the controls back; resumable shows Resume.
func (a *app) setIdle(resumable bool) {
	page.SetIdle(ui, a.ready && config.Info(a.demo).Trainable, resumable)
	a.updateDownloads()
}
