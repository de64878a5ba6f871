package page

import (
	"fmt"
	"math"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/wasm/config"
)

// detailFigures are the figures of the shown run, in page order, with the
// captions under them.
var detailFigures = []Slot{
	{"embedding.svg", "Test embeddings, the head's 90% ellipses, class means and decision regions, shaded by the head's log density (the term DNLL penalises) when that is on."},
	{"consistency.svg", "The learned Gaussians against the closed-form LDA fit on the same training embeddings."},
	{"curves.svg", "Mean training loss per epoch."},
	{"accuracy.svg", "Accuracy per epoch and the test ECE (10 bins)."},
	{"logdet.svg", "log det Σ per epoch: under NLL it falls without bound."},
	{"reliability.svg", "Reliability diagram on the test set (10 bins)."},
	{"confidence.svg", "Confidence histogram on the test set."},
}

// imageFigures are the figures of an image run, in page order.
var imageFigures = []Slot{
	{"embedding.svg", "Test embeddings on their first two principal components, with the LDA head's projected means and 90% ellipses."},
	{"reliability.svg", "Reliability diagram on the test set, 10 bins (BatchNorm statistics recomputed where the run recomputed them, as the table below says; else the trained ones)."},
	{"confidence.svg", "Confidence histogram on the test set."},
	{"reliability_temperature.svg", "Reliability on the test set after temperature scaling (fitted on held-out training images)."},
	{LossStepsFigure, "Training loss per step, drawn as the run trains: each point is the mean loss of the steps since the one before."},
	{"curves.svg", "Mean training loss per epoch."},
	{"accuracy.svg", "Accuracy per epoch and the test ECE (10 bins); the per-epoch rows use the running BatchNorm statistics."},
	{"logdet.svg", "log det Σ per epoch."},
	{"ood_scores.svg", "Out-of-distribution scores (those of report.json's ood: the model's head's of every score the summary lists) on the test images and on the other data set's."},
	{"ood_roc.svg", "How well each score tells the test images from the other data set's: ROC curves and their areas (AUROC)."},
}

// HeadLabel names a head kind in the page's text ("LDA head").
func HeadLabel(h string) string {
	if h == model.HeadLDA.String() {
		return "LDA head"
	}
	return h + " head"
}

// Slot is a figure's place on the page: its card name and caption.
type Slot struct{ Name, Caption string }

// Layout returns the figures a session shows, in page order: the overview
// (runs side by side, or the sweep) and the shown run's figures.
func Layout(s *Session) (overview, detail []Slot) {
	multi := len(s.Runs) > 1
	switch {
	case multi && s.Folders:
		overview = []Slot{
			{experiment.CompareECEFigure, "Test ECE (10 bins) per epoch of every run."},
			{experiment.CompareAccuracyFigure, "Test accuracy per epoch of every run."},
			{experiment.CompareReliabilityFile, "Reliability diagrams of every run on the test set, side by side."},
		}
	case multi && s.Settings.Demo == config.Sweep:
		overview = []Slot{
			{"sweep_accuracy.svg", "Test accuracy of every finished run against λ."},
			{"sweep_ece.svg", "Test ECE (10 bins) of every finished run against λ."},
			{"sweep_sigma.svg", "The learned σ of the spherical head against λ."},
		}
	case multi && s.Settings.Demo == config.Images:
		overview = []Slot{
			{experiment.CompareECEFigure, "Test ECE (10 bins) per epoch of both heads (running BatchNorm statistics)."},
			{experiment.CompareAccuracyFigure, "Test accuracy per epoch of both heads."},
			{experiment.CompareReliabilityFile, "Reliability diagrams of both heads on the test set, side by side."},
		}
	case multi:
		for i, jr := range s.Runs {
			overview = append(overview, Slot{fmt.Sprintf("run%d-embedding.svg", i+1), jr.Label + ": test embeddings and the head's Gaussians. " + lookAt(s, i)})
		}
		overview = append(overview,
			Slot{"compare-logdet.svg", "log det Σ of every run: look for the line that keeps falling, the covariance that shrinks without bound, and for the one that levels off."},
			Slot{"compare-accuracy.svg", "Test accuracy of every run: look at where the lines end, how well each loss classifies."})
	}
	figs := detailFigures
	if s.Settings.Demo == config.Images {
		figs = imageFigures
	}
	for _, f := range figs {
		if multi && !s.Folders && (s.Settings.Demo == config.Deep || s.Settings.Demo == config.Classical) && f.Name == "embedding.svg" {
			continue // already side by side above
		}
		if multi {
			// Several runs: say whose figure this is.
			f.Caption = s.Runs[s.Shown()].Label + ": " + f.Caption
		}
		detail = append(detail, f)
	}
	return overview, detail
}

