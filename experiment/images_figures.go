package experiment

import (
	"fmt"

	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
)

// Figures returns the figures of Run.Figures (the test embeddings projected
// on their first two principal components for d > 2, with the LDA head's
// means and 90% ellipses projected too, curves, accuracy and ECE per epoch,
// reliability and confidence histogram), plus, with temperature scaling,
// reliability_temperature.svg (the test reliability of the scaled logits),
// and with an out-of-distribution set ood_scores.svg and ood_roc.svg.
func (r *ImageRun) Figures() map[string][]byte {
	figs := r.Run.Figures()
	if r.Model.Spec.Dim > 2 && len(r.TestOut.Z) > 0 {
		if svg := projectedEmbedding(r.Run, ClassNames(r.Config.Data)); svg != nil {
			figs["embedding.svg"] = svg
		}
	}
	if t := r.Extras.Temperature; t != nil {
		bins := plotBins(t.TestAfter.Reliability)
		figs["reliability_temperature.svg"] = plot.Reliability(plot.Figure{
			Title: fmt.Sprintf("Reliability (test) after temperature scaling, T = %.3g", t.T),
		}, bins, float64(t.TestAfter.ECE))
	}
	r.Extras.OOD.addFigures(figs)
	return figs
}

func plotBins(rel []report.Bin) []plot.Bin {
	bins := make([]plot.Bin, len(rel))
	for i, b := range rel {
		bins[i] = plot.Bin{Lo: float64(b.Lo), Hi: float64(b.Hi), Accuracy: float64(b.Accuracy), Confidence: float64(b.Confidence), Count: b.Count}
	}
	return bins
}

// projectedEmbedding draws the test embeddings on their first two
// principal components with, for an LDA head, the class means and the 90%
// ellipses of the projected Gaussians N(P mu_c, P Sigma P^T). It returns
// nil when the PCA fails.
func projectedEmbedding(r *Run, names []string) []byte {
	out, y := r.TestOut, r.TestSet.Y
	d := out.D
	pca, err := metrics.PCA(metrics.Float64s(out.Z), len(y), d, 2)
	if err != nil {
		return nil
	}
	proj := pca.Project(metrics.Float64s(out.Z))
	pts := plot.Points{X: make([]float64, len(y)), Y: make([]float64, len(y)), Class: make([]int, len(y))}
	for i := range y {
		pts.X[i], pts.Y[i], pts.Class[i] = proj[2*i], proj[2*i+1], int(y[i])
	}
	fig := plot.Figure{
		Title:  fmt.Sprintf("Test embeddings (%s, %s head), PCA of d = %d", r.Model.Spec.Loss, r.Model.Spec.Head, d),
		XLabel: fmt.Sprintf("PC 1 (%.0f%% of the variance)", 100*pca.VarianceRatio[0]),
		YLabel: fmt.Sprintf("PC 2 (%.0f%%)", 100*pca.VarianceRatio[1]),
	}
	var ellipses []plot.Ellipse
	var means []plot.Mean
	if h := r.Report.Head; h.Mu != nil && len(h.Cov) == d {
		// Projected covariance P Sigma P^T, with P the two components.
		var s [2][2]float64
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				for i := 0; i < d; i++ {
					for j := 0; j < d; j++ {
						s[a][b] += pca.Components[a][i] * float64(h.Cov[i][j]) * pca.Components[b][j]
					}
				}
			}
		}
		sigma := []float64{s[0][0], s[0][1], s[1][0], s[1][1]}
		for c, mu := range h.Mu {
			m := make([]float64, d)
			for j := range m {
				m[j] = float64(mu[j])
			}
			p := pca.Project(m)
			if e, err := metrics.Ellipse(p[:2], sigma, 0.9, 96); err == nil {
				ellipses = append(ellipses, plot.Ellipse{Class: c, Points: e})
			}
			means = append(means, plot.Mean{Class: c, X: p[0], Y: p[1]})
		}
	}
	return plot.Embedding(fig, pts, nil, ellipses, means, names)
}
