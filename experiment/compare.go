package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// CompareHeads are the heads a comparison trains, in order: their names
// are the keys of compare.json and the native command's subfolders.
var CompareHeads = []string{model.HeadLDA.String(), model.HeadSoftmax.String()}

// The files a comparison writes beside its heads' folders.
const (
	CompareFile            = "compare.json"
	CompareECEFigure       = "compare_ece.svg"
	CompareAccuracyFigure  = "compare_accuracy.svg"
	CompareReliabilityFile = "compare_reliability.svg"
)

// CompareConfig returns the configuration of head's run in a comparison
// made from c: the LDA head with c's covariance, loss (DNLL unless c names
// another) and lambda, or the softmax head with CE; the data, seed and
// every other setting are c's, so both heads train on the same images in
// the same order.
func CompareConfig(c ImageConfig, head string) ImageConfig {
	c.Head = head
	if head == model.HeadSoftmax.String() {
		c.Loss = kernels.CE.String()
	} else if c.Loss == "" {
		c.Loss = kernels.DNLL.String()
	}
	return c.Resolved()
}

// CompareHead is one head's part of compare.json.
type CompareHead struct {
	Head    string         `json:"head"`
	Loss    string         `json:"loss"`
	Lambda  float64        `json:"lambda"`
	Status  string         `json:"status"`
	History []report.Epoch `json:"history"`
	Test    CompareTest    `json:"test"`
}

// CompareTest is a head's final test evaluation in compare.json.
type CompareTest struct {
	Accuracy    report.Float `json:"accuracy"`
	ECE         report.Float `json:"ece"`
	NLL         report.Float `json:"nll"`
	Reliability []report.Bin `json:"reliability"`
}

// CompareGap is the LDA head's number minus the softmax head's.
type CompareGap struct {
	Accuracy report.Float `json:"accuracy"`
	ECE      report.Float `json:"ece"`
}

// Comparison is compare.json: both heads' histories and final test
// numbers, and the gap between them.
type Comparison struct {
	LDA     CompareHead `json:"lda"`
	Softmax CompareHead `json:"softmax"`
	Gap     CompareGap  `json:"gap"`
}

// NewComparison gathers the comparison of the LDA head's run
// (configuration lda, report rl) and the softmax head's (softmax, rs); a
// nil report (a run not started yet) gives an empty part, "waiting".
func NewComparison(lda, softmax ImageConfig, rl, rs *report.Report) *Comparison {
	c := &Comparison{LDA: compareHead(lda, rl), Softmax: compareHead(softmax, rs)}
	c.Gap = CompareGap{Accuracy: c.LDA.Test.Accuracy - c.Softmax.Test.Accuracy, ECE: c.LDA.Test.ECE - c.Softmax.Test.ECE}
	return c
}

// compareHead returns the part of compare.json of one run.
func compareHead(c ImageConfig, r *report.Report) CompareHead {
	h := CompareHead{Head: c.Head, Loss: c.Loss, Lambda: c.Lambda, Status: "waiting"}
	if r == nil {
		return h
	}
	h.Status, h.History = r.Status, r.History
	h.Test = CompareTest{Accuracy: r.Test.Accuracy, ECE: r.Test.ECE, NLL: r.Test.NLL, Reliability: r.Test.Reliability}
	return h
}

// Label names the head and its loss: "LDA head, DNLL (λ = 0.01)" or
// "softmax head, CE".
func (h CompareHead) Label() string {
	head := h.Head
	if head == model.HeadLDA.String() {
		head = "LDA"
	}
	l := head + " head, " + strings.ToUpper(h.Loss)
	if h.Loss == kernels.DNLL.String() {
		l += fmt.Sprintf(" (λ = %g)", h.Lambda)
	}
	return l
}

// heads returns both parts, LDA first.
func (c *Comparison) heads() []CompareHead { return []CompareHead{c.LDA, c.Softmax} }

// Figures returns the comparison's figures by file name (see
// CurveFigures), one line per head.
func (c *Comparison) Figures() map[string][]byte {
	var runs []Curves
	for _, h := range c.heads() {
		runs = append(runs, Curves{Label: h.Label(), History: h.History, Reliability: h.Test.Reliability, ECE: h.Test.ECE})
	}
	return CurveFigures(runs)
}

// Curves are what the figures that lay runs side by side draw of one run:
// its history and its final test reliability with its ECE (none before
// the final evaluation).
type Curves struct {
	Label       string
	History     []report.Epoch
	Reliability []report.Bin
	ECE         report.Float
	// Dashed draws the run's lines dashed.
	Dashed bool
}

// RunColor returns the colour ("#rrggbb") of run i of runs laid side by
// side, the i-th of CurveFigures' and HistoryFigures' runs: its lines and
// legend swatches there, and its row's marker in the page's tables of
// runs. The figures are drawn on white and the marker is outlined, so the
// colour reads in light and dark mode alike.
func RunColor(i int) string { return plot.Color(i) }

