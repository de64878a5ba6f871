package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteFolder runs "build.sh site DIR" with folders it must refuse and
// folders it must accept. A fake go comes first in the script's PATH: a
// folder it accepts stops the script at its first command after the check
// (compiling the WebAssembly), before it removes anything, so that the test
// deletes nothing even when the check is broken.
func TestSiteFolder(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("SKIPPED: no bash to run build.sh")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\necho fake go >&2\nexit 97\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mkdir := func(name string, files ...string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	full, file, link := mkdir("full", "notes.txt"), filepath.Join(mkdir("files", "a"), "a"), filepath.Join(tmp, "link")
	if err := os.Symlink(filepath.Join(root, "site"), link); err != nil {
		t.Fatal(err)
	}
	run := func(dir string) (string, int) {
		cmd := exec.Command("bash", "build.sh", "site", dir)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s: %v", dir, err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	const repo = "it is this repository or a folder holding it"
	for _, tc := range []struct{ dir, why string }{
		{".", repo},
		{"..", repo},
		{"/", repo},
		{"site", "it is in the source tree (site)"},
		{"./wasm/", "it is in the source tree (wasm)"},
		{"shaders/new", "it is in the source tree (shaders)"},
		{"data/images/../../site", "it is in the source tree (site)"},
		{"README.md", "it is in the source tree (README.md)"},
		{".git", "it is in the source tree (.git)"},
		{link, "it is in the source tree (site)"},
		{file, "it is not a folder"},
		{full, "it is not empty and not a site built here (no .deeplda-site in it): remove it or choose another folder"},
	} {
		out, code := run(tc.dir)
		want := "build.sh: refusing to build the site into " + tc.dir + ": " + tc.why + "\n"
		if code != 1 || out != want {
			t.Errorf("%s: status %d, output %q\nwant status 1, output %q", tc.dir, code, out, want)
		}
	}
	for _, dir := range []string{
		filepath.Join(tmp, "new", "site"),
		mkdir("empty"),
		mkdir("built", ".deeplda-site", "index.html"),
		filepath.Join("out", filepath.Base(tmp)), // in the repository, not tracked
	} {
		if out, code := run(dir); code != 97 || !strings.HasSuffix(out, "fake go\n") {
			t.Errorf("%s: status %d, output %q; want it accepted (status 97 from the fake go)", dir, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(full, "notes.txt")); err != nil {
		t.Errorf("the refused folder changed: %v", err)
	}
}
