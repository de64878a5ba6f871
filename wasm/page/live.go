package page

import (
	"time"

	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/train"
)

// LossStepsFigure is the file name of the live loss curve of an image run:
// its training loss per step, which the page draws from the engine's
// progress events as the run trains.
const LossStepsFigure = "loss_steps.svg"

// redrawLossEvery is the run time between two drawings of a loss curve:
// the engine reports progress ten times a second, and each drawing takes
// the page's thread for a figure's worth of SVG and layout.
const redrawLossEvery = train.Duration(time.Second)

// maxLossPoints is the most points a loss curve keeps: beyond it,
// neighbouring points merge in pairs.
const maxLossPoints = 500

// lossPoint is the mean training loss of the examples of the steps
// between two progress reports, at the step (of the run) of the later.
type lossPoint struct {
	step     int
	loss     float64
	examples int
}

// lossCurve is a run's training loss per step, from the progress reports
// the page received: each point is the mean loss of the steps since the
// report before (the engine paces its reports, and the page may skip some
// of them; the means stay exact, since each report gives the mean of its
// epoch so far).
type lossCurve struct {
	points []lossPoint
	last   train.Progress  // the report before (zero for none)
	drawn  *train.Duration // the run's time at the last drawing (nil: none yet)
}

// due reports whether the curve, having just taken p, is to be drawn
// again: the first time, a second of the run's time after the last
// drawing, and at the end of every epoch; and notes the drawing.
func (c *lossCurve) due(p train.Progress) bool {
	if c.drawn != nil && p.Elapsed-*c.drawn < redrawLossEvery && p.Step < p.Steps {
		return false
	}
	c.drawn = &p.Elapsed
	return true
}

// add takes a progress report of the run and reports whether the curve
// gained a point. A report at or before the last point's step (a run that
// went back to an earlier save point, on the CPU) drops the points after
// it.
func (c *lossCurve) add(p train.Progress) bool {
	for n := len(c.points); n > 0 && c.points[n-1].step >= p.TotalStep; n-- {
		c.points = c.points[:n-1]
	}
	var before train.Progress // the part of the epoch already in the curve
	if l := c.last; l.Epoch == p.Epoch && l.TotalStep < p.TotalStep && l.Examples <= p.Examples {
		before = l
	}
	c.last = p
	n := p.Examples - before.Examples
	if n <= 0 {
		return false
	}
	loss := (p.Loss*float64(p.Examples) - before.Loss*float64(before.Examples)) / float64(n)
	c.points = append(c.points, lossPoint{step: p.TotalStep, loss: loss, examples: n})
	if len(c.points) > maxLossPoints {
		c.merge()
	}
	return true
}

// merge halves the points: each pair of neighbours becomes one point at
// the later's step, with the mean loss of both.
func (c *lossCurve) merge() {
	out := c.points[:0]
	for i := 0; i < len(c.points); i += 2 {
		p := c.points[i]
		if i+1 < len(c.points) {
			q := c.points[i+1]
			n := p.examples + q.examples
			p = lossPoint{step: q.step, loss: (p.loss*float64(p.examples) + q.loss*float64(q.examples)) / float64(n), examples: n}
		}
		out = append(out, p)
	}
	c.points = out
}

// figure draws the curve.
func (c *lossCurve) figure() []byte {
	s := plot.Series{Name: "train loss"}
	for _, p := range c.points {
		s.X, s.Y = append(s.X, float64(p.step)), append(s.Y, p.loss)
	}
	return plot.Lines(plot.Figure{Title: "Training loss per step", XLabel: "step", YLabel: "loss", IntegerX: true}, []plot.Series{s}, false)
}
