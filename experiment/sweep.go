package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/plot"
	"github.com/deeplda/deeplda/report"
)

// SweepConfig is the paper's lambda sweep: the image experiment Base (an
// LDA head trained with DNLL) repeated for every lambda and Seeds seeds
// (Base.Seed, Base.Seed+1, ...).
type SweepConfig struct {
	Base    ImageConfig `json:"base"`
	Lambdas []float64   `json:"lambdas"`
	Seeds   int         `json:"seeds"`
}

// DefaultLambdas are the paper's sweep values, 1e-3 to 10 in steps of
// about half a decade.
func DefaultLambdas() []float64 { return []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10} }

// Validate reports the first invalid setting as a *SettingError.
func (c SweepConfig) Validate() error {
	if err := c.Base.Validate(); err != nil {
		return err
	}
	b := c.Base.Resolved()
	switch {
	case b.Head != model.HeadLDA.String():
		return settingError("head", "the lambda sweep trains the LDA head, not the %s head", b.Head)
	case b.Loss != kernels.DNLL.String():
		return settingError("loss", "the lambda sweep trains with dnll, not %s", b.Loss)
	}
	return checkSettings(&c)
}

// Runs returns the configuration of every run, lambda by lambda, seed by
// seed.
func (c SweepConfig) Runs() []ImageConfig {
	var out []ImageConfig
	for _, l := range c.Lambdas {
		for s := 0; s < c.Seeds; s++ {
			r := c.Base
			r.Lambda, r.Seed = l, c.Base.Seed+uint64(s)
			out = append(out, r)
		}
	}
	return out
}

// SweepPoint is the result of one run of a sweep.
type SweepPoint struct {
	Lambda   float64       `json:"lambda"`
	Seed     uint64        `json:"seed"`
	Accuracy report.Float  `json:"accuracy"`
	ECE      report.Float  `json:"ece"`
	NLL      report.Float  `json:"nll"`
	Sigma    *report.Float `json:"sigma,omitempty"` // spherical head
	// LogDetCov is log det Sigma of the head.
	LogDetCov *report.Float `json:"logdet_cov,omitempty"`
	// RunningAccuracy is the test accuracy with the trained BatchNorm
	// statistics when Accuracy is that of recalibrated ones.
	RunningAccuracy *report.Float `json:"running_stats_accuracy,omitempty"`
	Seconds         report.Float  `json:"seconds"`
	Status          string        `json:"status"`
}

// Stat summarises one quantity over seeds: mean, sample standard deviation
// (0 for one seed), minimum and maximum.
type Stat struct {
	Mean report.Float `json:"mean"`
	Std  report.Float `json:"std"`
	Min  report.Float `json:"min"`
	Max  report.Float `json:"max"`
}

// newStat summarises the finite values of v (NaN fields when none is).
func newStat(v []float64) Stat {
	var f []float64
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			f = append(f, x)
		}
	}
	if len(f) == 0 {
		nan := report.Float(math.NaN())
		return Stat{nan, nan, nan, nan}
	}
	var s float64
	for _, x := range f {
		s += x
	}
	mean := s / float64(len(f))
	var ss float64
	for _, x := range f {
		ss += (x - mean) * (x - mean)
	}
	std := 0.0
	if len(f) > 1 {
		std = math.Sqrt(ss / float64(len(f)-1))
	}
	return Stat{report.Float(mean), report.Float(std), report.Float(slices.Min(f)), report.Float(slices.Max(f))}
}

// SweepRow summarises the runs of one lambda.
type SweepRow struct {
	Lambda   float64 `json:"lambda"`
	Runs     int     `json:"runs"`
	Accuracy Stat    `json:"accuracy"`
	ECE      Stat    `json:"ece"`
	Sigma    *Stat   `json:"sigma,omitempty"`
}

// SweepResult is the content of sweep.json: the configuration, every run's
// result and the summary per lambda (mean and standard deviation over
// seeds).
type SweepResult struct {
	Kind    string       `json:"kind"` // "sweep"
	Config  SweepConfig  `json:"config"`
	Backend kernels.Info `json:"backend"`
	Points  []SweepPoint `json:"points"`
	Summary []SweepRow   `json:"summary"`
}

// NewSweepResult returns an empty result for c on a backend.
func NewSweepResult(c SweepConfig, info kernels.Info) *SweepResult {
	return &SweepResult{Kind: ReportSweep, Config: c, Backend: info, Points: []SweepPoint{}, Summary: []SweepRow{}}
}

