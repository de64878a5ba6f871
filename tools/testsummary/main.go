// Command testsummary reads the events of one or more "go test -json" runs
// on standard input and writes what a person needs to see as they come
// (each package's ok or FAIL line, the whole output of every failed test,
// compiler errors, any line that is not an event), then a summary: per
// package the passed, failed and skipped tests (subtests included), every
// skip with its reason, every failure, and a last line
//
//	N passed, N failed, N skipped
//
// alone, which CI reads. It exits with status 1 when anything failed.
//
// Runs are told apart by the line
//
//	{"Action":"exit","Label":"LABEL","Exit":STATUS}
//
// which the caller writes after each go test run with go test's exit
// status (build.sh's test target does): rows of the summary are grouped by
// LABEL, and a run that exited non-zero without reporting a failure (go
// test could not list or build the packages, say) counts as one failure.
//
// Usage:
//
//	go test -json ./... | go run ./tools/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: go test -json PACKAGES | go run ./tools/testsummary")
		os.Exit(2)
	}
	if !summarize(os.Stdin, os.Stdout) {
		os.Exit(1)
	}
}

// event is a line of go test -json (cmd/test2json), or the exit line.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
	Label       string // exit
	Exit        int    // exit
}

// counts are the tests of one package in one run.
type counts struct{ passed, failed, skipped int }

// pkgRun is a package tested in one run.
type pkgRun struct {
	name string
	counts
	failedPkg   bool // the package failed: a failed test, a build error, a crash
	failedBuild bool // its test binary did not build
}

// finding is a skipped or failed test with what it said.
type finding struct{ label, pkg, test, text string }

// summary accumulates the events of all runs.
type summary struct {
	w        io.Writer
	run      map[string]*pkgRun // packages of the current run
	order    []*pkgRun          // of the current run, in order of appearance
	output   map[[2]string][]string
	groups   []group
	skips    []finding
	failures []finding
	total    counts
	runFail  bool // the current run reported a failure
	ok       bool
}

// group is one finished run: its label and packages.
type group struct {
	label string
	pkgs  []*pkgRun
}

// summarize reads the events from r, writes the stream and the summary to
// w, and reports whether everything passed.
func summarize(r io.Reader, w io.Writer) bool {
	s := &summary{w: w, run: map[string]*pkgRun{}, output: map[[2]string][]string{}, ok: true}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
			fmt.Fprintln(w, line)
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testsummary: reading the events: %v\n", err)
		s.ok = false
	}
	s.endRun("", 0)
	s.write()
	return s.ok && s.total.failed == 0
}

// pkg returns the current run's record of package name.
func (s *summary) pkg(name string) *pkgRun {
	p := s.run[name]
	if p == nil {
		p = &pkgRun{name: name}
		s.run[name] = p
		s.order = append(s.order, p)
	}
	return p
}

// handle takes one event.
func (s *summary) handle(e event) {
	switch e.Action {
	case "exit":
		s.endRun(e.Label, e.Exit)
		return
	case "build-output":
		io.WriteString(s.w, e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			// The package's ok, FAIL and "no test files" lines, and what it
			// printed outside tests; the bare PASS line says nothing more.
			if e.Output != "PASS\n" {
				io.WriteString(s.w, e.Output)
			}
		case "fail":
			p.failedPkg, p.failedBuild = true, e.FailedBuild != ""
			s.runFail = true
			s.flushUnfinished(e.Package)
		}
		return
	}
	key := [2]string{e.Package, e.Test}
	switch e.Action {
	case "output":
		s.output[key] = append(s.output[key], e.Output)
	case "pass":
		p.passed++
		s.total.passed++
		delete(s.output, key)
	case "skip":
		p.skipped++
		s.total.skipped++
		s.skips = append(s.skips, finding{pkg: e.Package, test: e.Test, text: skipReason(s.output[key])})
		delete(s.output, key)
	case "fail":
		p.failed++
		s.total.failed++
		s.runFail = true
		io.WriteString(s.w, strings.Join(s.output[key], ""))
		s.failures = append(s.failures, finding{pkg: e.Package, test: e.Test})
		delete(s.output, key)
	}
}

