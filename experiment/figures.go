package experiment

import (
	"fmt"
	"math"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
)

// Figures returns the SVG figures of a finished run, by file name:
// embedding.svg (2-D embeddings of the test set, or their first two
// principal components, with the class Gaussians' 90% ellipses, the means
// and, in 2-D, the decision regions), curves.svg (the loss), accuracy.svg
// (the accuracies above, the test ECE below, in percent; for a model with
// BatchNorm the legend says that the training accuracy is the running one
// of the epoch in training mode and that the test curve uses the running
// statistics, not recalibrated ones), logdet.svg (log
// det Sigma per epoch), reliability.svg and confidence.svg.
func (r *Run) Figures() map[string][]byte {
	figs := map[string][]byte{}
	rep := r.Report
	if len(r.TestOut.Z) > 0 {
		figs["embedding.svg"] = r.embeddingFigure(plot.Figure{})
	}
	var loss, trainAcc, testAcc, logdet, ece []float64
	var epochs []float64
	for _, h := range rep.History {
		epochs = append(epochs, float64(h.Epoch))
		loss = append(loss, float64(h.Loss))
		trainAcc = append(trainAcc, 100*float64(h.TrainAccuracy))
		testAcc = append(testAcc, 100*float64(h.TestAccuracy))
		ece = append(ece, 100*float64(h.TestECE))
		if h.LogDetCov != nil {
			logdet = append(logdet, float64(*h.LogDetCov))
		}
	}
	figs["curves.svg"] = plot.Lines(plot.Figure{Title: "Training loss", XLabel: "epoch", YLabel: "loss", IntegerX: true},
		[]plot.Series{{Name: "train loss", X: epochs, Y: loss}}, false)
	trainName, testName := "train accuracy", "test accuracy"
	if len(r.Model.BatchNorms()) > 0 {
		trainName, testName = "train accuracy (training mode, over the epoch)", "test accuracy (running BatchNorm statistics)"
	}
	figs["accuracy.svg"] = plot.Stack(plot.Figure{Title: "Accuracy and calibration", XLabel: "epoch", IntegerX: true}, []plot.Panel{
		{YLabel: "accuracy (%)", ZeroY: true, Weight: 3, Series: []plot.Series{{Name: trainName, X: epochs, Y: trainAcc}, {Name: testName, X: epochs, Y: testAcc}}},
		{YLabel: "test ECE (%)", ZeroY: true, Weight: 2, Series: []plot.Series{{Name: "test ECE (10 bins)", X: epochs, Y: ece, Dashed: true}}},
	})
	if len(logdet) == len(epochs) && len(logdet) > 0 {
		figs["logdet.svg"] = plot.Lines(plot.Figure{Title: "log det Σ of the head", XLabel: "epoch", YLabel: "log det Σ", IntegerX: true},
			[]plot.Series{{Name: "log det Σ", X: epochs, Y: logdet}}, false)
	}
	bins := plotBins(rep.Test.Reliability)
	figs["reliability.svg"] = plot.Reliability(plot.Figure{Title: "Reliability (test)"}, bins, float64(rep.Test.ECE))
	figs["confidence.svg"] = plot.ConfidenceHistogram(plot.Figure{Title: "Confidence (test)"}, bins, float64(rep.Test.Accuracy), float64(rep.Test.MeanConfidence))
	return figs
}

