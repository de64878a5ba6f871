package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIRunsInUse checks that a second deeplda ui on a runs folder that
// another serves says so in one line and stops.
func TestUIRunsInUse(t *testing.T) {
	site, runs := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<html><head></head></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"ui", "-site", site, "-runs", runs, "-backend", "cpu", "-addr", "127.0.0.1:0", "-no-browser"}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		io.Copy(io.Discard, pr)
		<-done
	}()
	first := make([]byte, 512)
	if n, err := pr.Read(first); err != nil || !strings.Contains(string(first[:n]), "token=") {
		t.Fatalf("the first deeplda ui printed %q, %v", first[:n], err)
	}
	code, _, stderr := runProcess(t, os.Args[0], []string{mainEnv + "=1"}, args...)
	want := fmt.Sprintf("deeplda ui: the runs folder %s is in use by process %d (%s): wait for it to end, or pick another -runs\n", runs, os.Getpid(), filepath.Join(runs, lockFile))
	if code != 1 || stderr != want {
		t.Errorf("the second deeplda ui: status %d, %q; want 1, %q", code, stderr, want)
	}
}

// TestForwardPage checks the page that the browser opens: it forwards to
// the URL with the token, which its path does not name, and only this
// user can read it.
func TestForwardPage(t *testing.T) {
	const url = "http://127.0.0.1:8123/?token=0123abcd"
	page, remove, err := forwardPage(url)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	st, serr := os.Stat(page)
	if err != nil || serr != nil || !strings.Contains(string(b), `<meta http-equiv="refresh" content="0; url=http://127.0.0.1:8123/?token=0123abcd">`) ||
		strings.Contains(page, "0123abcd") || st.Mode().Perm() != 0o600 {
		t.Errorf("%s (%v, %v): %s", page, err, st.Mode(), b)
	}
	remove()
	if _, err := os.Stat(filepath.Dir(page)); err == nil {
		t.Error("the page's folder stays")
	}
}
