//go:build unix && !aix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockHeldWithoutProcessID refuses a folder whose lock file another
// holder keeps locked without writing its process id into it.
func TestLockHeldWithoutProcessID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, lockFile)
	if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if held, err := tryLock(f); held || err != nil {
		t.Fatalf("tryLock: held %v, %v", held, err)
	}
	_, err = openOut(dir, false)
	if err == nil || !strings.Contains(err.Error(), "is locked ("+path+") by a process that gives no id: wait for it to end, or pick another -out") {
		t.Errorf("openOut of a folder locked without an id: %v", err)
	}
}
