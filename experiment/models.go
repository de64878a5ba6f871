package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
)

// Trained models: the folder models/<name>/ of the repository holds a
// ConvNet trained natively by deeplda train, as that command wrote it
// (CheckpointFile and report.json), with ModelCommandFile, the command that
// made it. The static site carries them in site/models/<name>/, listed in
// site/models/ModelsIndex, and the page opens them by name (model=<name>).

// The files of a trained model's folder, and the index of a site's models.
const (
	ModelReportFile  = "report.json"
	ModelCommandFile = "COMMAND.txt"
	ModelsIndex      = "index.json"
)

// RecalibratedFile is the checkpoint that deeplda eval -bn-recalibrate
// writes beside its report: the model with the BatchNorm statistics
// recomputed over training batches, which give the report's test split.
const RecalibratedFile = "recalibrated.safetensors"

// BatchNormMetadata is the key of a checkpoint's metadata that says where
// its BatchNorm statistics come from when they were recomputed after
// training: "recalibrated over K batches of B training images (seed S)".
// A checkpoint without it keeps the running statistics of training.
const BatchNormMetadata = "batchnorm"

// RecalibratedState is m's state (model.Model.State) after
// EvaluateImages recomputed its BatchNorm statistics as bn says, with
// BatchNormMetadata saying so.
func RecalibratedState(m *model.Model, bn *BNReport, seed uint64) (*safetensors.File, error) {
	f, err := m.State()
	if err != nil {
		return nil, err
	}
	f.Metadata[BatchNormMetadata] = fmt.Sprintf("recalibrated over %d batches of %d training images (seed %d)", bn.Batches, bn.Batch, seed)
	return f, nil
}

// ModelInfo is what the index of trained models says of one: its name (its
// folder's), the data set, the head, the loss, the epochs trained and the
// test accuracy and ECE (10 bins) of its checkpoint as report.json gives
// them, what opening the checkpoint shows, with the command that trained
// it. A checkpoint with recalibrated BatchNorm statistics (its
// BatchNormMetadata) gives the report's test split, and the figures with
// the statistics as trained (batchnorm.running_stats) come beside them; a
// checkpoint with the trained statistics of a run that recalibrated gives
// batchnorm.running_stats.
type ModelInfo struct {
	Name         string  `json:"name"`
	Data         string  `json:"data"`
	Head         string  `json:"head"`
	Cov          string  `json:"cov,omitempty"` // LDA heads
	Loss         string  `json:"loss"`
	Lambda       float64 `json:"lambda,omitempty"` // DNLL
	Epochs       int     `json:"epochs"`
	TestAccuracy float64 `json:"test_accuracy"`
	TestECE      float64 `json:"test_ece"`
	// BatchNorm is the checkpoint's BatchNorm statistics: "recalibrated"
	// or "trained".
	BatchNorm string `json:"batchnorm"`
	// Trained is the test accuracy and ECE with the statistics as trained,
	// beside a recalibrated checkpoint's.
	Trained *ModelScores `json:"trained_batchnorm,omitempty"`
	Command string       `json:"command"`
	// CheckpointBytes is the size of the checkpoint (the page says how much
	// opening it downloads).
	CheckpointBytes int64 `json:"checkpoint_bytes"`
}

// ModelScores are a model's test accuracy and ECE (10 bins).
type ModelScores struct {
	Accuracy float64 `json:"accuracy"`
	ECE      float64 `json:"ece"`
}

// ValidModelName reports whether name can name a trained model: lower-case
// letters, digits, '.', '_' and '-', starting with a letter or digit (a
// model's name is a folder and a URL parameter's value). It is a loop
// rather than a regular expression: regexp would add its Unicode tables to
// the page's WebAssembly.
func ValidModelName(name string) bool {
	for i, c := range []byte(name) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return name != ""
}

// modelReport is the part of a training report.json that the index reads.
type modelReport struct {
	Config    ImageConfig    `json:"config"`
	Test      report.Split   `json:"test"`
	BatchNorm *BNReport      `json:"batchnorm"`
	History   []report.Epoch `json:"history"`
}

