package experiment

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// ResumeFile is the name of the file, in a run's output folder, that the
// native command rewrites after every epoch and its -resume flag continues
// from.
const ResumeFile = "resume.safetensors"

// Metadata keys of the resume file besides the snapshot's.
const (
	metaKind    = "deeplda.kind"    // report.json's kind
	metaConfig  = "deeplda.config"  // report.json's config (JSON)
	metaHistory = "deeplda.history" // report.json's history (JSON)
)

// SaveEpoch writes, from one read-back of the model, its checkpoint (the
// model's State, PyTorch's names) to checkpoint and what Resume needs to
// continue the run to resume: the trainer's snapshot
// (train.Snapshot.File), the run's kind and configuration, and the history
// of its epochs. Both writes are atomic. Call it between epochs. It returns
// the snapshot it wrote.
func (r *Run) SaveEpoch(checkpoint, resume string) (*train.Snapshot, error) {
	snap, err := r.Trainer.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("reading the training state: %w", err)
	}
	if err := safetensors.WriteFile(checkpoint, model.StateOf(snap.Model)); err != nil {
		return nil, fmt.Errorf("saving the checkpoint: %w", err)
	}
	f := snap.File()
	config, err := json.Marshal(r.Report.Config)
	if err != nil {
		return nil, err
	}
	history, err := json.Marshal(r.Report.History)
	if err != nil {
		return nil, err
	}
	f.Metadata[metaKind], f.Metadata[metaConfig], f.Metadata[metaHistory] = r.Report.Kind, string(config), string(history)
	if err := safetensors.WriteFile(resume, f); err != nil {
		return nil, fmt.Errorf("saving the state to resume from: %w", err)
	}
	return snap, nil
}

// ResumedRun returns the kind (ReportSynth, ReportTrain) and the configuration
// (report.json's, as JSON) of the run whose resume file is at path: what
// resumes a run whose report.json was never written (a process killed
// mid-run).
func ResumedRun(path string) (kind string, config json.RawMessage, err error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	kind, c := f.Metadata[metaKind], f.Metadata[metaConfig]
	if kind == "" || !json.Valid([]byte(c)) {
		return "", nil, fmt.Errorf("%s names no run's kind and configuration", path)
	}
	return kind, json.RawMessage(c), nil
}

// Resume continues, in r, the run whose state SaveEpoch wrote to path: r
// must be a fresh run of the same kind and configuration, except that it
// may have more or fewer epochs (at least those already trained: with as
// many, the run is done and only finishes). Its next Epoch trains the epoch after the saved
// one, with the same weights, optimizer state, data order and generator,
// so the run ends as it would have without the interruption; the history
// of the saved epochs is kept. The file is checked as a checkpoint is:
// its spec (model.SavedSpec) and every value of its model
// (model.Model.LoadState). On error r is unchanged.
func (r *Run) Resume(path string) error {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return err
	}
	if kind := f.Metadata[metaKind]; kind != r.Report.Kind {
		return fmt.Errorf("%s is the state of a %q run, not of a %q run", path, kind, r.Report.Kind)
	}
	if err := sameConfig(f.Metadata[metaConfig], r.Report.Config); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var history []report.Epoch
	if err := json.Unmarshal([]byte(f.Metadata[metaHistory]), &history); err != nil {
		return fmt.Errorf("%s: the history of its epochs: %w", path, err)
	}
	snap, err := train.SnapshotFromFile(f)
	if err == nil {
		_, _, err = model.SavedSpec(snap.Model)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(history) != snap.Epoch {
		return fmt.Errorf("%s: %d epochs of history for %d trained", path, len(history), snap.Epoch)
	}
	if e := r.Trainer.Cfg.Epochs; e < snap.Epoch {
		return fmt.Errorf("%s: the run has trained %d epochs; resuming it with fewer (%d) is not possible", path, snap.Epoch, e)
	}
	if err := r.Trainer.Restore(snap); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.Report.History = history
	return nil
}

// notTraining are the configuration's keys that Resume lets differ: the
// number of epochs (down to the epochs already trained) and the settings that do not
// change the training (where the data lies, how the evaluation runs).
var notTraining = []string{"epochs", "datadir", "eval_batch", "bn_recalibrate"}

// sameConfig checks that saved, a configuration as JSON, is that of config
// but for notTraining. A setting that one of them lacks (one added after
// the run was saved, or a bool that is off) is taken as its zero value.
func sameConfig(saved string, config any) error {
	var was, now map[string]any
	if err := json.Unmarshal([]byte(saved), &was); err != nil {
		return fmt.Errorf("its configuration: %w", err)
	}
	b, err := json.Marshal(config)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &now); err != nil {
		return err
	}
	for _, k := range notTraining {
		delete(was, k)
		delete(now, k)
	}
	keys := slices.Sorted(maps.Keys(was))
	for k := range now {
		if _, ok := was[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !reflect.DeepEqual(was[k], now[k]) && !(isZero(was[k]) && isZero(now[k])) {
			return fmt.Errorf("the run was trained with %s %s, not %s: resume it with the same settings", k, show(was[k]), show(now[k]))
		}
	}
	return nil
}

// isZero reports whether v, a value decoded from JSON, is absent (nil) or
// a zero value: false, 0, "" or an empty list or object.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// show writes a configuration value as JSON ("none" when absent).
func show(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
