//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputModes checks that every file a run writes (report.json, the
// figures, the checkpoints) gets mode 0644 less the umask, as files
// written with os.WriteFile do, rather than os.CreateTemp's 0600.
func TestOutputModes(t *testing.T) {
	const umask = 0o022
	old := syscall.Umask(umask)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "synth", "-backend", "cpu", "-epochs", "1", "-train", "200", "-test", "50", "-quiet", "-out", out)
	syscall.Umask(old)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 8 {
		t.Fatalf("only %d files written", len(entries))
	}
	for _, e := range entries {
		st, err := os.Stat(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o644 {
			t.Errorf("%s: mode %v, want -rw-r--r--", e.Name(), got)
		}
	}
}
