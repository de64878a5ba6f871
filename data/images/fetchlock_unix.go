//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package images

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often lockDir tries again for a folder another process
// (or goroutine) holds.
const lockPoll = 100 * time.Millisecond

// lockDir takes the exclusive lock of the folder dir (flock), waiting for
// whoever holds it until ctx is done, and returns its release. The system
// releases it too when the process dies.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v", dir, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another download into %s: %w", dir, context.Cause(ctx))
		case <-time.After(lockPoll):
		}
	}
}
