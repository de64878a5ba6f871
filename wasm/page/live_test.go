package page

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/train"
	"github.com/deeplda/deeplda/wasm/config"
)

// tick is a progress report of a run of 2 epochs of 30 steps of 32
// images: at step step of epoch epoch, loss the mean of the epoch so far.
func tick(epoch, step int, loss float64) train.Progress {
	return train.Progress{Epoch: epoch, Epochs: 2, Step: step, Steps: 30, TotalStep: (epoch-1)*30 + step, Loss: loss, Examples: 32 * step,
		Elapsed: train.Duration(time.Duration((epoch-1)*30+step) * 100 * time.Millisecond)}
}

// TestLossCurve checks the live loss curve's points: the mean loss of the
// steps between two reports of an epoch, from the epoch's start after a
// report of the epoch before, and none back past a report at an earlier
// step (a run moved to the CPU from an earlier save point).
func TestLossCurve(t *testing.T) {
	var c lossCurve
	for _, p := range []train.Progress{tick(1, 10, 2), tick(1, 20, 1.5), tick(1, 30, 1.2), tick(2, 10, 0.8), tick(2, 20, 0.7)} {
		if !c.add(p) {
			t.Fatalf("report at step %d added no point", p.TotalStep)
		}
	}
	want := []lossPoint{{10, 2, 320}, {20, 1, 320}, {30, 0.6, 320}, {40, 0.8, 320}, {50, 0.6, 320}}
	check := func(when string, want []lossPoint) {
		t.Helper()
		if len(c.points) != len(want) {
			t.Fatalf("%s: %d points %v, want %v", when, len(c.points), c.points, want)
		}
		for i, p := range c.points {
			if p.step != want[i].step || p.examples != want[i].examples || math.Abs(p.loss-want[i].loss) > 1e-12 {
				t.Errorf("%s: point %d is %+v, want %+v", when, i, p, want[i])
			}
		}
	}
	check("two epochs", want)
	// Back to step 10 of epoch 2 (the last save point): the points after
	// it go, and the next report's mean is of the epoch from its start.
	c.add(tick(2, 10, 0.9))
	check("back to step 40", append(want[:3:3], lossPoint{40, 0.9, 320}))
	if c.add(tick(2, 10, 0.9)) != true || len(c.points) != 4 {
		t.Errorf("the same report again: %d points, want it in place of itself", len(c.points))
	}
	if c.add(train.Progress{Epoch: 2, TotalStep: 41}) {
		t.Error("a report without examples added a point")
	}
}

// TestLossCurveMerges checks that a long run's curve keeps at most
// maxLossPoints points, each the mean of the steps it covers, the last at
// the last report's step.
func TestLossCurveMerges(t *testing.T) {
	var c lossCurve
	var sum float64
	const steps = 3 * maxLossPoints
	for i := 1; i <= steps; i++ {
		l := 1 / float64(i)
		sum += l
		c.add(train.Progress{Epoch: 1, Step: i, Steps: steps, TotalStep: i, Loss: sum / float64(i), Examples: i})
	}
	if n := len(c.points); n > maxLossPoints || n < maxLossPoints/2 {
		t.Errorf("%d points after %d reports, want %d at most and at least half as many", n, steps, maxLossPoints)
	}
	var total float64
	n := 0
	for _, p := range c.points {
		total += p.loss * float64(p.examples)
		n += p.examples
	}
	if n != steps || math.Abs(total-sum) > 1e-9 || c.points[len(c.points)-1].step != steps {
		t.Errorf("the points cover %d examples with a loss of %v ending at step %d, want %d, %v and %d", n, total, c.points[len(c.points)-1].step, steps, sum, steps)
	}
}

// TestLiveFigure replays progress events: an image session draws the
// shown run's loss curve (Status.Live) at the first report and then at
// most once a second of the run's time or at an epoch's end, with a point
// per report; a toy session draws none.
func TestLiveFigure(t *testing.T) {
	s, err := NewSession(1, config.Defaults(config.Images))
	if err != nil {
		t.Fatal(err)
	}
	// At 1.0 s, 1.5 s (too soon), 2.0 s, 2.1 s (too soon, but the epoch's
	// end), 4.0 s.
	for i, tc := range []struct {
		p    train.Progress
		live bool
	}{{tick(1, 10, 2), true}, {tick(1, 15, 1.8), false}, {tick(1, 20, 1.5), true}, {tick(1, 30, 1.4), true}, {tick(2, 10, 1), true}} {
		st := s.Apply(protocol.Event{Kind: protocol.EvProgress, Session: 1, Progress: &protocol.Progress{Progress: tc.p}})
		if st.Live != tc.live || st.Redraw {
			t.Errorf("report %d: Live %v, Redraw %v; want Live %v and no redraw", i, st.Live, st.Redraw, tc.live)
		}
	}
	if n := len(s.Runs[0].loss.points); n != 5 {
		t.Errorf("the curve has %d points, want 5", n)
	}
	svg := s.Runs[0].Figs[LossStepsFigure]
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, ">Training loss per step<") {
		t.Errorf("%s: %.200s", LossStepsFigure, svg)
	}
	if _, detail := Layout(s); !hasSlot(detail, LossStepsFigure) {
		t.Errorf("the image run's figures %v lack %s", detail, LossStepsFigure)
	}
	toy, err := NewSession(2, config.Defaults(config.Deep))
	if err != nil {
		t.Fatal(err)
	}
	st := toy.Apply(protocol.Event{Kind: protocol.EvProgress, Session: 2, Progress: &protocol.Progress{Progress: tick(1, 10, 2)}})
	if _, ok := toy.Runs[0].Figs[LossStepsFigure]; ok || st.Live {
		t.Error("a toy run drew a live loss curve")
	}
}

// hasSlot reports whether slots hold the figure name.
func hasSlot(slots []Slot, name string) bool {
	for _, sl := range slots {
		if sl.Name == name {
			return true
		}
	}
	return false
}