// ConsistencyFigure draws the test embeddings with the learned Gaussians
// (class colours) and the closed-form LDA refit on the training embeddings
// (grey), with the mean shift and KL of the report in the caption. It
// returns nil until the run has a consistency report for a 2-D embedding.
func (r *Run) ConsistencyFigure() []byte {
	rep := r.Report
	c := rep.Consistency
	if c == nil || len(rep.Head.Mu) == 0 || len(c.RefitMu) != len(rep.Head.Mu) || r.TestOut.D != 2 || len(r.TestOut.Z) == 0 {
		return nil
	}
	fig := plot.Figure{
		Title:   "Consistency: learned head (colour) vs closed-form refit (grey)",
		XLabel:  "z₁",
		YLabel:  "z₂",
		Caption: fmt.Sprintf("mean shift %.3g · KL %.3g", float64(c.MeanShift), float64(c.KL)),
	}
	if r.Model.Spec.Encoder == model.EncoderNone {
		fig.XLabel, fig.YLabel = "x₁", "x₂"
	}
	pts := plot.Points{}
	for i, y := range r.TestSet.Y {
		pts.X = append(pts.X, float64(r.TestOut.Z[2*i]))
		pts.Y = append(pts.Y, float64(r.TestOut.Z[2*i+1]))
		pts.Class = append(pts.Class, int(y))
	}
	var ellipses []plot.Ellipse
	var means []plot.Mean
	add := func(class int, mu []report.Float, cov [][]report.Float) {
		if len(mu) != 2 || len(cov) != 2 || len(cov[0]) != 2 || len(cov[1]) != 2 {
			return
		}
		m := []float64{float64(mu[0]), float64(mu[1])}
		s := []float64{float64(cov[0][0]), float64(cov[0][1]), float64(cov[1][0]), float64(cov[1][1])}
		if e, err := metrics.Ellipse(m, s, 0.9, 96); err == nil {
			ellipses = append(ellipses, plot.Ellipse{Class: class, Points: e})
		}
		means = append(means, plot.Mean{Class: class, X: m[0], Y: m[1]})
	}
	for k := range rep.Head.Mu {
		add(-1, c.RefitMu[k], c.RefitCov)
		add(k, rep.Head.Mu[k], rep.Head.Cov)
	}
	return plot.Embedding(fig, pts, nil, ellipses, means, nil)
}

// HistoryFigures draws the histories of runs shown side by side on shared
// axes, at SideWidth × SideHeight, one curve per run with a history, run
// i's in RunColor(i):
// compare-logdet.svg (log det Sigma per epoch) and compare-accuracy.svg
// (test accuracy per epoch, in percent, as every figure gives it); nil
// when no run has a history.
func HistoryFigures(runs []Curves) map[string][]byte {
	var logdet, acc []plot.Series
	for i, r := range runs {
		if len(r.History) == 0 {
			continue
		}
		ld := plot.Series{Name: r.Label, Color: RunColor(i)}
		ta := ld
		for _, h := range r.History {
			if h.LogDetCov != nil {
				ld.X, ld.Y = append(ld.X, float64(h.Epoch)), append(ld.Y, float64(*h.LogDetCov))
			}
			ta.X, ta.Y = append(ta.X, float64(h.Epoch)), append(ta.Y, 100*float64(h.TestAccuracy))
		}
		logdet, acc = append(logdet, ld), append(acc, ta)
	}
	if len(acc) == 0 {
		return nil
	}
	return map[string][]byte{
		"compare-logdet.svg": plot.Lines(plot.Figure{Title: "log det Σ per epoch", XLabel: "epoch", YLabel: "log det Σ", IntegerX: true,
			Width: SideWidth, Height: SideHeight}, logdet, false),
		"compare-accuracy.svg": plot.Lines(plot.Figure{Title: "Test accuracy per epoch", XLabel: "epoch", YLabel: "test accuracy (%)", IntegerX: true, ZeroY: true,
			Width: SideWidth, Height: SideHeight}, acc, false),
	}
}

// SideWidth and SideHeight are the size in pixels of the figures that lay
// a toy demo's runs side by side on the page (SideEmbedding and
// HistoryFigures): two of them go in a row of a laptop's window (1366 px)
// beside the settings, three in a row of a wide screen's (1920 px), their
// texts at the sizes every figure draws them.
const SideWidth, SideHeight = 460, 380

// SideEmbedding draws the embedding of Figures at SideWidth × SideHeight,
// for the runs side by side; nil before the run has test embeddings.
func (r *Run) SideEmbedding() []byte {
	if len(r.TestOut.Z) == 0 {
		return nil
	}
	return r.embeddingFigure(plot.Figure{Width: SideWidth, Height: SideHeight})
}

