//go:build unix

package report

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileAtomicMode checks that written files get 0644 less the
// umask, as checkpoints and os.WriteFile do, not os.CreateTemp's 0600.
func TestWriteFileAtomicMode(t *testing.T) {
	for _, umask := range []int{0o022, 0o077, 0o002} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		path := filepath.Join(dir, "figure.svg")
		err := WriteFileAtomic(path, []byte("<svg/>"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), os.FileMode(0o644&^umask); got != want {
			t.Errorf("umask %03o: mode %v, want %v", umask, got, want)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("umask %03o: %d files in the folder, want only figure.svg", umask, len(entries))
		}
	}
}
