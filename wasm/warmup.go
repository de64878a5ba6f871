//go:build js && wasm

package main

import (
	"context"
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
)

// warmUp takes tiny toy runs through every step the page takes with a real
// one: training, evaluation, the figures, the report and the checkpoint,
// yielding between the steps; on the CPU with both encoders, and on be too
// when it is another backend. The browser compiles WebAssembly functions
// when they are first called (and WebGPU its pipelines when first used);
// the plotting code alone then takes a few hundred milliseconds. Doing it
// while the page loads keeps those stalls out of the first run. An error
// means that be failed.
func warmUp(y *yielder, cpu, be kernels.Backend) error {
	for _, enc := range []model.EncoderKind{model.EncoderMLP, model.EncoderNone} {
		if err := warmUpRun(y, cpu, enc); err != nil {
			return fmt.Errorf("warming up the CPU backend: %w", err)
		}
	}
	if be != cpu {
		return warmUpRun(y, be, model.EncoderMLP)
	}
	return nil
}

// warmUpRun takes one tiny run with the given encoder through the page's
// steps on be. A panic comes back as an error.
func warmUpRun(y *yielder, be kernels.Backend, encoder model.EncoderKind) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	c := experiment.DefaultSynth()
	c.Encoder, c.Train, c.Test, c.Epochs, c.Batch = encoder.String(), 64, 32, 1, 32
	run, err := experiment.NewSynth(be, c)
	if err != nil {
		return err
	}
	if err := run.Epoch(context.Background(), nil); err != nil {
		return err
	}
	y.now()
	if err := run.Finish(); err != nil {
		return err
	}
	y.now()
	figs := run.Figures()
	y.now()
	warmUpDrawing(y, figs["embedding.svg"])
	consistencyFigure(run)
	reportJSON(run)
	st, err := run.Model.State()
	if err != nil {
		return err
	}
	if _, err := safetensors.Encode(st); err != nil {
		return err
	}
	y.now()
	return be.Sync()
}

// warmUpDrawing draws a figure once outside the visible page and removes
// it: the first figure costs the browser a few hundred milliseconds more
// than later ones (fonts for the figures' symbols, first layout of SVG
// text), which belong to the page's loading, not to the first run.
func warmUpDrawing(y *yielder, svg []byte) {
	if svg == nil {
		return
	}
	box := el("div", "", "")
	box.SetAttribute("aria-hidden", "true")
	box.SetAttribute("style", "position:fixed;left:-10000px;top:0;width:680px;pointer-events:none")
	box.SetInnerHTML(string(svg))
	body := doc.GetElementsByTagName("body")[0]
	body.AppendChild(box)
	y.frame()
	body.RemoveChild(box)
}