// FiguresTitle is the heading over the shown run's figures in a session
// of several runs: whose figures they are, and how to show another's; ""
// for one run.
func FiguresTitle(s *Session) string {
	if len(s.Runs) < 2 {
		return ""
	}
	return "Figures of " + s.Runs[s.Shown()].Label + " (a run's name in the table above shows its own)"
}

// lookAt says where to look in the side-by-side embedding of run i of a
// toy demo ("" for a loss it does not know).
func lookAt(s *Session, i int) string {
	if i >= len(s.Jobs) {
		return ""
	}
	loss := s.Jobs[i].Synth.Loss
	if s.Settings.Demo == config.Classical {
		switch loss {
		case "nll":
			return "Look at the coloured (learned) and grey (closed-form) ellipses: NLL recovers the closed-form fit."
		case "ce":
			return "Look at the coloured (learned) and grey (closed-form) ellipses: CE moves the means away from the clouds."
		}
		return ""
	}
	switch loss {
	case "nll":
		return "Look at the ellipses' size: NLL can shrink them without bound."
	case "ce":
		return "Look at the ellipses against the points: CE leaves the Gaussians free to drift off the clouds."
	case "dnll":
		return "Look at the ellipses against the points: DNLL keeps the Gaussians on the clouds, as NLL does; the log det Σ figure shows where the two part."
	}
	return ""
}

// OODComparison is the table of how well each head's scores of
// experiment.Scores tell the test images from the other data set's (AUROC,
// a column per head), when both runs scored it: nil otherwise.
func OODComparison(s *Session) *Table {
	t := &Table{Header: []string{"Score (AUROC)"}, ID: TableCompareOOD, File: "ood-comparison.csv"}
	row := map[string]int{}
	for i, jr := range s.Runs {
		if jr.Rep == nil || jr.Rep.OOD == nil {
			return nil
		}
		t.Header = append(t.Header, HeadLabel(s.Jobs[i].Image.Head))
		for _, sc := range experiment.OODScores() {
			d, ok := jr.Rep.OOD.Detection(sc.Name)
			if !ok {
				continue
			}
			k, seen := row[sc.Name]
			if !seen {
				k, row[sc.Name] = len(t.Rows), len(t.Rows)
				t.Rows = append(t.Rows, []string{sc.Label})
			}
			for len(t.Rows[k]) < i+1 {
				t.Rows[k] = append(t.Rows[k], "–")
			}
			t.Rows[k] = append(t.Rows[k], fmt.Sprintf("%.2f%%", 100*d.AUROC))
		}
	}
	for k := range t.Rows {
		for len(t.Rows[k]) < len(t.Header) {
			t.Rows[k] = append(t.Rows[k], "–")
		}
	}
	o := s.Runs[0].Rep.OOD
	t.Caption = fmt.Sprintf("Out-of-distribution detection against %s (AUROC, %d test images against %d)", o.Dataset, o.NIn, o.NOut)
	return t
}

// SummaryCells formats a run's report for the summary table. An opened
// model's training time is the one its report recorded (a hosted model's
// report.json), a dash when there is none.
func SummaryCells(jr *Run) []string {
	dash := "–"
	if jr.Rep == nil {
		return []string{jr.Status, dash, dash, dash, dash, dash, dash, dash, dash}
	}
	r := &jr.Rep.Report
	pct := func(f report.Float, ok bool) string {
		if !ok || math.IsNaN(float64(f)) {
			return dash
		}
		return fmt.Sprintf("%.2f%%", 100*float64(f))
	}
	num := func(f *report.Float) string {
		if f == nil || math.IsNaN(float64(*f)) {
			return dash
		}
		return fmt.Sprintf("%.3g", float64(*f))
	}
	hasTrain, hasTest := r.Train.Examples > 0, r.Test.Examples > 0
	logdet := r.Head.LogDetCov
	if n := len(r.History); n > 0 && r.History[n-1].LogDetCov != nil {
		logdet = r.History[n-1].LogDetCov
	}
	var shift, kl *report.Float
	if c := r.Consistency; c != nil {
		shift, kl = &c.MeanShift, &c.KL
	}
	trained := TrainTime(float64(r.Seconds))
	if jr.Opened && r.Seconds == 0 {
		// A model opened from a checkpoint whose training time nothing
		// recorded (a dropped file): it did not train in this session.
		trained = dash
	}
	return []string{jr.Status, pct(r.Train.Accuracy, hasTrain), pct(r.Test.Accuracy, hasTest), pct(r.Test.ECE, hasTest),
		num(logdet), num(r.Head.Sigma), num(shift), num(kl), trained}
}