// embeddingFigure draws the test embeddings with the head's Gaussians, at
// the size of fig (the default for zero).
func (r *Run) embeddingFigure(fig plot.Figure) []byte {
	out, y := r.TestOut, r.TestSet.Y
	d := out.D
	rep := r.Report
	fig.Title, fig.XLabel, fig.YLabel = fmt.Sprintf("Test embeddings (%s, %s)", r.Model.Spec.Loss, r.Model.Spec.Head), "z₁", "z₂"
	if r.Model.Spec.Encoder == model.EncoderNone {
		fig.Title, fig.XLabel, fig.YLabel = "Inputs and the LDA head", "x₁", "x₂"
	}
	// project maps a d-vector to the plane (identity in 2-D, else PCA).
	project := func(v []float64) [2]float64 { return [2]float64{v[0], v[min(1, d-1)]} }
	if d > 2 {
		pca, err := metrics.PCA(metrics.Float64s(out.Z), len(y), d, 2)
		if err == nil {
			project = func(v []float64) [2]float64 { p := pca.Project(v); return [2]float64{p[0], p[1]} }
			fig.XLabel, fig.YLabel = "PC 1", "PC 2"
			fig.Title += ", PCA"
		}
	}
	pts := plot.Points{}
	for i := range y {
		p := project(metrics.Float64s(out.Z[i*d : (i+1)*d]))
		pts.X, pts.Y, pts.Class = append(pts.X, p[0]), append(pts.Y, p[1]), append(pts.Class, int(y[i]))
	}
	var ellipses []plot.Ellipse
	var means []plot.Mean
	var regions *plot.Region
	if rep.Head.Mu != nil && d == 2 {
		sigma := []float64{float64(rep.Head.Cov[0][0]), float64(rep.Head.Cov[0][1]), float64(rep.Head.Cov[1][0]), float64(rep.Head.Cov[1][1])}
		for c, mu := range rep.Head.Mu {
			m := []float64{float64(mu[0]), float64(mu[1])}
			if pts, err := metrics.Ellipse(m, sigma, 0.9, 96); err == nil {
				ellipses = append(ellipses, plot.Ellipse{Class: c, Points: pts})
			}
			means = append(means, plot.Mean{Class: c, X: m[0], Y: m[1]})
		}
		regions = r.decisionRegions(pts)
	}
	return plot.Embedding(fig, pts, regions, ellipses, means, nil)
}

// decisionRegions returns the head's decision regions for the embedding
// figure, shaded by the LDA head's log density: the plot evaluates the
// head's argmax and log p(z) on a grid over its axes, which cover the
// points.
func (r *Run) decisionRegions(pts plot.Points) *plot.Region {
	const nx, ny = 120, 90
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range pts.X {
		x0, x1 = min(x0, pts.X[i]), max(x1, pts.X[i])
		y0, y1 = min(y0, pts.Y[i]), max(y1, pts.Y[i])
	}
	reg := &plot.Region{X0: x0, X1: x1, Y0: y0, Y1: y1, NX: nx, NY: ny, Classify: r.classify}
	if r.Model.Spec.Head == model.HeadLDA && !r.HideDensity {
		reg.Density = r.logDensity
	}
	return reg
}

// classify returns the head's argmax at the embeddings (x[k], y[k]), or nil
// if the backend fails.
func (r *Run) classify(x, y []float64) []int {
	scores := r.headScores(x, y)
	if scores == nil {
		return nil
	}
	return metrics.Argmax(scores, r.Model.Spec.Classes)
}

// logDensity returns the LDA head's log density log p(z) =
// logsumexp_c delta_c(z) at the embeddings (x[k], y[k]), or nil if the
// backend fails.
func (r *Run) logDensity(x, y []float64) []float64 {
	scores := r.headScores(x, y)
	if scores == nil {
		return nil
	}
	return metrics.LogDensity(scores, r.Model.Spec.Classes)
}

// headScores returns the head's scores (delta or logits) at the 2-D
// embeddings (x[k], y[k]), row-major [len(x), C], or nil if the backend
// fails.
func (r *Run) headScores(x, y []float64) []float32 {
	n, be := len(x), r.Model.Backend
	grid := make([]float32, 0, 2*n)
	for k := range x {
		grid = append(grid, float32(x[k]), float32(y[k]))
	}
	z := be.Alloc(kernels.Float32, n, 2)
	defer be.Free(z)
	be.Write(z, grid)
	scores, err := be.Read(r.Model.Head.Forward(z))
	if err != nil {
		return nil
	}
	return scores
}
