// Package report defines report.json, the record of a training run that the
// native commands write and the browser page shows, with the same keys in
// both places.
package report

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/deeplda/deeplda/internal/atomicfile"
	"github.com/deeplda/deeplda/kernels"
)

// Float is a float64 that encodes NaN and infinities as JSON null (plain
// encoding/json refuses them, and a diverged run must still be reported).
type Float float64

// MarshalJSON encodes f, or null when it is not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON decodes a number, or null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	err := json.Unmarshal(b, &v)
	*f = Float(v)
	return err
}

// Floats converts a slice.
func Floats(v []float64) []Float {
	out := make([]Float, len(v))
	for i, x := range v {
		out[i] = Float(x)
	}
	return out
}

// Matrix converts a matrix.
func Matrix(v [][]float64) [][]Float {
	out := make([][]Float, len(v))
	for i, r := range v {
		out[i] = Floats(r)
	}
	return out
}

// Bin is one equal-width confidence bin (lo, hi].
type Bin struct {
	Lo         Float `json:"lo"`
	Hi         Float `json:"hi"`
	Count      int   `json:"count"`
	Accuracy   Float `json:"accuracy"`
	Confidence Float `json:"confidence"`
}

// Split holds the evaluation of one data split.
type Split struct {
	Examples int   `json:"examples"`
	Accuracy Float `json:"accuracy"`
	ECE      Float `json:"ece"`   // 10 equal-width bins
	ECE15    Float `json:"ece15"` // 15 equal-width bins
	NLL      Float `json:"nll"`   // mean -log posterior of the label
	// AccuracyCI and ECECI are 95% percentile bootstrap intervals [low,
	// high] of Accuracy and ECE over the split's examples
	// (metrics.Bootstrap); absent in the evaluations after each epoch.
	AccuracyCI *[2]Float `json:"accuracy_ci,omitempty"`
	ECECI      *[2]Float `json:"ece_ci,omitempty"`
	// Calibration holds the split's other calibration metrics (brier,
	// ece_adaptive, ...: experiment.Scores), written under their keys
	// beside the fields' (MarshalBeside).
	Calibration []Keyed[Float] `json:"-"`
	Reliability []Bin          `json:"reliability,omitempty"`
	// ConfidenceHistogram counts examples per confidence bin (10 bins).
	ConfidenceHistogram []int `json:"confidence_histogram,omitempty"`
	MeanConfidence      Float `json:"mean_confidence"`
}

// splitFields is Split without its JSON methods.
type splitFields Split

// MarshalJSON writes the fields and the Calibration metrics as one object.
func (s Split) MarshalJSON() ([]byte, error) {
	return MarshalBeside(splitFields(s), s.Calibration)
}

// UnmarshalJSON reads the fields, and every other key as a metric of
// Calibration.
func (s *Split) UnmarshalJSON(b []byte) error {
	var f splitFields
	extra, err := UnmarshalBeside[Float](b, &f)
	if err != nil {
		return err
	}
	*s = Split(f)
	s.Calibration = extra
	return nil
}

// Metric returns the calibration metric of report.json key name (ece and
// ece15 from their fields, the others from Calibration) and whether s has
// it.
func (s Split) Metric(name string) (Float, bool) {
	switch name {
	case "ece":
		return s.ECE, true
	case "ece15":
		return s.ECE15, true
	}
	return Lookup(s.Calibration, name)
}

// SetMetric sets the calibration metric of report.json key name (see
// Metric).
func (s *Split) SetMetric(name string, v Float) {
	switch name {
	case "ece":
		s.ECE = v
	case "ece15":
		s.ECE15 = v
	default:
		for i := range s.Calibration {
			if s.Calibration[i].Key == name {
				s.Calibration[i].Value = v
				return
			}
		}
		s.Calibration = append(s.Calibration, Keyed[Float]{name, v})
	}
}

// Head is the learned head: for LDA the Gaussian model, for softmax only
// the kind.
type Head struct {
	Kind      string    `json:"kind"`
	CovKind   string    `json:"cov_kind,omitempty"`
	Pi        []Float   `json:"pi,omitempty"`
	Mu        [][]Float `json:"mu,omitempty"`
	Cov       [][]Float `json:"cov,omitempty"` // the full covariance matrix Sigma
	LogDetCov *Float    `json:"logdet_cov,omitempty"`
	Sigma     *Float    `json:"sigma,omitempty"` // spherical head: the learned standard deviation
}

