// Command deeplda trains and evaluates Deep LDA models natively.
//
// Usage:
//
//	deeplda synth [flags]   the paper's toy experiments (classical and deep LDA)
//	deeplda train [flags]   the paper's image experiments (ConvNet, LDA or softmax head)
//	deeplda sweep [flags]   the lambda sweep of the image experiment over seeds
//	deeplda eval [flags]    evaluate a checkpoint (this project's or PyTorch's) on images
//	deeplda bench [flags]   speed of a backend on the paper's models and on matmul
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
)

// usageError is a mistake in the command line: it is reported with a hint
// to -h, and exit status 2.
type usageError struct{ error }

func main() {
	os.Exit(run(interruptible(os.Stderr), os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	commands := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"synth": synthCmd,
		"train": trainCmd,
		"sweep": sweepCmd,
		"eval":  evalCmd,
		"bench": benchCmd,
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "help" {
		fmt.Fprintln(stderr, "usage: deeplda synth|train|sweep|eval|bench [flags]   (deeplda <command> -h for the flags)")
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "deeplda: unknown command %q (want synth, train, sweep, eval or bench)\n", args[0])
		return 2
	}
	err := cmd(ctx, args[1:], stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "deeplda %s: %s\n(run 'deeplda %s -h' for the flags)\n", args[0], flagMessage(ue.error), args[0])
		return 2
	default:
		fmt.Fprintf(stderr, "deeplda %s: %s\n", args[0], flagMessage(err))
		return 1
	}
}

// parse parses flags, turning errors into usage errors; it rejects
// positional arguments.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
