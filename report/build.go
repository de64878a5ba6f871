package report

import (
	"runtime"
	"runtime/debug"
	"time"
)

// Build says which build of the program is running: its module version
// ("(devel)" when built from a checkout), the commit it was built from
// (empty when the build did not record one, as with go run or
// -buildvcs=false), whether the checkout had uncommitted changes, and the
// Go version and platform.
type Build struct {
	Version  string
	Commit   string
	Modified bool
	Go       string
	Platform string
}

// ThisBuild reads the running program's Build from its build information.
func ThisBuild() Build {
	b := Build{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Provenance records in report.json which build wrote it and when (set by
// Stamp; a report that was never stamped has none of these keys).
type Provenance struct {
	Version   string `json:"version,omitempty"`
	Commit    string `json:"commit,omitempty"`
	Timestamp string `json:"timestamp,omitempty"` // RFC 3339, UTC, when report.json was written
}

// Stamp sets r's Provenance to this build and the time now.
func (r *Report) Stamp(now time.Time) {
	b := ThisBuild()
	commit := b.Commit
	if commit != "" && b.Modified {
		commit += "+modified"
	}
	r.Provenance = Provenance{Version: b.Version, Commit: commit, Timestamp: now.UTC().Format(time.RFC3339)}
}