// Consistency compares the learned head with the closed-form LDA maximum
// likelihood refit on the final training embeddings.
type Consistency struct {
	MeanShift Float     `json:"mean_shift"` // mean Mahalanobis distance of the class means (learned Sigma)
	KL        Float     `json:"kl"`         // mean KL(N(mu_hat_c, Sigma_hat) || N(mu_c, Sigma))
	RefitMu   [][]Float `json:"refit_mu,omitempty"`
	RefitCov  [][]Float `json:"refit_cov,omitempty"`
}

// Epoch is one row of the training history.
type Epoch struct {
	Epoch         int   `json:"epoch"`
	Loss          Float `json:"loss"`           // mean training loss over the epoch (train mode)
	TrainAccuracy Float `json:"train_accuracy"` // running accuracy over the epoch (train mode)
	TestAccuracy  Float `json:"test_accuracy"`
	TestECE       Float `json:"test_ece"`
	// TestAccuracyRecalibrated and TestECERecalibrated are the test
	// figures with BatchNorm statistics recomputed after the epoch (an
	// image run with -bn-history); the run goes on with its own.
	TestAccuracyRecalibrated *Float `json:"test_accuracy_recalibrated,omitempty"`
	TestECERecalibrated      *Float `json:"test_ece_recalibrated,omitempty"`
	LogDetCov                *Float `json:"logdet_cov,omitempty"`
	Sigma                    *Float `json:"sigma,omitempty"`
	Seconds                  Float  `json:"seconds"` // training time so far
}

// Report is the content of report.json.
type Report struct {
	Kind        string       `json:"kind"` // synth, train, ...
	Config      any          `json:"config"`
	Backend     Backend      `json:"backend"`
	Train       Split        `json:"train"`
	Test        Split        `json:"test"`
	Head        Head         `json:"head"`
	Consistency *Consistency `json:"consistency,omitempty"`
	History     []Epoch      `json:"history"`
	Seconds     Float        `json:"seconds"` // training wall time
	Status      string       `json:"status"`  // done, stopped or an error message
	// BackendMoves lists the moves of the run to another backend (the
	// page goes on on the CPU when WebGPU fails); none for most runs.
	BackendMoves []BackendMove `json:"backend_moves,omitempty"`
	// Provenance ("version", "commit", "timestamp") is set by WriteAs.
	Provenance
	// WebGPUPerStep is what a training step asked of the WebGPU device, on
	// average over the epochs after the first (experiment's stepCounts).
	WebGPUPerStep *kernels.DeviceCounters `json:"webgpu_per_step,omitempty"`
}

// Backend is the backend a run trained on and the engine that ran it.
type Backend struct {
	kernels.Info
	// Engine is where the run trained when it did not start from the
	// command line: "page" (the engine in a browser tab) or "native"
	// (deeplda ui's engine).
	Engine string `json:"engine,omitempty"`
}

// BackendMove is a move of a run to another backend in the middle of
// training: at which step (counted over the run) the first failed, after
// which step the second took over (from the last copy of the run kept on
// the host) and how many epochs of history it kept.
type BackendMove struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Error      string `json:"error"`
	LostStep   int    `json:"lost_step"`
	ResumeStep int    `json:"resume_step"`
	KeptEpochs int    `json:"kept_epochs"`
}

// WriteAs stamps r with this build and the time (Stamp), then writes v, r
// itself or a value whose JSON holds r's keys and more, as indented JSON to
// dir/report.json (atomically).
func WriteAs(dir string, r *Report, v any) error {
	r.Stamp(time.Now())
	return WriteJSON(filepath.Join(dir, "report.json"), v)
}

// WriteJSON writes v as indented JSON with a final newline to path
// (atomically, see WriteFileAtomic).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path atomically and durably
// (atomicfile.WriteFile): a failed write leaves any previous file intact.
// The file gets mode 0644 less the umask, as os.WriteFile would give it.
func WriteFileAtomic(path string, data []byte) error {
	return atomicfile.WriteFile(path, data)
}
