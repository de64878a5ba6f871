package experiment

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// OODConfig names the data set whose test images a model of another data
// set scores as out-of-distribution examples.
type OODConfig struct {
	Data    string `json:"ood,omitempty"`         // "" for none
	DataDir string `json:"ood_datadir,omitempty"` // "" for datasets/<Data>
}

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
	Dataset string `json:"dataset"`
	NIn     int    `json:"n_in"`
	NOut    int    `json:"n_out"`
	// Detections are the figures of each out-of-distribution score of
	// Scores that applies to the model's head, in that order, written
	// under the score's name beside the keys above (max_softmax, density,
	// ...).
	Detections []report.Keyed[metrics.Detection] `json:"-"`
	// Omitted are the scores that the head's parameters did not allow,
	// each with why ("mahalanobis: ... numerically singular").
	Omitted []string `json:"omitted,omitempty"`

	inName string
	scores []plot.Scores // per score, as in the figures
	curves []plot.Curve
}

// oodFields is OODReport without its JSON methods.
type oodFields OODReport

// MarshalJSON writes the fields and the Detections as one object.
func (r OODReport) MarshalJSON() ([]byte, error) {
	return report.MarshalBeside(oodFields(r), r.Detections)
}

// UnmarshalJSON reads the fields, and every other key as a score's
// Detection.
func (r *OODReport) UnmarshalJSON(b []byte) error {
	var f oodFields
	extra, err := report.UnmarshalBeside[metrics.Detection](b, &f)
	if err != nil {
		return err
	}
	*r = OODReport(f)
	r.Detections = extra
	return nil
}

// Detection returns the figures of the score name and whether r has them.
func (r *OODReport) Detection(name string) (metrics.Detection, bool) {
	return report.Lookup(r.Detections, name)
}

// DetectOOD scores the model's test outputs in (of the data set inName)
// against its outputs on out, evaluated here in batches of evalBatch, with
// every out-of-distribution score of Scores that applies to the model's
// head. onPhase, which may be nil, is told the evaluation's progress.
func DetectOOD(m *model.Model, in train.Outputs, inName string, out *OODSet, evalBatch int, onPhase func(Phase)) (*OODReport, error) {
	if out.Set.Len() == 0 || len(in.Scores) == 0 {
		return nil, fmt.Errorf("out-of-distribution detection needs both sets: %d %s and %d %s test images", len(in.Scores)/max(in.C, 1), inName, out.Set.Len(), out.Name)
	}
	o, err := evaluateSet(m, out.Set, evalBatch, PhaseOOD, onPhase)
	if err != nil {
		return nil, err
	}
	var lda *metrics.LDA
	if m.Spec.Head == model.HeadLDA {
		g, err := m.Gaussian()
		if err != nil {
			return nil, err
		}
		lda = &metrics.LDA{Pi: g.Pi, Mu: g.Mu, Sigma: g.Sigma}
	}
	rep := &OODReport{Dataset: out.Name, NIn: len(in.Scores) / in.C, NOut: out.Set.Len(), inName: inName}
	for _, s := range OODScores() {
		if !s.AppliesTo(m.Spec.Head) {
			continue
		}
		sIn, err := s.OOD(HeadOutputs{in, lda})
		var sOut []float64
		if err == nil {
			sOut, err = s.OOD(HeadOutputs{o, lda})
		}
		if err != nil {
			rep.Omitted = append(rep.Omitted, fmt.Sprintf("%s: %v", s.Name, err))
			continue
		}
		if err := rep.add(s.Name, sIn, sOut); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// add computes the detection figures of one score and keeps them, its
// values and its ROC curve for the figures.
func (r *OODReport) add(name string, in, out []float64) error {
	d, err := metrics.Detect(in, out)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	roc, _ := metrics.ROC(in, out)
	c := plot.Curve{Name: fmt.Sprintf("%s (AUROC %.3f)", name, d.AUROC)}
	for _, p := range roc {
		c.FPR, c.TPR = append(c.FPR, p.FPR), append(c.TPR, p.TPR)
	}
	r.Detections = append(r.Detections, report.Keyed[metrics.Detection]{Key: name, Value: d})
	r.scores = append(r.scores, plot.Scores{Name: name, In: in, Out: out})
	r.curves = append(r.curves, c)
	return nil
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