// flushUnfinished writes the output of pkg's tests that never ended (the
// package crashed or timed out while they ran).
func (s *summary) flushUnfinished(pkg string) {
	var keys [][2]string
	for k := range s.output {
		if k[0] == pkg {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[1], b[1]) })
	for _, k := range keys {
		fmt.Fprintf(s.w, "(%s %s did not finish; its output:)\n%s", k[0], k[1], strings.Join(s.output[k], ""))
		delete(s.output, k)
	}
}

// endRun closes the current run, which go test ended with status exit: a
// package that failed without a failed test (a build error, a crash, a
// timeout) counts as one failure, and so does a failing run that reported
// nothing.
func (s *summary) endRun(label string, exit int) {
	for _, p := range s.order {
		if p.failedPkg && p.failed == 0 {
			why := "the package failed outside its tests (a crash or a timeout: see its output above)"
			if p.failedBuild {
				why = "the tests did not build (see the compiler's messages above)"
			}
			p.failed++
			s.total.failed++
			s.failures = append(s.failures, finding{pkg: p.name, text: why})
		}
	}
	if exit != 0 && !s.runFail {
		s.total.failed++
		s.failures = append(s.failures, finding{text: fmt.Sprintf("go test exited with status %d without reporting a failure (see its messages above)", exit)})
	}
	for i := range s.skips {
		if s.skips[i].label == "" {
			s.skips[i].label = label
		}
	}
	for i := range s.failures {
		if s.failures[i].label == "" {
			s.failures[i].label = label
		}
	}
	if len(s.order) > 0 {
		s.groups = append(s.groups, group{label: label, pkgs: s.order})
	}
	s.run, s.order, s.runFail = map[string]*pkgRun{}, nil, false
	if exit != 0 {
		s.ok = false
	}
}

// skipReason is what a skipped test said, without go test's framing lines
// and the file:line prefixes.
func skipReason(lines []string) string {
	var said []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if i := strings.Index(l, ": "); i > 0 && strings.Contains(l[:i], ".go:") && !strings.Contains(l[:i], " ") {
			l = l[i+2:]
		}
		said = append(said, l)
	}
	if len(said) == 0 {
		return "(no reason given)"
	}
	return strings.Join(said, " / ")
}

// write writes the summary.
func (s *summary) write() {
	w := s.w
	width := len("package")
	for _, g := range s.groups {
		for _, p := range g.pkgs {
			width = max(width, len(p.name))
		}
	}
	fmt.Fprintf(w, "\n  %-*s %7s %7s %7s\n", width, "package", "passed", "failed", "skipped")
	for _, g := range s.groups {
		if g.label != "" {
			fmt.Fprintf(w, "%s:\n", g.label)
		}
		for _, p := range g.pkgs {
			if p.passed+p.failed+p.skipped > 0 {
				fmt.Fprintf(w, "  %-*s %7d %7d %7d\n", width, p.name, p.passed, p.failed, p.skipped)
			}
		}
	}
	writeFindings(w, "skipped", s.skips)
	writeFindings(w, "failed", s.failures)
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", s.total.passed, s.total.failed, s.total.skipped)
}

// writeFindings lists skipped or failed tests under a heading: package,
// test, the run's label, and what they said.
func writeFindings(w io.Writer, heading string, fs []finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", heading)
	for _, f := range fs {
		var parts []string
		for _, part := range []string{f.pkg, f.test} {
			if part != "" {
				parts = append(parts, part)
			}
		}
		if f.label != "" {
			parts = append(parts, "("+f.label+")")
		}
		where := strings.Join(parts, " ")
		switch {
		case f.text == "":
			fmt.Fprintf(w, "  %s\n", where)
		case where == "":
			fmt.Fprintf(w, "  %s\n", f.text)
		default:
			fmt.Fprintf(w, "  %s: %s\n", where, f.text)
		}
	}
}
