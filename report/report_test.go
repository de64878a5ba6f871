package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteAsStamps checks that report.json records the version, the
// commit (when the build has one) and the time it was written, beside the
// keys of the value written.
func TestWriteAsStamps(t *testing.T) {
	dir := t.TempDir()
	r := &Report{Kind: "synth", Status: "done"}
	before := time.Now().UTC().Truncate(time.Second)
	extra := struct {
		*Report
		Extra int `json:"extra"`
	}{r, 7}
	if err := WriteAs(dir, r, extra); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["version"] != ThisBuild().Version || got["version"] == "" {
		t.Errorf("version %v, want %q", got["version"], ThisBuild().Version)
	}
	if c := ThisBuild().Commit; c != "" && got["commit"] == nil {
		t.Errorf("commit missing, the build has %s", c)
	}
	ts, err := time.Parse(time.RFC3339, got["timestamp"].(string))
	if err != nil || ts.Before(before) || ts.After(time.Now()) {
		t.Errorf("timestamp %v (%v), want the time of writing", got["timestamp"], err)
	}
	if got["kind"] != "synth" || got["extra"] != 7.0 {
		t.Errorf("report.json lost keys: %s", b)
	}
}

// TestSplitCalibration checks that a split's calibration metrics are keys
// of the split beside its fields, in order, that they read back (ece and
// ece15 from their fields, null as NaN), and that a metric under a field's
// key or an unknown key that is not a number is refused.
func TestSplitCalibration(t *testing.T) {
	var s Split
	s.SetMetric("ece", 0.1)
	s.SetMetric("mce", 0.5)
	s.SetMetric("brier", Float(math.NaN()))
	s.SetMetric("mce", 0.25)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"examples":0,"accuracy":0,"ece":0.1,"ece15":0,"nll":0,"mean_confidence":0,"mce":0.25,"brier":null}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Split
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Metric("mce"); !ok || v != 0.25 {
		t.Errorf("mce %v %v, want 0.25", v, ok)
	}
	if v, ok := back.Metric("brier"); !ok || !math.IsNaN(float64(v)) {
		t.Errorf("brier %v %v, want NaN", v, ok)
	}
	if v, ok := back.Metric("ece"); !ok || v != 0.1 || len(back.Calibration) != 2 || back.Calibration[0].Key != "mce" {
		t.Errorf("ece %v %v, calibration %v; want 0.1 and mce then brier beside it", v, ok, back.Calibration)
	}
	if _, ok := back.Metric("ece_adaptive"); ok {
		t.Error("a metric the split lacks was found")
	}
	if _, err := json.Marshal(Split{Calibration: []Keyed[Float]{{"nll", 1}}}); err == nil {
		t.Error("a metric under the key nll was written")
	}
	if err := json.Unmarshal([]byte(`{"accuracy":1,"brier":[1]}`), &back); err == nil {
		t.Error("a list read as a metric")
	}
}
