package experiment

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// writeModel writes a trained model's folder dir/name with report, the
// command cmd (none when "") and a stand-in checkpoint (no tensors) with
// the metadata meta; it returns the checkpoint's size.
func writeModel(t *testing.T, dir, name, report, cmd string, meta map[string]string) int64 {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	ckpt := safetensors.New()
	maps.Copy(ckpt.Metadata, meta)
	if err := safetensors.WriteFile(filepath.Join(d, CheckpointFile), ckpt); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(d, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{ModelReportFile: report}
	if cmd != "" {
		files[ModelCommandFile] = cmd + "\n"
	}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(d, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return st.Size()
}

func TestReadModels(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mnist-softmax", `{"config": {"data": "mnist", "head": "softmax", "cov": "spherical", "lambda": 0.01},
		"test": {"accuracy": 0.99, "ece": 0.004}, "history": [{"epoch": 1}, {"epoch": 2}]}`, "deeplda train -data mnist -head softmax", nil)
	recalibrated := `{"config": {"data": "fashion-mnist", "head": "lda", "cov": "spherical", "loss": "dnll", "lambda": 0.01},
		"test": {"accuracy": 0.95, "ece": 0.01}, "history": [{"epoch": 1}],
		"batchnorm": {"batches": 20, "running_stats": {"accuracy": 0.92, "ece": 0.03}, "recalibrated": {"accuracy": 0.95, "ece": 0.01}}}`
	size := writeModel(t, dir, "fashion-mnist-lda", recalibrated, "deeplda train -data fashion-mnist", nil)
	writeModel(t, dir, "fashion-mnist-recal", recalibrated, "deeplda train -data fashion-mnist",
		map[string]string{BatchNormMetadata: "recalibrated over 20 batches of 256 training images (seed 1)"})
	got, err := ReadModels(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Name != "fashion-mnist-lda" || got[1].Name != "fashion-mnist-recal" || got[2].Name != "mnist-softmax" {
		t.Fatalf("models %+v, want fashion-mnist-lda, fashion-mnist-recal and mnist-softmax in that order", got)
	}
	lda, recal, sm := got[0], got[1], got[2]
	// A checkpoint with the trained statistics of a run that recalibrated
	// them gives the running statistics' figures.
	if lda.Data != "fashion-mnist" || lda.Head != "lda" || lda.Cov != "spherical" || lda.Loss != "dnll" || lda.Lambda != 0.01 ||
		lda.Epochs != 1 || lda.TestAccuracy != 0.92 || lda.TestECE != 0.03 || lda.Command != "deeplda train -data fashion-mnist" ||
		lda.CheckpointBytes != size || lda.BatchNorm != "trained" || lda.Trained != nil {
		t.Errorf("lda model %+v", lda)
	}
	// A recalibrated checkpoint gives the test split's, with the trained
	// statistics' beside them.
	if recal.TestAccuracy != 0.95 || recal.TestECE != 0.01 || recal.BatchNorm != "recalibrated" ||
		recal.Trained == nil || *recal.Trained != (ModelScores{Accuracy: 0.92, ECE: 0.03}) {
		t.Errorf("recalibrated model %+v, trained %+v", recal, recal.Trained)
	}
	// The softmax head's resolved loss is ce, without lambda or
	// covariance; without a recalibration its figures are the test split's.
	if sm.Loss != "ce" || sm.Lambda != 0 || sm.Cov != "" || sm.Epochs != 2 || sm.TestAccuracy != 0.99 || sm.TestECE != 0.004 {
		t.Errorf("softmax model %+v", sm)
	}
	if got, err := ReadModels(filepath.Join(dir, "none")); err != nil || len(got) != 0 || got == nil {
		t.Errorf("a missing folder: %v, %v; want an empty list", got, err)
	}
	for _, c := range []struct{ name, report, cmd, want string }{
		{"no-command", `{"config": {"data": "mnist"}}`, "", "COMMAND.txt"},
		{"bad-data", `{"config": {"data": "svhn"}}`, "x", "config.data"},
		{"bad-json", `{"config": `, "x", "report.json"},
		{"Upper", `{"config": {"data": "mnist"}}`, "x", "folder name"},
	} {
		bad := t.TempDir()
		writeModel(t, bad, c.name, c.report, c.cmd, nil)
		if _, err := ReadModels(bad); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: error %v, want one naming the folder and %q", c.name, err, c.want)
		}
	}
}

// trainedCheckpoint trains a ConvNet with c for a step and returns its
// checkpoint and its run.
func trainedCheckpoint(t *testing.T, c ImageConfig, data ImageData) (*safetensors.File, *ImageRun) {
	t.Helper()
	r, err := NewImagesFrom(cpu.New(), c, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Driver{}).Drive(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	st, err := r.Model.TrainingState()
	if err != nil {
		t.Fatal(err)
	}
	return st, r
}

func TestOpenCheckpoint(t *testing.T) {
	c := DefaultImages()
	c.Head, c.Cov, c.Epochs, c.Batch, c.LimitTrain, c.LimitTest, c.Val, c.EvalBatch = "lda", "diag", 1, 32, 32, 40, 0, 16
	data := fakeImages(32, 40, 2)
	f, trained := trainedCheckpoint(t, c, data)

	name, err := CheckpointData(f, "mnist")
	if err != nil || name != "mnist" {
		t.Errorf("CheckpointData preferring mnist: %q, %v", name, err)
	}
	if name, err = CheckpointData(f, "cifar10"); err != nil || name != "fashion-mnist" {
		t.Errorf("CheckpointData preferring cifar10: %q, %v; want fashion-mnist (1 channel, 10 classes)", name, err)
	}

	// Opened under other settings, the run takes the checkpoint's model.
	o := DefaultImages()
	o.Head, o.Cov, o.Loss, o.Lambda, o.Epochs, o.Batch, o.LimitTrain, o.LimitTest, o.Val, o.EvalBatch = "softmax", "full", "ce", 0, 1, 32, 32, 40, 0, 16
	if o, err = OpenedConfig(o, f); err != nil {
		t.Fatal(err)
	}
	if o.Head != "lda" || o.Cov != "diag" || o.Loss != "dnll" || o.Lambda != 0.01 {
		t.Fatalf("opened config %+v, want the checkpoint's diag LDA head with DNLL 0.01", o)
	}
	r, err := NewImagesFrom(cpu.New(), o, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Load(f); err != nil {
		t.Fatal(err)
	}
	// f is a training state, with Adam's moments and step: Adam starts
	// afresh all the same.
	if trained.Model.Step() == 0 || r.Model.Step() != 0 {
		t.Errorf("Adam's step %d after loading a checkpoint of %d steps, want 0", r.Model.Step(), trained.Model.Step())
	}
	// Its own test set as the out-of-distribution one: the scores come
	// out, and each evaluation says how far it is.
	r.OOD = &OODSet{Name: "itself", Set: r.TestSet}
	calls := map[string][]int{}
	res, err := EvaluateImages(r.Model, r.TestSet, train.Dataset{}, r.OOD, r.Config.EvalConfig(), func(p Phase) {
		if p.Total != 40 {
			t.Errorf("%s: progress total %d, want 40", p.Name, p.Total)
		}
		calls[p.Name] = append(calls[p.Name], p.Done)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.SetEvaluation(res)
	for _, name := range []string{PhaseTest, PhaseOOD} {
		if got := calls[name]; !slices.Equal(got, []int{0, 16, 32, 40}) {
			t.Errorf("%s: progress %v, want 0, 16, 32, 40", name, got)
		}
	}
	if o := r.Extras.OOD; o == nil || o.Dataset != "itself" || o.NIn != 40 || o.NOut != 40 || len(o.Detections) != 6 {
		t.Errorf("ood %+v, want the LDA head's six scores of 40 and 40 images", o)
	} else {
		for _, d := range o.Detections {
			if d.Value.AUROC != 0.5 {
				t.Errorf("ood %s: AUROC %v, want 0.5 (the same images in and out)", d.Key, d.Value.AUROC)
			}
		}
	}
	// The same outputs as the trained model (which evaluated the same
	// test set after its epoch, with the same running statistics).
	want, err := train.Evaluate(trained.Model, r.TestSet, 16, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Scores {
		if math.Abs(float64(v-r.TestOut.Scores[i])) > 1e-4*(1+math.Abs(float64(v))) {
			t.Fatalf("score %d: %g, want %g", i, r.TestOut.Scores[i], v)
		}
	}
	if r.Report.Test.Examples != 40 || r.Report.Head.CovKind != "diag" {
		t.Errorf("report test %+v head %+v", r.Report.Test, r.Report.Head)
	}
	// It trains on from the checkpoint's weights.
	if err := (Driver{}).Drive(t.Context(), r); err != nil {
		t.Fatalf("training on from the checkpoint: %v", err)
	}

	// A softmax checkpoint gives the softmax head with CE.
	c.Head, c.Loss = "softmax", ""
	sm, err := NewImagesFrom(cpu.New(), c, data)
	if err != nil {
		t.Fatal(err)
	}
	smState, err := sm.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	if o2, err := OpenedConfig(o, smState); err != nil || o2.Head != "softmax" || o2.Loss != "ce" || o2.Lambda != 0 {
		t.Errorf("a softmax checkpoint opens as %+v, %v", o2, err)
	}

	// A checkpoint with a NaN is refused, naming the tensor.
	bad := safetensors.New()
	for k, v := range f.Tensors {
		bad.Tensors[k] = v
	}
	mu := bad.Tensors["head.mu"]
	vals := append([]float32(nil), mu.F32...)
	vals[0] = float32(math.NaN())
	bad.Set("head.mu", safetensors.NewF32(vals, mu.Shape...))
	r2, err := NewImagesFrom(cpu.New(), o, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Load(bad); err == nil || !strings.Contains(err.Error(), "head.mu") {
		t.Errorf("a NaN in head.mu: %v", err)
	}
}

// TestOpenedCheckpointChecked opens, as the page does, checkpoints whose
// saved spec is out of range or whose values no trained model holds: the
// page's configuration of the model (CheckpointData, OpenedConfig) and its
// loading of the weights (ImageRun.Load) refuse each with one line naming
// the field or the tensor and the reason (a spec's loss of 7 made
// OpenedConfig panic, and a lambda of -5 reached the page's form).
func TestOpenedCheckpointChecked(t *testing.T) {
	c := DefaultImages()
	c.Batch, c.LimitTrain, c.LimitTest, c.Val, c.EvalBatch = 8, 8, 8, 0, 8
	r, err := NewImagesFrom(cpu.New(), c, fakeImages(8, 8, 1))
	if err != nil {
		t.Fatal(err)
	}
	good, err := r.Model.State()
	if err != nil {
		t.Fatal(err)
	}
	clone := func() *safetensors.File {
		f := safetensors.New()
		maps.Copy(f.Tensors, good.Tensors)
		maps.Copy(f.Metadata, good.Metadata)
		return f
	}
	for _, tc := range []struct {
		change func(*model.Spec)
		want   string
	}{
		{func(s *model.Spec) { s.Loss = 7 }, "spec: loss is 7, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{func(s *model.Spec) { s.Loss = -1 }, "spec: loss is -1, want 0 (nll), 1 (ce) or 2 (dnll)"},
		{func(s *model.Spec) { s.Lambda = -5 }, "spec: lambda must be a finite number >= 0, got -5"},
	} {
		s := r.Model.Spec
		tc.change(&s)
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		f := clone()
		f.Metadata[model.SpecKey] = string(raw)
		if _, err := CheckpointData(f, c.Data); err == nil || err.Error() != tc.want {
			t.Errorf("CheckpointData, spec %s: error %v, want %q", raw, err, tc.want)
		}
		if o, err := OpenedConfig(c, f); err == nil || err.Error() != tc.want {
			t.Errorf("OpenedConfig, spec %s: %+v, error %v; want %q", raw, o, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		i    int
		v    float32
		want string
	}{
		{"enc.bn1.running_var", 3, -1, `the checkpoint: tensor "enc.bn1.running_var" holds -1 at index 3: a variance must be > 0`},
		{"enc.proj.weight", 0, 3e38, `the checkpoint: tensor "enc.proj.weight" holds 3e+38 at index 0: a weight must be within ±1e+06`},
	} {
		f := clone()
		vals := slices.Clone(f.Tensors[tc.name].F32)
		vals[tc.i] = tc.v
		f.Set(tc.name, safetensors.NewF32(vals, f.Tensors[tc.name].Shape...))
		if _, err := OpenedConfig(c, f); err != nil {
			t.Errorf("%s: OpenedConfig: %v", tc.name, err)
		}
		if err := r.Load(f); err == nil || err.Error() != tc.want {
			t.Errorf("%s[%d] = %v: error %v, want %q", tc.name, tc.i, tc.v, err, tc.want)
		}
	}
}

func TestValidModelName(t *testing.T) {
	for name, want := range map[string]bool{
		"fashion-mnist-lda": true,
		"m":                 true,
		"9.a_b-c":           true,
		"":                  false,
		"-lead":             false,
		".hidden":           false,
		"Upper":             false,
		"a/b":               false,
		"a b":               false,
		"é":                 false,
	} {
		if got := ValidModelName(name); got != want {
			t.Errorf("ValidModelName(%q) = %v, want %v", name, got, want)
		}
	}
}
