package report

import (
	"encoding/json"
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
