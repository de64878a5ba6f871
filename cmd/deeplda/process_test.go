package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mainEnv, set to 1 in a subprocess's environment, makes the test binary
// run the command itself: for what only another process can see (the
// WebGPU libraries' writes to standard error, exit codes, signals, locks).
const mainEnv = "DEEPLDA_TEST_MAIN"

// lockEnv, set to a folder in a subprocess's environment, makes the test
// binary contend for that output folder's lock (lockContender).
const lockEnv = "DEEPLDA_TEST_LOCK"

// TestMain runs the command instead of the tests when mainEnv is set, and
// a contender for a lock when lockEnv is.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
	}
	if dir := os.Getenv(lockEnv); dir != "" {
		lockContender(dir)
	}
	os.Exit(m.Run())
}

// lockContender prints "ready", waits for a line on standard input, tries
// to take dir's lock (openOut), prints "won" or "lost: " and the error,
// holds what it took until standard input ends, and exits.
func lockContender(dir string) {
	fmt.Println("ready")
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	o, err := openOut(dir, false)
	if err != nil {
		fmt.Println("lost:", err)
		os.Exit(0)
	}
	fmt.Println("won")
	io.Copy(io.Discard, in)
	o.release()
	os.Exit(0)
}

// runProcess runs exe (the test binary as deeplda, or a built deeplda)
// with args, in the environment without XDG_RUNTIME_DIR plus env, and
// returns its exit status and output.
func runProcess(t *testing.T, exe string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// errorLine matches a line that looks like an error.
var errorLine = regexp.MustCompile(`(?im)^.*\berror\b.*$`)

// TestNoErrorLines checks that a normal run, which probes WebGPU with
// -backend auto, prints no line that looks like an error, even without
// XDG_RUNTIME_DIR (the Wayland client library complains about it while
// the Vulkan and OpenGL loaders look for displays); and that a failure
// still says so.
func TestNoErrorLines(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{mainEnv + "=1"}
	for _, args := range [][]string{
		{"bench", "-model", "matmul", "-size", "8", "-steps", "1"},
		{"synth", "-epochs", "1", "-train", "200", "-test", "50", "-quiet", "-out", t.TempDir()},
	} {
		code, _, stderr := runProcess(t, exe, env, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if l := errorLine.FindString(stderr); l != "" {
			t.Errorf("%v: a normal run printed %q; stderr:\n%s", args, l, stderr)
		}
	}
	code, _, stderr := runProcess(t, exe, env, "eval", "-checkpoint", filepath.Join(t.TempDir(), "missing.safetensors"), "-backend", "cpu")
	if code != 1 || !strings.Contains(stderr, "missing.safetensors") {
		t.Errorf("a failing run: exit %d, stderr %q", code, stderr)
	}
}

// TestCgoFreeBuild builds the command with CGO_ENABLED=0 and checks that
// it runs on the CPU backend and says that it has no WebGPU.
func TestCgoFreeBuild(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go command to build with: %v", err)
		}
		t.Skipf("SKIPPED: no go command to build with: %v", err)
	}
	exe := filepath.Join(t.TempDir(), "deeplda")
	build := exec.Command(gobin, "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	code, _, stderr := runProcess(t, exe, nil, "bench", "-backend", "webgpu", "-model", "matmul", "-size", "8", "-steps", "1")
	if code != 1 || !strings.Contains(stderr, "built without cgo") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("-backend webgpu: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runProcess(t, exe, nil, "bench", "-backend", "auto", "-model", "matmul", "-size", "8", "-steps", "1")
	if code != 0 || !strings.Contains(stdout, `"name":"cpu"`) || !strings.Contains(stderr, "has no WebGPU (built without cgo)") {
		t.Errorf("-backend auto: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
