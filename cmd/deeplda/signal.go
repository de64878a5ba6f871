package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// interruptible returns a context that the first interrupt (Ctrl-C)
// cancels: training stops after the step in progress and the command
// writes what it has. A second interrupt exits at once with status 130;
// the files written so far stay intact (every write is atomic).
func interruptible(stderr io.Writer) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt)
	go func() {
		<-sig
		cancel()
		<-sig
		fmt.Fprintln(stderr, "deeplda: interrupted again: exiting now (the files written so far are intact)")
		os.Exit(130)
	}()
	return ctx
}
