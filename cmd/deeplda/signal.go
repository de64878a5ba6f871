package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// stopSignals names the signals that stop a command as Ctrl-C does:
// SIGINT (Ctrl-C), SIGTERM (what timeout, systemd and docker stop send)
// and SIGHUP (the terminal closed).
var stopSignals = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// stopSignal is one of stopSignals, as the cause of the context that it
// cancels (interruptible).
type stopSignal syscall.Signal

// Error returns the signal's name.
func (s stopSignal) Error() string { return stopSignals[syscall.Signal(s)] }

// status returns the exit status of a command that s stopped: 128 plus
// the signal's number, as a shell reports a command that s killed.
func (s stopSignal) status() int { return 128 + int(s) }

// interruptible returns a context that the first of stopSignals cancels,
// with that signal as its cause (signalOf): training stops after the step
// in progress, the command writes what it has and exits with the signal's
// status (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). A second one
// exits at once with its status; the files written so far stay intact
// (every write is atomic). A signal that the command was started with
// ignored (SIGHUP under nohup, SIGINT in a background job) stays ignored.
func interruptible(stderr io.Writer) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 2)
	for s := range stopSignals {
		if !signal.Ignored(s) {
			signal.Notify(sig, s)
		}
	}
	go func() {
		cancel(stopSignal((<-sig).(syscall.Signal)))
		s := stopSignal((<-sig).(syscall.Signal))
		fmt.Fprintf(stderr, "deeplda: interrupted again (%s): exiting now (the files written so far are intact)\n", s)
		os.Exit(s.status())
	}()
	return ctx
}

// signalOf returns the signal that cancelled ctx, if one did.
func signalOf(ctx context.Context) (stopSignal, bool) {
	var s stopSignal
	return s, errors.As(context.Cause(ctx), &s)
}

// stoppedError is the error of a training run that a cancellation stopped
// and that was put back to its last whole epoch, whose report was written.
type stoppedError struct {
	epoch, epochs int
	report        string // the path of report.json
	cause         error  // the context's cause: a stopSignal, or context.Canceled
	err           error  // the error of the cancelled run
}

// stopped returns the error of a training run that the cancellation of
// ctx stopped with err, after the run was put back to epoch (of epochs)
// and its report written to dir/report.json.
func stopped(ctx context.Context, err error, epoch, epochs int, dir string) error {
	return &stoppedError{epoch: epoch, epochs: epochs, report: filepath.Join(dir, "report.json"), cause: context.Cause(ctx), err: err}
}

// Error says where the run stopped, why, and what its files hold.
func (e *stoppedError) Error() string {
	by := "by cancellation"
	if s := stopSignal(0); errors.As(e.cause, &s) {
		by = "by " + s.Error()
	}
	switch e.epoch {
	case 0:
		return fmt.Sprintf("stopped at epoch 0 of %d %s: %s reports the untrained model; no epoch finished, so there is nothing to resume", e.epochs, by, e.report)
	case 1:
		return fmt.Sprintf("stopped at epoch 1 of %d %s: %s holds epoch 1; -resume continues after it", e.epochs, by, e.report)
	default:
		return fmt.Sprintf("stopped at epoch %d of %d %s: %s holds epochs 1-%d; -resume continues after epoch %d", e.epoch, e.epochs, by, e.report, e.epoch, e.epoch)
	}
}

// Unwrap returns the error of the cancelled run.
func (e *stoppedError) Unwrap() error { return e.err }
