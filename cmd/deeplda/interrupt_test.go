package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// interruptArgs is a toy run of long epochs (60,000 steps of one point)
// whose final evaluation and figures take a while (20,000 test points),
// and of so many epochs (interruptEpochs) that it cannot end before the
// tests' signals reach it however slowly they run. The tests resume it
// with -epochs one past the epoch it stopped at.
var interruptArgs = []string{"synth", "-backend", "cpu", "-train", "60000", "-test", "20000", "-batch", "1", "-epochs", fmt.Sprint(interruptEpochs), "-quiet"}

// interruptEpochs is the epochs of interruptArgs.
const interruptEpochs = 100

// resumeArgs are the arguments that resume interruptArgs's run in out,
// stopped after epoch, for one more epoch.
func resumeArgs(out string, epoch int) []string {
	return append(interruptArgs, "-epochs", fmt.Sprint(epoch+1), "-out", out, "-resume")
}

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

// last returns the last line so far.
func (o *lines) last() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.got) == 0 {
		return ""
	}
	return o.got[len(o.got)-1]
}

// startInterruptible starts the command with interruptArgs writing to out,
// waits until it saved its first epoch and a little more (so that an
// interrupt lands in the second epoch), and returns it with its output.
func startInterruptible(t *testing.T, out string) (*exec.Cmd, *lines) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(interruptArgs, "-out", out)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
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
	rep, epochs := checkStopped(t, cmd, stderr, out, "SIGINT", 130)
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
	if code, _, stderr := runCmd(t, resumeArgs(out, epochs)...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("resuming after epoch %d of %d", epochs, epochs+1)) {
		t.Errorf("-resume: exit %d: %s", code, stderr)
	}
}

// checkStopped waits for the command that the signal called name stopped,
// and checks its exit status, its last line, that its report is that of
// the last whole epoch (which it returns with the number of that epoch)
// and that it released the folder's lock.
func checkStopped(t *testing.T, cmd *exec.Cmd, o *lines, out, name string, status int) (map[string]any, int) {
	t.Helper()
	code := exitCode(t, cmd)
	rep := readReport(t, out)
	history, _ := rep["history"].([]any)
	epochs := len(history)
	if rep["status"] != "stopped" || epochs < 1 || epochs >= interruptEpochs {
		t.Fatalf("report: status %v, %d epochs of history; want stopped and 1 to %d", rep["status"], epochs, interruptEpochs-1)
	}
	report := filepath.Join(out, "report.json")
	want := fmt.Sprintf("deeplda synth: stopped at epoch 1 of %d by %s: %s holds epoch 1; -resume continues after it", interruptEpochs, name, report)
	if epochs > 1 {
		want = fmt.Sprintf("deeplda synth: stopped at epoch %d of %d by %s: %s holds epochs 1-%d; -resume continues after epoch %d",
			epochs, interruptEpochs, name, report, epochs, epochs)
	}
	o.waitFor(t, want)
	if last := o.last(); last != want || code != status {
		t.Errorf("exit %d, last line %q; want %d and %q", code, last, status, want)
	}
	if _, err := os.Stat(filepath.Join(out, lockFile)); err == nil {
		t.Error("the lock file stays after the command stopped")
	}
	return rep, epochs
}

// TestSignalsStopLikeInterrupt: SIGTERM (what timeout, systemd and docker
// stop send) and SIGHUP stop the command as Ctrl-C does, with the status
// that a shell gives a command the signal killed.
func TestSignalsStopLikeInterrupt(t *testing.T) {
	for _, tc := range []struct {
		sig    syscall.Signal
		name   string
		status int
	}{{syscall.SIGTERM, "SIGTERM", 143}, {syscall.SIGHUP, "SIGHUP", 129}} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			cmd, o := startInterruptible(t, out)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			checkStopped(t, cmd, o, out, tc.name, tc.status)
		})
	}
}

// TestStoppedBeforeAnEpoch: a command stopped by a signal before its
// first epoch finished says so, with the signal's status; other work
// stopped by one says only that it stopped.
func TestStoppedBeforeAnEpoch(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stopSignal(syscall.SIGTERM))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"synth", "-backend", "cpu", "-epochs", "2", "-train", "100", "-test", "50", "-quiet", "-out", out}, &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	want := fmt.Sprintf("deeplda synth: stopped at epoch 0 of 2 by SIGTERM: %s reports the untrained model; no epoch finished, so there is nothing to resume", filepath.Join(out, "report.json"))
	if code != 143 || lines[len(lines)-1] != want {
		t.Errorf("exit %d, stderr %q; want 143 and the last line %q", code, stderr.String(), want)
	}
	stderr.Reset()
	code = run(ctx, []string{"bench", "-backend", "cpu", "-model", "matmul", "-size", "8", "-steps", "1"}, &stdout, &stderr)
	if want := "deeplda bench: stopped by SIGTERM\n"; code != 143 || stderr.String() != want {
		t.Errorf("bench: exit %d, stderr %q; want 143 and %q", code, stderr.String(), want)
	}
}

// TestIgnoredHangupStaysIgnored: a command started with SIGHUP ignored
// (under nohup) goes on after a hangup.
func TestIgnoredHangupStaysIgnored(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, os.Args[0])
	cmd.Args = append(cmd.Args, append(interruptArgs, "-out", out)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var said bytes.Buffer
	cmd.Stdout, cmd.Stderr = &said, &said
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, filepath.Join(out, lockFile), &said)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("a hangup ended the command started under nohup: %v: %s", err, said.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 143 {
		t.Errorf("exit %d after SIGTERM; want 143: %s", code, said.String())
	}
}

// TestSecondInterruptExits: a second signal (SIGTERM after SIGINT here),
// while the command writes what it has after the first, ends it at once
// with the second signal's status, and the files of the last whole epoch
// are intact: -resume continues from them.
func TestSecondInterruptExits(t *testing.T) {
	out := t.TempDir()
	cmd, stderr := startInterruptible(t, out)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stderr.waitFor(t, "interrupted: writing the report")
	var epoch int
	_, said, _ := strings.Cut(stderr.String(), "interrupted: writing the report of epoch ")
	if _, err := fmt.Sscan(said, &epoch); err != nil {
		t.Fatalf("no epoch in the interrupt's line: %v: %s", err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd); code != 143 || !strings.Contains(stderr.String(), "deeplda: interrupted again (SIGTERM): exiting now (the files written so far are intact)") {
		t.Fatalf("exit %d, output %q; want 143 and the reason", code, stderr.String())
	}
	if code, _, stderr := runCmd(t, resumeArgs(out, epoch)...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("resuming after epoch %d", epoch)) {
		t.Errorf("-resume: exit %d: %s", code, stderr)
	}
}
