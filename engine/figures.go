package engine

import (
	"fmt"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/report"
)

// The engine draws no figure itself: package experiment draws them from
// what the runs report, and the engine gathers them across its runs.

// overviewFigures returns the figures a session draws across its runs
// (protocol.Start's Overview): nil for a single run.
func (s *session) overviewFigures() map[string][]byte {
	if len(s.runs) < 2 {
		return nil
	}
	switch s.start.Overview {
	case protocol.OverviewSweep:
		return sweepFigures(s.runs)
	case protocol.OverviewHeads:
		return s.comparison().Figures()
	case protocol.OverviewRuns:
		var curves []experiment.Curves
		for _, jr := range s.runs {
			if jr.run != nil {
				curves = append(curves, experiment.Curves{Label: jr.job.Label, History: jr.run.Report.History})
			}
		}
		figs := experiment.HistoryFigures(curves)
		if figs == nil {
			figs = map[string][]byte{}
		}
		for i, jr := range s.runs {
			figs[fmt.Sprintf("run%d-embedding.svg", i+1)] = jr.side
		}
		return figs
	}
	return nil
}

// drawSide draws run jr's embedding for the runs side by side
// (experiment.Run.SideEmbedding) when its session lays them so
// (OverviewRuns), as it draws the run's own figures.
func (s *session) drawSide(jr *jobRun) {
	if len(s.runs) > 1 && s.start.Overview == protocol.OverviewRuns {
		jr.side = jr.run.SideEmbedding()
	}
}

// comparison returns the comparison of an images session's two
// heads (experiment.CompareHeads), from the reports of the runs built so
// far.
func (s *session) comparison() *experiment.Comparison {
	reps := make([]*report.Report, len(s.runs))
	for i, jr := range s.runs {
		if jr.run != nil {
			reps[i] = jr.run.Report
		}
	}
	return experiment.NewComparison(*s.runs[0].job.Image, *s.runs[1].job.Image, reps[0], reps[1])
}

// sweepFigures returns the figures of the finished runs of a lambda sweep
// of toy runs against lambda (experiment.SweepFigures): test accuracy and
// ECE, and the learned sigma of the spherical head.
func sweepFigures(runs []*jobRun) map[string][]byte {
	res := experiment.NewSweepResult(experiment.SweepConfig{Seeds: 1}, kernels.Info{})
	for _, jr := range runs {
		if jr.status != statusDone || jr.run == nil {
			continue
		}
		rep := jr.run.Report
		res.AddPoint(experiment.SweepPoint{Lambda: jr.job.Synth.Lambda, Seed: jr.job.Synth.Seed,
			Accuracy: rep.Test.Accuracy, ECE: rep.Test.ECE, NLL: rep.Test.NLL, Sigma: rep.Head.Sigma})
	}
	if len(res.Points) == 0 {
		return nil
	}
	return experiment.SweepFigures(res.Summary, "toy data", "")
}
