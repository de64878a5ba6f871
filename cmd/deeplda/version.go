package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/deeplda/deeplda/report"
)

// versionCmd prints one line: the module version ("(devel)" when built
// from a checkout), the commit (with "+modified" when the checkout had
// uncommitted changes; "unknown" when the build recorded none, as with
// go run), the Go version and the platform.
func versionCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deeplda version\n\nPrints the version, the commit and the Go version of this build (also deeplda --version).")
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionLine(report.ThisBuild()))
	return nil
}

// versionLine formats b as "deeplda VERSION commit COMMIT GO PLATFORM".
func versionLine(b report.Build) string {
	commit := b.Commit
	switch {
	case commit == "":
		commit = "unknown"
	case b.Modified:
		commit += "+modified"
	}
	return fmt.Sprintf("deeplda %s commit %s %s %s", b.Version, commit, b.Go, b.Platform)
}
