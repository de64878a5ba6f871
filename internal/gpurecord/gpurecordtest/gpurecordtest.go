// Package gpurecordtest helps the tests of the GPU scripts read what
// their runs wrote.
package gpurecordtest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/gpurecord"
)

// LogFailures logs the output of c's failed tests from their events in
// the files (go test -json, as the scripts write them).
func LogFailures(t testing.TB, c gpurecord.Conformance, files ...string) {
	t.Helper()
	failed := map[string]bool{}
	for _, f := range c.Failures {
		failed[f] = true
	}
	for _, name := range files {
		b, _ := os.ReadFile(name)
		for _, line := range strings.Split(string(b), "\n") {
			var e struct{ Action, Test, Output string }
			if json.Unmarshal([]byte(line), &e) == nil && e.Action == "output" && failed[e.Test] {
				t.Log(e.Test, strings.TrimSpace(e.Output))
			}
		}
	}
}
