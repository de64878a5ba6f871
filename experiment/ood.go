package experiment

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/train"
)

// The names of the out-of-distribution scores in report.json.
const (
	ScoreMaxSoftmax = "max_softmax" // the largest posterior probability
	ScoreDensity    = "density"     // the LDA head's log p(z) = logsumexp_c delta_c(z)
)

// OODConfig names the data set whose test images a model of another data
// set scores as out-of-distribution examples.
type OODConfig struct {
	Data    string `json:"ood,omitempty"`         // "" for none
	DataDir string `json:"ood_datadir,omitempty"` // "" for datasets/<Data>
}

// Bind returns the variables of the out-of-distribution settings in c.
func (c *OODConfig) Bind() Values { return Values{"ood": &c.Data, "ood-datadir": &c.DataDir} }

// Check reports, as a *SettingError, an out-of-distribution data set that a
// model of the data set in cannot score: an unknown one, in itself, or one
// of another image shape (MNIST and Fashion-MNIST, both 28x28 grey, pair
// up, as do CIFAR-10 and CIFAR-100). An empty c.Data is fine.
func (c OODConfig) Check(in string) error {
	if c.Data == "" {
		return nil
	}
	out, err := images.Lookup(c.Data)
	if err != nil {
		return settingError("ood", "ood must be %s, got %q", orList(images.Names()), c.Data)
	}
	if c.Data == in {
		return settingError("ood", "ood must be another data set than the model's own, %s", in)
	}
	spec, err := images.Lookup(in)
	if err == nil && out.Shape != spec.Shape {
		return settingError("ood", "ood %s has %dx%dx%d images and a model of %s takes %dx%dx%d: only data sets of one image shape pair up (mnist and fashion-mnist, cifar10 and cifar100)",
			c.Data, out.Shape[0], out.Shape[1], out.Shape[2], in, spec.Shape[0], spec.Shape[1], spec.Shape[2])
	}
	return nil
}

// OODPartner returns the first of candidates that a model of the data set
// in can score as out-of-distribution (see OODConfig.Check), or "".
func OODPartner(in string, candidates []string) string {
	for _, c := range candidates {
		if (OODConfig{Data: c}).Check(in) == nil {
			return c
		}
	}
	return ""
}

// OODSet is the test set of an out-of-distribution data set, ready for a
// model of another data set.
type OODSet struct {
	Name string
	Set  train.Dataset
}

// NewOODSet returns the first limit images (0: all) of test, the test split
// of the data set name, for a model of the data set in: normalised with
// in's constants (the model's own inputs' normalisation). It returns
// OODConfig.Check's errors.
func NewOODSet(name string, test *images.Set, in string, limit int) (*OODSet, error) {
	if err := (OODConfig{Data: name}).Check(in); err != nil {
		return nil, err
	}
	spec, _ := images.Lookup(in)
	s := *test
	s.Mean, s.Std = spec.Mean, spec.Std
	return &OODSet{Name: name, Set: s.Dataset(limit)}, nil
}

// LoadOOD reads the test split of c.Data from c.DataDir (datasets/<Data>
// when empty; with fetch, downloading missing files first) for a model of
// the data set in, as NewOODSet gives it. It returns nil for an empty
// c.Data.
func LoadOOD(ctx context.Context, c OODConfig, in string, limit int, fetch bool) (*OODSet, error) {
	if c.Data == "" {
		return nil, nil
	}
	if err := c.Check(in); err != nil {
		return nil, err
	}
	if c.DataDir == "" {
		c.DataDir = filepath.Join("datasets", c.Data)
	}
	data, err := loadImages(ctx, ImageConfig{Data: c.Data, DataDir: c.DataDir}, fetch, "ood", "ood-datadir")
	if err != nil {
		return nil, fmt.Errorf("-ood %s: %w", c.Data, err)
	}
	return NewOODSet(c.Data, data.Test, in, limit)
}

// OODReport is the "ood" part of report.json: how well the model's scores
// tell its test images (in-distribution, the positives) from those of
// another data set.
type OODReport struct {
	Dataset    string             `json:"dataset"`
	NIn        int                `json:"n_in"`
	NOut       int                `json:"n_out"`
	MaxSoftmax metrics.Detection  `json:"max_softmax"`
	Density    *metrics.Detection `json:"density,omitempty"` // LDA heads only

	inName string
	scores []plot.Scores // per score, as in the figures
	curves []plot.Curve
}

// DetectOOD scores the model's test outputs in (of the data set inName)
// against its outputs on out, evaluated here in batches of evalBatch: the
// maximum softmax probability, and for an LDA head the log density.
// onPhase, which may be nil, is told the evaluation's progress.
func DetectOOD(m *model.Model, in train.Outputs, inName string, out *OODSet, evalBatch int, onPhase func(Phase)) (*OODReport, error) {
	if out.Set.Len() == 0 || len(in.Scores) == 0 {
		return nil, fmt.Errorf("out-of-distribution detection needs both sets: %d %s and %d %s test images", len(in.Scores)/max(in.C, 1), inName, out.Set.Len(), out.Name)
	}
	o, err := evaluateSet(m, out.Set, evalBatch, PhaseOOD, onPhase)
	if err != nil {
		return nil, err
	}
	rep := &OODReport{Dataset: out.Name, NIn: len(in.Scores) / in.C, NOut: out.Set.Len(), inName: inName}
	maxSoftmax := func(scores []float32) []float64 {
		conf, _ := metrics.Confidences(metrics.Softmax(scores, in.C), in.C)
		return conf
	}
	if rep.MaxSoftmax, err = rep.add(ScoreMaxSoftmax, maxSoftmax(in.Scores), maxSoftmax(o.Scores)); err != nil {
		return nil, err
	}
	if m.Spec.Head == model.HeadLDA {
		d, err := rep.add(ScoreDensity, metrics.LogDensity(in.Scores, in.C), metrics.LogDensity(o.Scores, in.C))
		if err != nil {
			return nil, err
		}
		rep.Density = &d
	}
	return rep, nil
}

// add computes the detection figures of one score and keeps its values and
// ROC curve for the figures.
func (r *OODReport) add(name string, in, out []float64) (metrics.Detection, error) {
	d, err := metrics.Detect(in, out)
	if err != nil {
		return d, fmt.Errorf("%s: %w", name, err)
	}
	roc, _ := metrics.ROC(in, out)
	c := plot.Curve{Name: fmt.Sprintf("%s (AUROC %.3f)", name, d.AUROC)}
	for _, p := range roc {
		c.FPR, c.TPR = append(c.FPR, p.FPR), append(c.TPR, p.TPR)
	}
	r.scores = append(r.scores, plot.Scores{Name: name, In: in, Out: out})
	r.curves = append(r.curves, c)
	return d, nil
}

// addFigures adds ood_scores.svg (the scores' histograms, in and out) and
// ood_roc.svg (their ROC curves) to figs; nothing when r is nil.
func (r *OODReport) addFigures(figs map[string][]byte) {
	if r == nil {
		return
	}
	title := fmt.Sprintf("%s (in, %d) against %s (out, %d)", r.inName, r.NIn, r.Dataset, r.NOut)
	figs["ood_scores.svg"] = plot.ScoreHistograms(plot.Figure{Title: "Out-of-distribution scores: " + title}, r.scores, r.inName+" (in)", r.Dataset+" (out)")
	figs["ood_roc.svg"] = plot.ROC(plot.Figure{Title: "ROC: " + title}, r.curves)
}
