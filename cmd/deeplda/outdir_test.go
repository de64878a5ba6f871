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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
)

// startMain starts the command with args in a subprocess (this test binary
// running main); its stdout and stderr go to out.
func startMain(t *testing.T, out *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// runMain runs the command with args in a subprocess and returns its exit
// status and its output (stdout and stderr).
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := startMain(t, &out, args...)
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// waitFor waits until path exists, for at most a minute.
func waitFor(t *testing.T, path string, out *bytes.Buffer) {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("no %s after a minute; the command said: %s", path, out)
}

// TestOutputFolderLock starts a long training run in a subprocess: a
// second run into its folder is refused while it runs. After a kill -9 (in
// the middle of a save, or not) its lock and temporary files stay; the
// next command in the folder takes the stale lock over and removes the
// temporaries, and a fresh run refuses to overwrite the run that -resume
// continues, which -resume then continues.
func TestOutputFolderLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	common := []string{"synth", "-backend", "cpu", "-test", "100", "-quiet", "-out", dir}
	long := append(common, "-epochs", "100000", "-train", "20000")
	var out bytes.Buffer
	first := startMain(t, &out, long...)
	defer first.Process.Kill()
	waitFor(t, filepath.Join(dir, experiment.ResumeFile), &out)
	lock, err := os.ReadFile(filepath.Join(dir, lockFile))
	pid := strconv.Itoa(first.Process.Pid)
	if err != nil || strings.TrimSpace(string(lock)) != pid {
		t.Fatalf("lock file %q (%v), want the running process's id %s", lock, err, pid)
	}
	for _, args := range [][]string{common, append(common, "-resume")} {
		code, said := runMain(t, args...)
		if code != 1 || !strings.Contains(said, "is in use by process "+pid) {
			t.Errorf("%v while another run writes there: exit %d, %q", args, code, said)
		}
	}

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Until Wait reaps it, the killed process is a zombie, which holds no
	// lock either.
	defer first.Wait()
	for start := time.Now(); running(first.Process.Pid); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the killed process still runs after 10 s")
		}
	}
	leftovers, kept := plantLeftovers(t, dir)
	code, said := runMain(t, common...)
	if code != 2 || !strings.Contains(said, "holds a run that -resume continues") || !strings.Contains(said, "add -resume") {
		t.Errorf("a fresh run into the killed run's folder: exit %d, %q", code, said)
	}
	checkLeftovers(t, dir, leftovers, append(kept, experiment.ResumeFile, "checkpoint.safetensors"))
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err == nil {
		t.Error("the lock file stays after the command ended")
	}

	// -resume continues the killed run (interrupted at once here).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	run(ctx, append(long, "-resume"), &stdout, &stderr)
	if !strings.Contains(stderr.String(), "resuming after epoch") {
		t.Errorf("-resume after the kill: %s", stderr.String())
	}
}

// tempName returns the name of the temporary file that write, an atomic
// writer, makes for a file called name: a folder in the file's place makes
// the rename fail, and the error names the temporary file.
func tempName(t *testing.T, name string, write func(path string) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(path, "full"), 0o755); err != nil {
		t.Fatal(err)
	}
	var le *os.LinkError
	if err := write(path); !errors.As(err, &le) {
		t.Fatalf("writing over a folder: %v; want the rename's error", err)
	}
	return filepath.Base(le.Old)
}