// ReadModel reads the trained model in dir (its folder's name is the
// model's): its report.json, its command and the size of its checkpoint.
func ReadModel(dir string) (ModelInfo, error) {
	info := ModelInfo{Name: filepath.Base(dir)}
	if !ValidModelName(info.Name) {
		return info, fmt.Errorf("%s: a model's folder name must be lower-case letters, digits, '.', '_' and '-'", dir)
	}
	st, err := os.Stat(filepath.Join(dir, CheckpointFile))
	if err != nil {
		return info, fmt.Errorf("%s: no %s: %w", dir, CheckpointFile, err)
	}
	info.CheckpointBytes = st.Size()
	ckpt, err := safetensors.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		return info, fmt.Errorf("%s: %w", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ModelReportFile))
	if err != nil {
		return info, fmt.Errorf("%s: %w", dir, err)
	}
	var r modelReport
	if err := json.Unmarshal(b, &r); err != nil {
		return info, fmt.Errorf("%s: %w", filepath.Join(dir, ModelReportFile), err)
	}
	c := r.Config.Resolved()
	if _, err := images.Lookup(c.Data); err != nil {
		return info, fmt.Errorf("%s: config.data: %w", filepath.Join(dir, ModelReportFile), err)
	}
	info.Data, info.Head, info.Loss, info.Lambda = c.Data, c.Head, c.Loss, c.Lambda
	if c.Head == model.HeadLDA.String() {
		info.Cov = c.Cov
	}
	info.Epochs = len(r.History)
	info.TestAccuracy, info.TestECE = float64(r.Test.Accuracy), float64(r.Test.ECE)
	info.BatchNorm = "trained"
	if _, ok := ckpt.Metadata[BatchNormMetadata]; ok {
		info.BatchNorm = "recalibrated"
	}
	if bn := r.BatchNorm; bn != nil {
		running := &ModelScores{Accuracy: float64(bn.Running.Accuracy), ECE: float64(bn.Running.ECE)}
		if info.BatchNorm == "recalibrated" {
			info.Trained = running
		} else {
			info.TestAccuracy, info.TestECE = running.Accuracy, running.ECE
		}
	}
	cmd, err := os.ReadFile(filepath.Join(dir, ModelCommandFile))
	if err != nil {
		return info, fmt.Errorf("%s: %w", dir, err)
	}
	info.Command = strings.TrimSpace(string(cmd))
	return info, nil
}

// ReadModels reads every trained model in the folders of dir, by name; a
// dir that does not exist holds none.
func ReadModels(dir string) ([]ModelInfo, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return []ModelInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	infos := []ModelInfo{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := ReadModel(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	return infos, nil
}

// CheckpointData returns the data set whose images and classes the ConvNet
// checkpoint f takes: prefer when it fits, else the first of the others
// (images.Names order) that fits; Fashion-MNIST and MNIST have the same
// images and classes, so a checkpoint cannot tell them apart.
func CheckpointData(f *safetensors.File, prefer string) (string, error) {
	spec, err := model.ConvNetSpec(f, [2]int{1, 1})
	if err != nil {
		return "", err
	}
	fits := func(name string) bool {
		s, err := images.Lookup(name)
		return err == nil && s.Shape[0] == spec.Input[0] && s.Classes == spec.Classes
	}
	if fits(prefer) {
		return prefer, nil
	}
	for _, name := range images.Names() {
		if fits(name) {
			return name, nil
		}
	}
	return "", fmt.Errorf("the checkpoint takes %d-channel images in %d classes: no data set here has those", spec.Input[0], spec.Classes)
}

// OpenedConfig returns c with the model that the ConvNet checkpoint f
// describes for the data set c.Data: its head, covariance, loss and lambda.
func OpenedConfig(c ImageConfig, f *safetensors.File) (ImageConfig, error) {
	ds, err := images.Lookup(c.Data)
	if err != nil {
		return c, err
	}
	spec, err := model.ConvNetSpec(f, [2]int{ds.Shape[1], ds.Shape[2]})
	if err != nil {
		return c, err
	}
	c.Head, c.Loss, c.Lambda = spec.Head.String(), spec.Loss.String(), spec.Lambda
	if spec.Head == model.HeadLDA {
		c.Cov = spec.Cov.String()
	}
	return c, nil
}

// Load puts the parameters and BatchNorm statistics of the checkpoint f
// into the run's model; Adam starts afresh (zero moments, step 0), also
// when f is a resume file that holds them. The run then trains on from
// those weights, or EvaluateImages evaluates them (SetEvaluation).
func (r *ImageRun) Load(f *safetensors.File) error {
	if err := r.Model.LoadState(model.StateOf(f), ""); err != nil {
		return fmt.Errorf("the checkpoint: %w", err)
	}
	return nil
}

// EvalConfig returns the evaluation of a checkpoint (EvaluateImages) that
// c makes: its data set, test images, batches and seed, with the
// checkpoint's BatchNorm statistics.
func (c ImageConfig) EvalConfig() EvalConfig {
	return EvalConfig{Data: c.Data, DataDir: c.DataDir, LimitTest: c.LimitTest, EvalBatch: c.EvalBatch, Batch: c.Batch, Seed: c.Seed}
}

// SetEvaluation makes res, EvaluateImages' evaluation of the run's model
// on its test set, the run's: the test outputs, the report's test split
// and head, and the out-of-distribution scores (what the page shows of an
// opened checkpoint).
func (r *ImageRun) SetEvaluation(res *EvalResult) {
	r.TestOut, r.Report.Test, r.Report.Head, r.Extras.OOD = res.Out, res.Report.Test, res.Report.Head, res.Extras.OOD
}