// Add records a finished run (after ImageRun.Finish) and updates the
// summary.
func (s *SweepResult) Add(r *ImageRun) {
	rep := r.Report
	p := SweepPoint{
		Lambda: r.Config.Lambda, Seed: r.Config.Seed, Accuracy: rep.Test.Accuracy, ECE: rep.Test.ECE, NLL: rep.Test.NLL,
		Sigma: rep.Head.Sigma, LogDetCov: rep.Head.LogDetCov, Seconds: rep.Seconds, Status: rep.Status,
	}
	if bn := r.Extras.BatchNorm; bn != nil {
		a := bn.Running.Accuracy
		p.RunningAccuracy = &a
	}
	s.AddPoint(p)
}

// AddPoint records a result and updates the summary.
func (s *SweepResult) AddPoint(p SweepPoint) {
	s.Points = append(s.Points, p)
	s.summarize()
}

// summarize recomputes the per-lambda rows, in the order of the
// configuration's lambdas (then any other lambda, ascending).
func (s *SweepResult) summarize() {
	order := slices.Clone(s.Config.Lambdas)
	for _, p := range s.Points {
		if !slices.Contains(order, p.Lambda) {
			order = append(order, p.Lambda)
		}
	}
	s.Summary = s.Summary[:0]
	for _, l := range order {
		var acc, ece, sigma []float64
		for _, p := range s.Points {
			if p.Lambda != l {
				continue
			}
			acc, ece = append(acc, float64(p.Accuracy)), append(ece, float64(p.ECE))
			if p.Sigma != nil {
				sigma = append(sigma, float64(*p.Sigma))
			}
		}
		if len(acc) == 0 {
			continue
		}
		row := SweepRow{Lambda: l, Runs: len(acc), Accuracy: newStat(acc), ECE: newStat(ece)}
		if len(sigma) > 0 {
			st := newStat(sigma)
			row.Sigma = &st
		}
		s.Summary = append(s.Summary, row)
	}
	slices.SortStableFunc(s.Summary, func(a, b SweepRow) int {
		switch {
		case a.Lambda < b.Lambda:
			return -1
		case a.Lambda > b.Lambda:
			return 1
		}
		return 0
	})
}

// Figures returns sweep_accuracy.svg, sweep_ece.svg and (spherical head)
// sweep_sigma.svg of the sweep (see SweepFigures).
func (s *SweepResult) Figures() map[string][]byte {
	return SweepFigures(s.Summary, s.Config.Base.Data, fmt.Sprintf("mean ± 2 std over %d seeds", s.Config.Seeds))
}

// SweepFigures draws rows against lambda on a logarithmic axis:
// sweep_accuracy.svg, sweep_ece.svg and, where the rows have one,
// sweep_sigma.svg (the learned sigma of a spherical head); each the mean
// over seeds with a band and error bars of ±2 standard deviations.
// subject names what was trained (in the titles), caption goes under
// each figure.
func SweepFigures(rows []SweepRow, subject, caption string) map[string][]byte {
	figs := map[string][]byte{}
	if len(rows) == 0 {
		return figs
	}
	n := len(rows)
	x := make([]float64, n)
	for i, r := range rows {
		x[i] = r.Lambda
	}
	series := func(name string, get func(SweepRow) *Stat, scale float64) ([]plot.Series, bool) {
		y, lo, hi := make([]float64, n), make([]float64, n), make([]float64, n)
		found := false
		for i, r := range rows {
			st := get(r)
			if st == nil {
				y[i], lo[i], hi[i] = math.NaN(), math.NaN(), math.NaN()
				continue
			}
			found = true
			m, d := float64(st.Mean)*scale, float64(st.Std)*scale
			y[i], lo[i], hi[i] = m, m-2*d, m+2*d
		}
		return []plot.Series{{Name: name, X: x, Y: y, Markers: true, Band: &plot.Band{Lo: lo, Hi: hi}}}, found
	}
	if sr, ok := series("test accuracy (%)", func(r SweepRow) *Stat { return &r.Accuracy }, 100); ok {
		figs["sweep_accuracy.svg"] = plot.Lines(plot.Figure{Title: "Test accuracy against λ (" + subject + ")", XLabel: "λ", YLabel: "test accuracy (%)", LogX: true, ZeroY: true, Caption: caption}, sr, false)
	}
	if sr, ok := series("test ECE (%)", func(r SweepRow) *Stat { return &r.ECE }, 100); ok {
		figs["sweep_ece.svg"] = plot.Lines(plot.Figure{Title: "Test ECE (10 bins) against λ (" + subject + ")", XLabel: "λ", YLabel: "ECE (%)", LogX: true, ZeroY: true, Caption: caption}, sr, false)
	}
	if sr, ok := series("learned σ", func(r SweepRow) *Stat { return r.Sigma }, 1); ok {
		figs["sweep_sigma.svg"] = plot.Lines(plot.Figure{Title: "Learned σ of the spherical head against λ (" + subject + ")", XLabel: "λ", YLabel: "σ", LogX: true, Caption: caption}, sr, false)
	}
	return figs
}
