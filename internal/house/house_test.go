// Package house checks the house's rules: the packages' imports match the
// floors of ARCHITECTURE.md's package graph (a package imports only
// packages on lower floors and stands on the lowest floor they allow), a
// folder holds commands or libraries, docs/layout.md lists every package,
// the front documents stay short and the browser-only files thin.
package house

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/build/constraint"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/deeplda/deeplda/"

// floorLine is a line of the picture that starts a floor: its number and
// the first of its packages.
var floorLine = regexp.MustCompile(`^(\d)  (\S.*)$`)

// floors reads the picture of ARCHITECTURE.md: the floor of each package
// it names.
func floors(t *testing.T) map[string]int {
	t.Helper()
	md, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(md))
	in, floor := false, -1
	for sc.Scan() {
		line := sc.Text()
		if line == "```" {
			if in {
				break
			}
			in = floor < 0
			continue
		}
		if !in {
			continue
		}
		names := ""
		if m := floorLine.FindStringSubmatch(line); m != nil {
			floor, _ = strconv.Atoi(m[1])
			names = m[2]
		} else if strings.HasPrefix(line, "   ") && len(line) > 3 && line[3] != ' ' && floor >= 0 {
			names = strings.TrimLeft(line, " ")
		}
		// The package column ends where the description's run of spaces starts.
		if i := strings.Index(names, "   "); i >= 0 {
			names = names[:i]
		}
		for _, p := range strings.Split(names, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out[p] = floor
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("ARCHITECTURE.md has no package picture")
	}
	return out
}

// pkg is what go list says of a package.
type pkg struct {
	ImportPath, Name, Dir string
	GoFiles, Imports      []string
}

// list runs go list on the module's packages for the environment env.
func list(t *testing.T, env ...string) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no go command to list the packages")
		}
		t.Skip("SKIPPED LOUDLY: no go command to list the packages")
	}
	cmd := exec.Command(gobin, "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), env...)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var out []pkg
	dec := json.NewDecoder(bytes.NewReader(raw))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// packages lists the module's packages, natively and in js/wasm (where a
// package is in both, the imports of both): the import paths below the
// module, their names, whether they have files besides tests, and the
// module's packages they import.
func packages(t *testing.T) map[string]*pkg {
	t.Helper()
	if listed != nil {
		return listed
	}
	out := map[string]*pkg{}
	var all []pkg
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		ps := list(t, env...)
		all = append(all, ps...)
		for _, p := range ps {
			name := strings.TrimPrefix(p.ImportPath, module)
			q := out[name]
			if q == nil {
				q = &pkg{ImportPath: name, Name: p.Name}
				out[name] = q
			}
			q.GoFiles = append(q.GoFiles, p.GoFiles...)
			for _, imp := range p.Imports {
				if dep, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(q.Imports, dep) {
					q.Imports = append(q.Imports, dep)
				}
			}
		}
	}
	watch(t, all)
	listed = out
	return out
}

// watch reads the module's folders and the state of each package's
// files, so that go test's cache, which knows only the files that a test
// itself opens, reruns the tests when a package comes, goes or changes.
func watch(t *testing.T, pkgs []pkg) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); n != ".." && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata") {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, f := range p.GoFiles {
			if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// listed caches packages' answer for the tests that follow.
var listed map[string]*pkg

// TestNoImportRunsUp checks every package of the module, natively and in
// js/wasm, against ARCHITECTURE.md's picture: each is on a floor or a
// command above them all; a package on a floor imports only packages on
// lower floors, and a library stands on the lowest floor its imports
// allow, one above the highest of them, so that the picture matches the
// imports. A library in another package's folder imports nothing that
// stands above that package outside its folder (a test helper under
// model/ that imports train runs up the house).
func TestNoImportRunsUp(t *testing.T) {
	fl := floors(t)
	pkgs := packages(t)
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[name]
		if len(p.GoFiles) == 0 {
			continue // tests alone
		}
		floor, placed := fl[name]
		command := p.Name == "main"
		if !placed && command {
			continue // a command of its own, above everything
		}
		if !placed {
			t.Errorf("%s stands on no floor: add it to ARCHITECTURE.md's picture", name)
			continue
		}
		top := -1
		for _, dep := range p.Imports {
			f, ok := fl[dep]
			if !ok {
				t.Errorf("%s (floor %d) imports %s, which stands on no floor", name, floor, dep)
			} else if f >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import that does not run down", name, floor, dep, f)
			}
			top = max(top, f)
		}
		if command {
			continue
		}
		if top+1 != floor {
			t.Errorf("%s stands on floor %d, but its imports put it on floor %d: move it in ARCHITECTURE.md's picture", name, floor, top+1)
		}
		owner := path.Dir(name)
		for owner != "." && pkgs[owner] == nil {
			owner = path.Dir(owner)
		}
		of, ok := fl[owner]
		if !ok {
			continue
		}
		for _, dep := range p.Imports {
			if f := fl[dep]; f > of && !strings.HasPrefix(dep, owner+"/") {
				t.Errorf("%s, in %s's folder (floor %d), imports %s (floor %d): an import that runs up out of the folder", name, owner, of, dep, f)
			}
		}
	}
	for name := range fl {
		if pkgs[name] == nil {
			t.Errorf("ARCHITECTURE.md places %s, which is not a package", name)
		}
	}
}