// Slug turns a run's label into a file-name prefix ("DNLL, λ = 0.01" gives
// "dnll-lambda-0.01").
func Slug(label string) string {
	label = strings.ReplaceAll(strings.ToLower(label), "λ", "lambda")
	var b strings.Builder
	dash := false
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// TrainTime writes a training time in seconds, with hundredths under ten
// seconds (a short toy run takes a few of them).
func TrainTime(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// SummaryHeader is the header of the summary's table of runs.
var SummaryHeader = []string{"Run", "Status", "Train acc.", "Test acc.", "Test ECE (10 bins)", "log det Σ", "σ", "Mean shift", "KL", "Train time"}

// Table is a table of text: its header, its rows, a caption ("" for
// none), its id on the page (TableSummary...) and the name of its CSV
// file.
type Table struct {
	Header   []string
	Rows     [][]string
	Caption  string
	ID, File string
}

// Extras returns the test evaluations of a run's report (#extras):
// accuracy, the calibration metrics of experiment.Scores and NLL of its
// test split, or for an image run that recomputed its BatchNorm
// statistics of both evaluations, and after temperature scaling; nil
// before the test set was evaluated.
func Extras(full *Report) *Table {
	rep, x := &full.Report, full.ImageExtras
	if rep.Test.Examples == 0 {
		return nil
	}
	calibration := experiment.CalibrationScores()
	t := &Table{Header: []string{"Test evaluation", "Accuracy"}, ID: TableExtras, File: "test-evaluation.csv"}
	for _, sc := range calibration {
		t.Header = append(t.Header, sc.Label)
	}
	t.Header = append(t.Header, "NLL")
	row := func(name string, split report.Split) {
		r := []string{name, fmt.Sprintf("%.2f%%", 100*float64(split.Accuracy))}
		for _, sc := range calibration {
			cell := "–" // a report written before the metric
			if m, ok := split.Metric(sc.Name); ok {
				cell = sc.Format(float64(m))
			}
			r = append(r, cell)
		}
		t.Rows = append(t.Rows, append(r, fmt.Sprintf("%.4f", float64(split.NLL))))
	}
	if bn := x.BatchNorm; bn != nil {
		row(fmt.Sprintf("BatchNorm: recalibrated (%d batches of %d)", bn.Batches, bn.Batch), bn.Recalibrated)
		row("BatchNorm: running statistics (as trained)", bn.Running)
	} else {
		row("Test set", rep.Test)
	}
	if ts := x.Temperature; ts != nil {
		row(fmt.Sprintf("Temperature scaled (T = %.3g, fitted on %d held-out images)", ts.T, ts.ValExamples), ts.TestAfter)
	}
	return t
}

// OOD is the table of how well each out-of-distribution score of a run's
// report tells its test images from the other data set's (#ood), nil when
// it scored none.
func OOD(full *Report) *Table {
	o := full.OOD
	if o == nil {
		return nil
	}
	t := &Table{Header: []string{"Score", "AUROC", "AUPR", "FPR at 95% TPR"}, ID: TableOOD, File: "ood.csv",
		Caption: fmt.Sprintf("Out-of-distribution detection against %s (%d test images against %d)", o.Dataset, o.NIn, o.NOut)}
	for _, sc := range experiment.OODScores() {
		if d, ok := o.Detection(sc.Name); ok {
			t.Rows = append(t.Rows, []string{sc.Label, fmt.Sprintf("%.2f%%", 100*d.AUROC), fmt.Sprintf("%.2f%%", 100*d.AUPR), fmt.Sprintf("%.2f%%", 100*d.FPRAt95TPR)})
		}
	}
	return t
}

// Gap says the gap between the heads of an images comparison, or of an
// LDA run and a softmax run shown side by side (#compare-gap), once both
// have finished (or both were opened); "" before that, and for any other
// session.
func Gap(s *Session) string {
	if s.Settings.Demo != config.Images || len(s.Runs) != 2 {
		return ""
	}
	heads := map[string]int{}
	for i, jr := range s.Runs {
		if jr.Status != "done" && !jr.Opened || jr.Rep == nil {
			return ""
		}
		heads[s.Jobs[i].Image.Head] = i
	}
	l, okL := heads[experiment.CompareHeads[0]]
	m, okM := heads[experiment.CompareHeads[1]]
	if !okL || !okM {
		return ""
	}
	c := experiment.NewComparison(*s.Jobs[l].Image, *s.Jobs[m].Image, &s.Runs[l].Rep.Report, &s.Runs[m].Rep.Report)
	return fmt.Sprintf("Gap (LDA − softmax) on the test set: accuracy %+.2f points, ECE (10 bins) %+.2f points (%s: %.2f%%, ECE %.2f%%; %s: %.2f%%, ECE %.2f%%).",
		100*float64(c.Gap.Accuracy), 100*float64(c.Gap.ECE),
		c.LDA.Label(), 100*float64(c.LDA.Test.Accuracy), 100*float64(c.LDA.Test.ECE),
		c.Softmax.Label(), 100*float64(c.Softmax.Test.Accuracy), 100*float64(c.Softmax.Test.ECE))
}
