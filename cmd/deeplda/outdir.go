package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/atomicfile"
)

// lockFile is the name of the file, in an output folder, that holds the
// process id of the command writing there.
const lockFile = "deeplda.lock"

// outFolder is an output folder that this process holds the lock of.
type outFolder struct {
	dir     string
	lockf   *os.File // the lock file, held open with its lock
	created []string // the folders openOut created, innermost first
	// name and flag name the folder in messages: "output folder" and
	// "-out", or "runs folder" and "-runs" (lockRuns).
	name, flag string
}

// openOut prepares dir for a command that writes there: it creates dir
// (and its parents) when missing, takes its lock (another command writing
// there is refused; the lock file of a process that no longer runs, after
// a kill -9, is taken over) and removes the temporary files that an
// interrupted save left (see removeLeftovers). With fresh (a training command
// without -resume), a folder that holds a run that -resume can continue is
// refused rather than overwritten. The caller must call release.
func openOut(dir string, fresh bool) (*outFolder, error) {
	o := &outFolder{dir: dir, name: "output folder", flag: "-out"}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		o.created = append(o.created, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.removeCreated()
		return nil, fmt.Errorf("cannot create the output folder: %w", err)
	}
	if err := o.lock(); err != nil {
		o.removeCreated()
		return nil, err
	}
	if err := removeLeftovers(dir); err != nil {
		o.release()
		return nil, err
	}
	resume := filepath.Join(dir, experiment.ResumeFile)
	if _, err := os.Stat(resume); fresh && err == nil {
		o.release()
		return nil, usageError{fmt.Errorf("%s holds a run that -resume continues (%s): add -resume to continue it, pick another -out, or delete %s to start afresh",
			dir, resume, resume)}
	}
	return o, nil
}

// lockRuns creates deeplda ui's runs folder dir when missing and takes its
// lock (see lock), so that two deeplda ui never train, resume or write the
// same runs. The caller must call release.
func lockRuns(dir string) (*outFolder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("the runs folder: %w", err)
	}
	o := &outFolder{dir: dir, name: "runs folder", flag: "-runs"}
	if err := o.lock(); err != nil {
		return nil, err
	}
	return o, nil
}

// lock takes the folder's lock: the lock file, held with an exclusive
// flock(2) (tryLock) for as long as the command runs, with this process's
// id in it for the message of a command refused there.
//
// A flock, rather than a lock file that a process creates and removes,
// because the kernel releases it when its process ends, however it ends:
// after a kill -9 there is no stale lock to judge and replace in two
// steps, a check then a removal, which two processes taking over the same
// stale lock can interleave so that both hold it. Of the processes that
// open the lock file at once, exactly one gets the flock.
func (o *outFolder) lock() error {
	path := filepath.Join(o.dir, lockFile)
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("the %s %s is not writable: %w", o.name, o.dir, err)
		}
		held, err := tryLock(f)
		switch {
		case err != nil:
			f.Close()
			return fmt.Errorf("cannot lock the %s %s: %w", o.name, o.dir, err)
		case held:
			pid := holder(f)
			f.Close()
			if pid > 0 {
				return fmt.Errorf("the %s %s is in use by process %d (%s): wait for it to end, or pick another %s", o.name, o.dir, pid, path, o.flag)
			}
			// The holder has yet to write its id: look again.
			time.Sleep(10 * time.Millisecond)
		case !isFile(f, path):
			// The holder, ending, removed the file after it was opened
			// here: open the one there now.
			f.Close()
		default:
			o.lockf = f
			if err := writePID(f); err != nil {
				o.release()
				return fmt.Errorf("the %s %s is not writable: %w", o.name, o.dir, err)
			}
			return nil
		}
	}
	return fmt.Errorf("the %s %s is locked (%s) by a process that gives no id: wait for it to end, or pick another %s", o.name, o.dir, path, o.flag)
}

// holder returns the id of the running process that the lock file f
// names, or 0.
func holder(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || !running(pid) {
		return 0
	}
	return pid
}

// isFile reports whether the open file f is the one at path.
func isFile(f *os.File, path string) bool {
	st, err := os.Stat(path)
	fst, ferr := f.Stat()
	return err == nil && ferr == nil && os.SameFile(st, fst)
}

// writePID replaces the content of the lock file f with this process's id.
func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(fmt.Appendf(nil, "%d\n", os.Getpid()), 0)
	return err
}

// running reports whether the process with id pid runs; this process's
// own id in a lock file can only be a leftover of an earlier process.
func running(pid int) bool {
	if pid == os.Getpid() || pid <= 0 {
		return false
	}
	// A zombie (killed, not yet reaped: in a container without an init
	// process, for one) runs no more. Linux says so in /proc.
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	p, err := os.FindProcess(pid) // fails for a process that is gone on Windows
	if err != nil {
		return false
	}
	defer p.Release()
	// Signal 0 checks without signalling; where signals are not supported
	// the process found is taken as running.
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// release removes the lock file, then releases its lock, then removes the
// folders that openOut created if they hold nothing (but empty folders): a
// command that failed before writing anything leaves nothing behind. The
// file is removed while its lock is held, so that no other process holds
// it then; one that opened it meanwhile finds it gone (see lock).
func (o *outFolder) release() {
	if o.lockf != nil {
		if path := filepath.Join(o.dir, lockFile); isFile(o.lockf, path) {
			os.Remove(path)
		}
		o.lockf.Close()
		o.lockf = nil
	}
	o.removeCreated()
}

// removeCreated removes the folders openOut created, innermost first, as
// long as they hold nothing but empty folders.
func (o *outFolder) removeCreated() {
	for _, d := range o.created {
		if !removeEmpty(d) {
			return
		}
	}
}

// removeEmpty removes dir if it holds nothing but empty folders, and
// reports whether it did.
func removeEmpty(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() || !removeEmpty(filepath.Join(dir, e.Name())) {
			return false
		}
	}
	return os.Remove(dir) == nil
}

// removeLeftovers removes the temporary files that a save interrupted by a
// kill or a crash left in dir: those of atomicfile, which every file that
// a command writes goes through, and nothing else. Only the folder's lock
// holder may call it: another command's save in progress would lose its
// file.
func removeLeftovers(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && atomicfile.IsTemp(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("removing a leftover temporary file: %w", err)
			}
		}
	}
	return nil
}

// prepareOut creates a folder inside a held output folder (a sweep's run)
// and removes the temporary files an interrupted save left there.
func prepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output folder: %w", err)
	}
	return removeLeftovers(dir)
}

// dumpPath returns the file that eval's -dump names: path itself, or
// dump.safetensors inside it when path is a folder (one that exists, or
// one named with a trailing separator, created here).
func dumpPath(path string) (string, error) {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return "", fmt.Errorf("cannot create the dump's folder: %w", err)
		}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, "dump.safetensors"), nil
	}
	return path, nil
}
