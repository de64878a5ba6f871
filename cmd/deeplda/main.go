// Command deeplda trains and evaluates Deep LDA models natively.
//
// Usage:
//
//	deeplda synth [flags]   the paper's toy experiments (classical and deep LDA)
//	deeplda train [flags]   the paper's image experiments (ConvNet, LDA or softmax head)
//	deeplda sweep [flags]   the lambda sweep of the image experiment over seeds
//	deeplda eval [flags]    evaluate a checkpoint (this project's or PyTorch's) on images
//	deeplda bench [flags]   speed of a backend on the paper's models and on matmul
//	deeplda ui [flags]      the page, served here, with a native engine and a runs folder
//	deeplda version         the version, the commit and the Go version of this build
//	deeplda help            an overview of the commands
//
// Run "deeplda <command> -h" for the flags of a command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// usageError is a mistake in the command line: it is reported in one line
// with a hint to -h, and exit status 2.
type usageError struct{ error }

// command is one deeplda command: its name, what it does in one line, and
// the function that runs it with the arguments after its name.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the commands in the order the overview shows them.
var commands = []command{
	{cmdSynth, "the paper's toy experiments: classical and deep LDA on 3-class 2-D data", synthCmd},
	{cmdTrain, "the paper's image experiments: the ConvNet with an LDA or softmax head", trainCmd},
	{cmdSweep, "the lambda sweep of the image experiment over seeds", sweepCmd},
	{cmdEval, "evaluate a checkpoint (this project's or PyTorch's) on an image test set", evalCmd},
	{cmdBench, "time a backend on the paper's models and on a matrix product", benchCmd},
	{cmdUI, "serve the page with a native engine: live runs at this machine's speed, kept in a runs folder", uiCmd},
	{"version", "print the version, the commit and the Go version of this build", versionCmd},
}

func main() {
	os.Exit(run(interruptible(os.Stderr), os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		overview(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		overview(stdout)
		return 0
	case "help":
		if len(rest) == 0 {
			overview(stdout)
			return 0
		}
		// "deeplda help synth" is "deeplda synth -h".
		name, rest = rest[0], []string{"-h"}
	case "-version", "--version":
		name = "version"
	}
	cmd, ok := lookupCommand(name)
	if !ok {
		fmt.Fprintf(stderr, "deeplda: unknown command %q (run 'deeplda help' for the commands)\n", name)
		return 2
	}
	err := cmd.run(ctx, rest, stdout, stderr)
	var ue usageError
	sig, signalled := signalOf(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case signalled && errors.Is(err, context.Canceled):
		// A training run says where it stopped (stoppedError); other
		// work, only that it stopped.
		if !errors.As(err, new(*stoppedError)) {
			err = fmt.Errorf("stopped by %s", sig)
		}
		fmt.Fprintf(stderr, "deeplda %s: %s\n", name, err)
		return sig.status()
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "deeplda %s: %s (run 'deeplda %s -h' for the flags)\n", name, flagMessage(ue.error), name)
		return 2
	default:
		fmt.Fprintf(stderr, "deeplda %s: %s\n", name, flagMessage(err))
		return 1
	}
}

// lookupCommand returns the command called name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// overview writes the top-level help: what deeplda does and each command
// in one line.
func overview(w io.Writer) {
	var b strings.Builder
	b.WriteString(`deeplda trains Deep LDA with the DNLL loss ("Deep Linear Discriminant
Analysis Revisited") on the CPU or through WebGPU, and writes report.json,
SVG figures and checkpoints.

Usage:

	deeplda <command> [flags]

Commands:

`)
	for _, c := range commands {
		fmt.Fprintf(&b, "\t%-8s %s\n", c.name, c.summary)
	}
	b.WriteString(`	help     this overview; "deeplda help <command>" is "deeplda <command> -h"

Run "deeplda <command> -h" for the flags of a command, for example
"deeplda synth -h". A first run: deeplda synth -out out/synth
`)
	io.WriteString(w, b.String())
}

// parse parses flags. A mistake becomes a usageError of one line (the
// flag package's own message, without the list of flags that it would
// print); -h, -help and --help print the command's usage and return
// flag.ErrHelp. It rejects positional arguments.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	// The flag package prints the error and calls Usage on any mistake:
	// both are held back while it parses.
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return usageError{err}
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