// plantLeftovers writes into dir the temporary files that the atomic
// writes of report.json, a figure and the checkpoints leave when a kill
// interrupts them, named as they name them, and files of the user's whose
// names look alike. It returns the names of both.
func plantLeftovers(t *testing.T, dir string) (leftovers, kept []string) {
	t.Helper()
	leftovers = []string{
		tempName(t, "report.json", func(path string) error { return report.WriteFileAtomic(path, []byte("{}")) }),
		tempName(t, "curves.svg", func(path string) error { return report.WriteFileAtomic(path, []byte("<svg/>")) }),
		tempName(t, experiment.ResumeFile, func(path string) error { return safetensors.WriteFile(path, safetensors.New()) }),
	}
	kept = []string{".settings.json.1", "data.svg.tmp5", "notes.txt", "checkpoint.safetensors.tmp123456", ".report.json.987654"}
	for _, name := range append(leftovers, kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return leftovers, kept
}

// checkLeftovers checks that the leftovers are gone from dir and the kept
// files are all there.
func checkLeftovers(t *testing.T, dir string, leftovers, kept []string) {
	t.Helper()
	for _, name := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("the leftover %s is still there", name)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestOutdirRemovesOnlyItsLeftovers: taking an existing output folder
// removes the temporary files of the command's own atomic writes, and
// none of the folder's other files.
func TestOutdirRemovesOnlyItsLeftovers(t *testing.T) {
	dir := t.TempDir()
	leftovers, kept := plantLeftovers(t, dir)
	o, err := openOut(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	o.release()
	checkLeftovers(t, dir, leftovers, kept)
	if err := prepareOut(dir); err != nil { // a sweep's run folder
		t.Fatal(err)
	}
	checkLeftovers(t, dir, nil, kept)
}

// TestLockTakeoverRace lets contenders, each a process of its own, take
// over the stale lock of a killed process at the same moment, round after
// round: exactly one of them must hold the folder, and the others say
// that it is in use by the winner.
func TestLockTakeoverRace(t *testing.T) {
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	const rounds, contenders = 50, 4
	for round := range rounds {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, lockFile), fmt.Appendf(nil, "%d\n", dead.Process.Pid), 0o644); err != nil {
			t.Fatal(err)
		}
		type contender struct {
			cmd *exec.Cmd
			in  io.WriteCloser
			out *bufio.Scanner
		}
		cs := make([]contender, contenders)
		for i := range cs {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), lockEnv+"="+dir)
			cmd.Stderr = os.Stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			cs[i] = contender{cmd, in, bufio.NewScanner(out)}
			if !cs[i].out.Scan() || cs[i].out.Text() != "ready" {
				t.Fatalf("contender %d: %q, want ready", i, cs[i].out.Text())
			}
		}
		for _, c := range cs {
			io.WriteString(c.in, "go\n")
		}
		var winners []int
		var said []string
		for _, c := range cs {
			c.out.Scan()
			if c.out.Text() == "won" {
				winners = append(winners, c.cmd.Process.Pid)
			} else {
				said = append(said, c.out.Text())
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d of %d contenders took the stale lock; the others said %q", round, len(winners), contenders, said)
		}
		for _, s := range said {
			if want := fmt.Sprintf("is in use by process %d", winners[0]); !strings.Contains(s, want) {
				t.Errorf("round %d: a loser said %q, want %q", round, s, want)
			}
		}
		for _, c := range cs {
			c.in.Close()
			if err := c.cmd.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, lockFile)); err == nil {
			t.Fatalf("round %d: the lock stays after the winner released it", round)
		}
	}
}

// TestLockWithoutProcessID: a lock file that no process holds, even one
// without a process id, is taken over, and gone when the command ends.
func TestLockWithoutProcessID(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, lockFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, said := runMain(t, "synth", "-backend", "cpu", "-epochs", "1", "-train", "100", "-test", "50", "-quiet", "-out", dir)
	if code != 0 {
		t.Errorf("exit %d, %q", code, said)
	}
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err == nil {
		t.Error("the lock file stays after the command ended")
	}
}

// TestNoEmptyOutputFolder: a command that fails after making its output
// folder (a usage error found once the data is loaded) leaves no folder
// behind.
func TestNoEmptyOutputFolder(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "new")
	dir := filepath.Join(parent, "out")
	code, said := runMain(t, "synth", "-backend", "cpu", "-epochs", "1", "-train", "100", "-test", "50", "-quiet", "-resume", "-out", dir)
	if code != 2 || !strings.Contains(said, "nothing to resume") {
		t.Errorf("-resume into a new folder: exit %d, %q", code, said)
	}
	if _, err := os.Stat(parent); err == nil {
		t.Errorf("%s is left behind", parent)
	}
	data := fmnistDir(t)
	code, said = runMain(t, "train", "-backend", "cpu", "-datadir", data, "-val", "60000", "-quiet", "-out", dir)
	if code != 2 || !strings.Contains(said, "leaves no training image") {
		t.Errorf("-val 60000: exit %d, %q", code, said)
	}
	if _, err := os.Stat(parent); err == nil {
		t.Errorf("%s is left behind after a usage error found with the data loaded", parent)
	}
}

// TestEvalDumpIntoFolder runs eval twice with -dump naming its output
// folder: the dump goes to dump.safetensors there, both times.
func TestEvalDumpIntoFolder(t *testing.T) {
	data := fmnistDir(t)
	ckpt, _ := goldenCheckpoint(t, "convnet_fmnist")
	out := t.TempDir()
	for range 2 {
		code, _, stderr := runCmd(t, "eval", "-backend", "cpu", "-checkpoint", ckpt, "-datadir", data, "-limit-test", "20", "-out", out, "-dump", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "dump.safetensors")); err != nil {
			t.Fatal(err)
		}
	}
}
