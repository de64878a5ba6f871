//go:build js && wasm

package main

import (
	"github.com/deeplda/deeplda/plot"
)

// warmUpDrawing draws a figure like the engine's once outside the visible
// page and removes it, while the engine warms up: the first figure costs
// the browser a few hundred milliseconds more than later ones (fonts for
// the figures' symbols, first layout of SVG text), which belong to the
// page's loading, not to the first run's end.
func (a *app) warmUpDrawing() {
	svg := plot.Embedding(plot.Figure{Title: "z₁ z₂ Σ σ λ μ", XLabel: "z₁", YLabel: "z₂", Caption: "mean shift · KL"},
		plot.Points{X: []float64{0, 1, 2}, Y: []float64{0, 1, 0}, Class: []int{0, 1, 2}}, nil,
		[]plot.Ellipse{{Class: 0, Points: [][2]float64{{0, 0}, {1, 0}, {1, 1}}}}, []plot.Mean{{Class: 1, X: 1, Y: 1}}, nil)
	box := el("div", "", "")
	box.SetAttribute("aria-hidden", "true")
	box.SetAttribute("style", "position:fixed;left:-10000px;top:0;width:680px;pointer-events:none")
	box.SetInnerHTML(string(svg))
	body := doc.GetElementsByTagName("body")[0]
	body.AppendChild(box)
	a.yield.frame()
	body.RemoveChild(box)
}