// CurveFigures returns the figures that lay runs side by side, by file
// name: the test ECE and the test accuracy per epoch (in percent, one line
// per run, run i in RunColor(i)) and, once a run has a final evaluation,
// the reliability diagrams in a row.
func CurveFigures(runs []Curves) map[string][]byte {
	var ece, acc []plot.Series
	for i, r := range runs {
		e := plot.Series{Name: r.Label, Markers: true, Dashed: r.Dashed, Color: RunColor(i)}
		a := e
		for _, ep := range r.History {
			x := float64(ep.Epoch)
			e.X, e.Y = append(e.X, x), append(e.Y, 100*float64(ep.TestECE))
			a.X, a.Y = append(a.X, x), append(a.Y, 100*float64(ep.TestAccuracy))
		}
		ece, acc = append(ece, e), append(acc, a)
	}
	figs := map[string][]byte{
		CompareECEFigure:      plot.Lines(plot.Figure{Title: "Test ECE per epoch", XLabel: "epoch", YLabel: "test ECE (%, 10 bins)", IntegerX: true, ZeroY: true}, ece, false),
		CompareAccuracyFigure: plot.Lines(plot.Figure{Title: "Test accuracy per epoch", XLabel: "epoch", YLabel: "test accuracy (%)", IntegerX: true, ZeroY: true}, acc, false),
	}
	var draw []func(plot.Figure) []byte
	for _, r := range runs {
		if len(r.Reliability) == 0 {
			continue
		}
		draw = append(draw, func(f plot.Figure) []byte {
			f.Title = "Reliability (test)\n" + r.Label
			return plot.Reliability(f, plotBins(r.Reliability), float64(r.ECE))
		})
	}
	if len(draw) > 0 {
		figs[CompareReliabilityFile] = plot.Row(plot.Figure{Width: 480 * len(draw)}, draw...)
	}
	return figs
}

// Summary returns the final numbers in one line: each head's test
// accuracy and ECE, and the gap (in percent).
func (c *Comparison) Summary() string {
	return fmt.Sprintf("%s: test accuracy %.2f%%, ECE %.2f%%; %s: test accuracy %.2f%%, ECE %.2f%%; gap (LDA - softmax): accuracy %+.2f points, ECE %+.2f points",
		c.LDA.Label(), 100*c.LDA.Test.Accuracy, 100*c.LDA.Test.ECE, c.Softmax.Label(), 100*c.Softmax.Test.Accuracy, 100*c.Softmax.Test.ECE,
		100*c.Gap.Accuracy, 100*c.Gap.ECE)
}

// Write writes compare.json and the comparison's figures to dir.
func (c *Comparison) Write(dir string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", CompareFile, err)
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, CompareFile), append(b, '\n')); err != nil {
		return err
	}
	for name, svg := range c.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(dir, name), svg); err != nil {
			return err
		}
	}
	return nil
}

// NewCompare prepares the runs of a comparison made from c on data, one
// per head of CompareHeads (see CompareConfig), on be.
func NewCompare(be kernels.Backend, c ImageConfig, data ImageData) ([]*ImageRun, error) {
	runs := make([]*ImageRun, len(CompareHeads))
	for i, head := range CompareHeads {
		r, err := NewImagesFrom(be, CompareConfig(c, head), data)
		if err != nil {
			return nil, fmt.Errorf("%s head: %w", head, err)
		}
		runs[i] = r
	}
	return runs, nil
}

// DriveCompare trains the runs of NewCompare one after the other, each
// by drive (a Driver's Drive, with the command's progress and resume)
// into its head's folder under dir, which it creates; then writes
// compare.json and the comparison's figures to dir ("" writes nothing)
// and returns the comparison. A head whose loss diverges does not stop
// the other; cancellation or another error does, and the comparison of
// what was trained is written and returned with it.
func DriveCompare(ctx context.Context, runs []*ImageRun, dir string, drive func(ctx context.Context, r *ImageRun, dir string) error) (*Comparison, error) {
	reports := make([]*report.Report, len(runs))
	var errs []error
	for i, r := range runs {
		sub := ""
		if dir != "" {
			sub = filepath.Join(dir, CompareHeads[i])
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return nil, err
			}
		}
		err := drive(ctx, r, sub)
		reports[i] = r.Report
		if err != nil {
			errs = append(errs, fmt.Errorf("%s head: %w", CompareHeads[i], err))
			if !errors.As(err, new(*train.DivergedError)) {
				break
			}
		}
	}
	c := NewComparison(runs[0].Config, runs[1].Config, reports[0], reports[1])
	if dir != "" {
		if err := c.Write(dir); err != nil {
			return c, errors.Join(append(errs, err)...)
		}
	}
	return c, errors.Join(errs...)
}
