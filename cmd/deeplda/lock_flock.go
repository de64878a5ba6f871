//go:build unix && !aix

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes the exclusive flock(2) of the lock file f without waiting,
// and reports whether another holder has it instead. The kernel releases
// it when f is closed, and so when its process ends.
func tryLock(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
