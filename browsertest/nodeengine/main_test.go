package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRun trains a short toy session of a page's query as the page's
// engine: the report.json of its run has the query's settings and says it
// ran in the page's engine on the CPU.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(t.TempDir(), "demo=deep&backend=cpu&epochs=2&train=200&test=100", &out); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Config  map[string]any `json:"config"`
		Backend struct {
			Name   string `json:"name"`
			Engine string `json:"engine"`
		} `json:"backend"`
		History []struct {
			Epoch int `json:"epoch"`
		} `json:"history"`
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("not a report.json: %v\n%.300s", err, out.String())
	}
	if rep.Backend.Name != "cpu" || rep.Backend.Engine != "page" || rep.Config["epochs"] != 2.0 || rep.Config["train"] != 200.0 || len(rep.History) != 2 {
		t.Errorf("report: %.600s", out.String())
	}
}

// TestRunFails: a query the page refuses, and a session that ends without
// a report, are errors.
func TestRunFails(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"demo=deep&epochs=-3", "epochs"},
		{"demo=images&data=fashion-mnist&backend=cpu", "the session ended with "},
	} {
		var out strings.Builder
		if err := run(t.TempDir(), tc.query, &out); err == nil || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%s: error %v, output %q; want an error with %q", tc.query, err, out.String(), tc.want)
		}
	}
}
