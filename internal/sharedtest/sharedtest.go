// Package sharedtest locates the shared reference files (../shared/golden
// and ../shared/datasets beside the repository) for tests.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of ../shared/<sub> relative to the repository root
// (the directory holding go.mod), or of $DEEPLDA_SHARED/<sub> when that
// variable is set (bench/gpu.sh carries the reference files to a machine
// where they do not lie beside the repository). When it is missing the
// test fails if the CI environment variable is set, and is skipped loudly
// otherwise.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	if root := os.Getenv("DEEPLDA_SHARED"); root != "" {
		p := filepath.Join(root, sub)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("DEEPLDA_SHARED: %v", err)
		}
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", sub)
			if _, err := os.Stat(p); err == nil {
				return p
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("shared/%s not found beside the repository: CI must provide it", sub)
	}
	t.Skipf("SKIPPED: shared/%s not found beside the repository; these reference checks did not run", sub)
	return ""
}
