// Package house checks that the packages' imports match the floors of
// ARCHITECTURE.md's package graph: a package imports only packages on
// lower floors.
package house

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/deeplda/deeplda/"

// helpers are the packages that ARCHITECTURE.md places in words, below
// its picture: the test helpers and tools that are not commands, on the
// floor above what they use.
var helpers = map[string]int{
	"internal/sharedtest":              0,
	"internal/fmapeak":                 0,
	"kernels/kerneltest":               2,
	"kernels/webgpu/webgputest":        2,
	"model/modeltest":                  4,
	"internal/gpurecord":               5,
	"browsertest/goldenpage":           5,
	"internal/gpurecord/gpurecordtest": 6,
	"engine/enginetest":                6,
	"browsertest":                      8,
}

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
	ImportPath, Name string
	GoFiles, Imports []string
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

// TestNoImportRunsUp checks every package of the module, natively and in
// js/wasm: each is on a floor (the picture's or helpers') or a command
// above them all, and a package on a floor imports only packages on lower
// floors.
func TestNoImportRunsUp(t *testing.T) {
	fl := floors(t)
	for name, f := range helpers {
		if _, ok := fl[name]; ok {
			t.Errorf("%s is both in the picture and among the helpers", name)
		}
		fl[name] = f
	}
	seen := map[string]bool{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		for _, p := range list(t, env...) {
			name := strings.TrimPrefix(p.ImportPath, module)
			if seen[name] {
				continue
			}
			seen[name] = true
			if len(p.GoFiles) == 0 {
				continue // tests alone
			}
			floor, placed := fl[name]
			if !placed && p.Name == "main" {
				continue // a command of its own, above everything
			}
			if !placed {
				t.Errorf("%s stands on no floor: add it to ARCHITECTURE.md's picture", name)
				continue
			}
			for _, imp := range p.Imports {
				dep, ok := strings.CutPrefix(imp, module)
				if !ok {
					continue
				}
				if f, ok := fl[dep]; !ok || f >= floor {
					t.Errorf("%s (floor %d) imports %s (floor %d): an import that does not run down", name, floor, dep, f)
				}
			}
		}
	}
	for name := range fl {
		if !seen[name] {
			t.Errorf("ARCHITECTURE.md places %s, which is not a package", name)
		}
	}
}

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
