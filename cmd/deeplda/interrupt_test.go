package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// TestMain runs the command itself when DEEPLDA_TEST_MAIN is 1: the tests
// of interrupts start the test binary that way, as a process of its own.
func TestMain(m *testing.M) {
	if os.Getenv("DEEPLDA_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// interruptArgs is a toy run of epochs of about a second (60,000 steps)
// whose final evaluation and figures take a while (20,000 test points).
var interruptArgs = []string{"synth", "-backend", "cpu", "-train", "60000", "-test", "20000", "-batch", "1", "-epochs", "3", "-quiet"}

// lines collects a command's output lines as they come.
type lines struct {
	mu   sync.Mutex
	got  []string
	more chan struct{} // receives after every line
}

// String returns the output so far.
func (o *lines) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.got, "\n")
}

// waitFor waits (at most a minute) for a line that contains s.
func (o *lines) waitFor(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for !strings.Contains(o.String(), s) {
		select {
		case <-o.more:
		case <-timeout:
			t.Fatalf("no %q in a minute: %s", s, o.String())
		}
	}
}

// startInterruptible starts the command with interruptArgs writing to out,
// waits until it saved its first epoch and a little more (so that an
// interrupt lands in the second epoch), and returns it with its output.
func startInterruptible(t *testing.T, out string) (*exec.Cmd, *lines) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(interruptArgs, "-out", out)...)
	cmd.Env = append(os.Environ(), "DEEPLDA_TEST_MAIN=1")
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	o := &lines{more: make(chan struct{}, 1)}
	go func() {
		for sc := bufio.NewScanner(r); sc.Scan(); {
			o.mu.Lock()
			o.got = append(o.got, sc.Text())
			o.mu.Unlock()
			select {
			case o.more <- struct{}{}:
			default:
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); w.Close() })
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(out, experiment.ResumeFile)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no epoch saved after 2 minutes: %s", o.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return cmd, o
}

// exitCode waits for cmd (at most a minute) and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute):
		t.Fatal("the command did not exit within a minute of the interrupt")
		return -1
	}
}

// TestInterruptReportsTheCheckpoint interrupts the command (SIGINT) during
// its second epoch: the report it writes must describe the checkpoint it
// saved, the last whole epoch, and -resume must go on from there.
func TestInterruptReportsTheCheckpoint(t *testing.T) {
	out := t.TempDir()
	cmd, stderr := startInterruptible(t, out)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exitCode(t, cmd)
	rep := readReport(t, out)
	history, _ := rep["history"].([]any)
	epochs := len(history)
	if rep["status"] != "stopped" || epochs < 1 || epochs > 2 {
		t.Fatalf("report: status %v, %d epochs of history; want stopped and 1 or 2", rep["status"], epochs)
	}
	stderr.waitFor(t, fmt.Sprintf("interrupted: writing the report of epoch %d, the last whole one", epochs))
	// Evaluate the checkpoint with the same data.
	c := experiment.DefaultSynth()
	c.Train, c.Test, c.Batch, c.Epochs = 60000, 20000, 1, 3
	run, err := experiment.NewSynth(cpu.New(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Model.LoadCheckpoint(filepath.Join(out, experiment.CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(); err != nil {
		t.Fatal(err)
	}
	test, _ := rep["test"].(map[string]any)
	if got, want := test["nll"], float64(run.Report.Test.NLL); got != want {
		t.Errorf("report's test NLL %v; the checkpoint's %v", got, want)
	}
	if code, _, stderr := runCmd(t, append(interruptArgs, "-out", out, "-resume")...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("resuming after epoch %d of 3", epochs)) {
		t.Errorf("-resume: exit %d: %s", code, stderr)
	}
}

// TestSecondInterruptExits: a second SIGINT, while the command writes what
// it has after the first, ends it at once (status 130), and the files of
// the last whole epoch are intact: -resume continues from them.
func TestSecondInterruptExits(t *testing.T) {
	out := t.TempDir()
	cmd, stderr := startInterruptible(t, out)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stderr.waitFor(t, "interrupted: writing the report")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 130 || !strings.Contains(stderr.String(), "interrupted again: exiting now") {
		t.Fatalf("exit %d, output %q; want 130 and the reason", code, stderr.String())
	}
	if code, _, stderr := runCmd(t, append(interruptArgs, "-out", out, "-resume")...); code != 0 || !strings.Contains(stderr, "resuming after epoch") {
		t.Errorf("-resume: exit %d: %s", code, stderr)
	}
}