// TestFoldersHoldOneKind checks that a folder that is no package (cmd/,
// tools/, internal/) holds commands or libraries, not both: the libraries
// that the packages import do not live among the tools.
func TestFoldersHoldOneKind(t *testing.T) {
	pkgs := packages(t)
	kinds := map[string]map[bool][]string{}
	for name, p := range pkgs {
		dir := path.Dir(name)
		if dir == "." || pkgs[dir] != nil || len(p.GoFiles) == 0 {
			continue
		}
		if kinds[dir] == nil {
			kinds[dir] = map[bool][]string{}
		}
		kinds[dir][p.Name == "main"] = append(kinds[dir][p.Name == "main"], name)
	}
	for dir, k := range kinds {
		if len(k) > 1 {
			slices.Sort(k[true])
			slices.Sort(k[false])
			t.Errorf("%s/ holds commands %v and libraries %v: one kind a folder", dir, k[true], k[false])
		}
	}
}

// TestLayoutListsEveryPackage checks that docs/layout.md's table has a
// row for every package of the module.
func TestLayoutListsEveryPackage(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(md), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range folderCell.FindAllStringSubmatch(cells[1], -1) {
			rows[m[1]] = true
		}
	}
	for name := range packages(t) {
		if !rows[name] {
			t.Errorf("docs/layout.md has no row for %s/", name)
		}
	}
}

// folderCell is a folder named in the first cell of a row of
// docs/layout.md's table.
var folderCell = regexp.MustCompile("`([^`]+)/`")

// TestDocSizes keeps the front documents short: README.md is a front
// page of at most 120 lines, and BENCHMARKS.md holds today's tables in
// under 500 (the history of each figure is git's).
func TestDocSizes(t *testing.T) {
	for _, doc := range []struct {
		name string
		max  int
	}{{"README.md", 120}, {"BENCHMARKS.md", 499}} {
		b, err := os.ReadFile(filepath.Join("..", "..", doc.name))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n > doc.max {
			t.Errorf("%s has %d lines, over its %d", doc.name, n, doc.max)
		}
	}
}

// browserTag matches the browser's build tags.
var browserTag = regexp.MustCompile(`\b(js|wasm)\b`)

// browserOnly reports whether a build constraint line names js or wasm
// and keeps its file in the browser's build and out of Linux's.
func browserOnly(line string) bool {
	expr, err := constraint.Parse(line)
	if err != nil || !browserTag.MatchString(line) {
		return false
	}
	on := func(tags ...string) func(string) bool {
		return func(tag string) bool { return slices.Contains(tags, tag) || strings.HasPrefix(tag, "go1.") }
	}
	return expr.Eval(on("js", "wasm", "gc")) && !expr.Eval(on("linux", "unix", "amd64", "cgo", "gc")) &&
		!expr.Eval(on("linux", "unix", "arm64", "cgo", "gc"))
}

// TestBrowserFilesThin keeps what only the browser build compiles thin:
// the non-test Go files behind a js or wasm build constraint outside
// kernels/ (whose WebGPU binding and WebAssembly kernels are the
// backend's) hold at most 1,200 lines; what the page decides and does
// lives in packages that go test reaches (wasm/page, wasm/config).
func TestBrowserFilesThin(t *testing.T) {
	root := filepath.Join("..", "..")
	total := 0
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "kernels" || rel == "out" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.SplitN(string(b), "\n", 20) {
			if constraint.IsGoBuild(line) && browserOnly(line) {
				n := bytes.Count(b, []byte("\n"))
				total += n
				files = append(files, rel+": "+strconv.Itoa(n))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no file behind a js or wasm build constraint: the walk missed them")
	}
	if total > 1200 {
		t.Errorf("%d lines behind js or wasm build constraints outside kernels/, over 1,200:\n%s", total, strings.Join(files, "\n"))
	}
}
