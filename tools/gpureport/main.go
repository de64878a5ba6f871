// Command gpureport gathers what bench/gpu.sh measured in one folder into
// one record, gpu-<adapter>.json, in that folder, and prints its path.
//
// It reads, in the folder:
//
//   - suite.jsonl: the standard error of "deeplda bench -backend webgpu
//     -suite" (a line describing the adapter, then one result per line);
//   - pytorch.jsonl: the lines of "bench/pytorch_baseline.py gpu";
//   - conformance.jsonl: the events (go test -json, through test2json) of
//     the WebGPU test binary on the same adapter;
//   - pytorch_trajectory.jsonl, when present: the golden trajectory
//     replayed by PyTorch on the machine (bench/pytorch_trajectory.py);
//   - gpu.csv, when present: nvidia-smi's name, driver, clocks and power
//     limit of the card;
//   - tiles.txt, when present: the GEMMs timed on each tile (the WebGPU
//     test binary's BenchmarkTiles);
//   - suite-MxK.jsonl, when present: the suite again with every GEMM on
//     the tile MxK.
//
// With -page it gathers instead what bench/page_gpu.sh measured into
// gpu-<adapter>-page.json (runPage), reading page.json (the page's
// adapter and GPU table, written by browsertest's TestPageBenchSuite),
// suite.jsonl (the native suite, as above), page.jsonl and
// conformance.jsonl (the browser tests' events) and gpu.csv when present.
//
// Usage:
//
//	gpureport -commit SHA [-short] [-page] DIR
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/gpurecord"
	"github.com/deeplda/deeplda/kernels"
)

func main() {
	commit := flag.String("commit", "", "the commit that was built")
	short := flag.Bool("short", false, "the run was the script's short mode")
	page := flag.Bool("page", false, "the folder is bench/page_gpu.sh's")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gpureport -commit SHA [-short] [-page] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *commit == "" {
		flag.Usage()
		os.Exit(2)
	}
	report := run
	if *page {
		report = runPage
	}
	path, err := report(flag.Arg(0), *commit, *short)
	if path != "" {
		fmt.Println(path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpureport:", err)
		os.Exit(1)
	}
}

// run builds the record of dir and writes it there.
func run(dir, commit string, short bool) (string, error) {
	r := gpurecord.Record{Commit: commit, Short: short, MatmulGFLOPS: map[string]float64{},
		PyTorchMatmulGFLOPS:    map[string]map[string]float64{},
		ConvNetImagesPerSecond: map[string]map[string]float64{"deeplda": {}},
		ToyImagesPerSecond:     map[string]float64{}}
	if err := readSuite(filepath.Join(dir, "suite.jsonl"), &r); err != nil {
		return "", err
	}
	if err := readPyTorch(filepath.Join(dir, "pytorch.jsonl"), &r); err != nil {
		return "", err
	}
	c, traj, err := readConformance(filepath.Join(dir, "conformance.jsonl"), r.Adapter)
	if err != nil {
		return "", err
	}
	r.Conformance, r.Trajectory = c, traj
	err = jsonLines(filepath.Join(dir, "pytorch_trajectory.jsonl"), func(line []byte) error {
		t := gpurecord.TrajectoryRun{Engine: "pytorch"}
		r.Trajectory = append(r.Trajectory, t)
		return json.Unmarshal(line, &r.Trajectory[len(r.Trajectory)-1])
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if gpu, err := readGPU(filepath.Join(dir, "gpu.csv")); err == nil {
		r.GPU = gpu
		if v := gpu["driver_version"]; v != "" {
			// The adapter's driver description is often its name only.
			r.Driver = v
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if r.Tiles, err = readTiles(filepath.Join(dir, "tiles.txt")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	r.TileSuites = readTileSuites(dir)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "gpu-"+Slug(r.Adapter)+".json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// jsonLines calls each with every line of the file that holds a JSON
// object (the others, such as notes, are passed over).
func jsonLines(path string, each func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if err := each(line); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return sc.Err()
}

// readSuite reads the adapter and deeplda's results.
func readSuite(path string, r *gpurecord.Record) error {
	err := jsonLines(path, func(line []byte) error {
		var a struct {
			Adapter *kernels.AdapterDetails `json:"adapter"`
		}
		if err := json.Unmarshal(line, &a); err == nil && a.Adapter != nil {
			r.AdapterDetails, r.Adapter, r.Driver = *a.Adapter, a.Adapter.Name, a.Adapter.Driver
			return nil
		}
		var b experiment.BenchResult
		if err := json.Unmarshal(line, &b); err != nil {
			return err
		}
		switch b.Model {
		case "matmul":
			r.MatmulGFLOPS[strconv.Itoa(b.Size)] = b.GFLOPS
		case "convnet":
			r.ConvNetImagesPerSecond["deeplda"][strconv.Itoa(b.Batch)] = b.ImagesPerSecond
		case "mlp":
			r.ToyImagesPerSecond["deeplda"] = b.ImagesPerSecond
		}
		r.DeepLDA = append(r.DeepLDA, b)
		return nil
	})
	if err == nil && r.Adapter == "" {
		err = fmt.Errorf("%s: no adapter line (was the suite run on -backend webgpu?)", path)
	}
	if err == nil && len(r.DeepLDA) == 0 {
		err = fmt.Errorf("%s: no results", path)
	}
	return err
}

// readPyTorch reads PyTorch's lines: its description, then the matmul,
// ConvNet and toy rates by precision (fp32 or default).
func readPyTorch(path string, r *gpurecord.Record) error {
	n := 0
	err := jsonLines(path, func(line []byte) error {
		var p struct {
			Bench           string  `json:"bench"`
			Precision       string  `json:"precision"`
			Size            int     `json:"size"`
			Batch           int     `json:"batch"`
			GFLOPS          float64 `json:"gflops"`
			ImagesPerSecond float64 `json:"images_per_second"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		engine := "pytorch_" + p.Precision
		switch p.Bench {
		case "pytorch_info":
			if err := json.Unmarshal(line, &r.PyTorch); err != nil {
				return err
			}
			delete(r.PyTorch, "bench")
			return nil
		case "matmul":
			put(r.PyTorchMatmulGFLOPS, p.Precision, strconv.Itoa(p.Size), p.GFLOPS)
		case "convnet":
			put(r.ConvNetImagesPerSecond, engine, strconv.Itoa(p.Batch), p.ImagesPerSecond)
		case "mlp":
			r.ToyImagesPerSecond[engine] = p.ImagesPerSecond
		default:
			return fmt.Errorf("unknown bench %q", p.Bench)
		}
		n++
		return nil
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: no results", path)
	}
	return err
}

// put sets m[k1][k2] = v.
func put(m map[string]map[string]float64, k1, k2 string, v float64) {
	if m[k1] == nil {
		m[k1] = map[string]float64{}
	}
	m[k1][k2] = v
}

// tileLine is a line of BenchmarkTiles's output: the GEMM, the tile, and
// the rate.
var tileLine = regexp.MustCompile(`^BenchmarkTiles/(\S+)/(\d+x\d+)(?:-\d+)?\s+\d+\s+\S+ ns/op\s+(\S+) GFLOP/s`)

// readTiles reads the rates of BenchmarkTiles's output at path: none when
// it failed before any (bench/gpu.sh reports the failed step).
func readTiles(path string) ([]gpurecord.TileRate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rates []gpurecord.TileRate
	for _, line := range strings.Split(string(b), "\n") {
		m := tileLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, line, err)
		}
		rates = append(rates, gpurecord.TileRate{GEMM: m[1], Tile: m[2], GFLOPS: v})
	}
	return rates, nil
}

// readTileSuites reads the suites of dir run on one tile (suite-MxK.jsonl)
// by tile, passing over, with a note on standard error, those that did not
// finish (bench/gpu.sh reports the failed step): the record keeps the
// rest.
func readTileSuites(dir string) map[string]gpurecord.TileSuite {
	paths, _ := filepath.Glob(filepath.Join(dir, "suite-*.jsonl"))
	if len(paths) == 0 {
		return nil
	}
	out := map[string]gpurecord.TileSuite{}
	for _, p := range paths {
		tile := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "suite-"), ".jsonl")
		r := gpurecord.Record{MatmulGFLOPS: map[string]float64{}, ConvNetImagesPerSecond: map[string]map[string]float64{"deeplda": {}}, ToyImagesPerSecond: map[string]float64{}}
		if err := readSuite(p, &r); err != nil {
			fmt.Fprintf(os.Stderr, "gpureport: the suite on tile %s left out: %v\n", tile, err)
			continue
		}
		out[tile] = gpurecord.TileSuite{MatmulGFLOPS: r.MatmulGFLOPS, ConvNetImagesPerSecond: r.ConvNetImagesPerSecond["deeplda"]}
	}
	return out
}

// readConformance counts the test events' results: every test and
// subtest that passed, failed or was skipped. A binary that ended
// without a final pass or fail (it crashed, or was killed) counts as a
// failure. It also reads the whole trajectory's figures from the
// trajectory test's log (traintest.Trajectory's lines).
func readConformance(path, adapter string) (gpurecord.Conformance, []gpurecord.TrajectoryRun, error) {
	var c gpurecord.Conformance
	runs := map[string]*gpurecord.TrajectoryRun{}
	var heads []string
	ended := false
	err := jsonLines(path, func(line []byte) error {
		var e struct {
			Action, Test, Output string
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if head, ok := strings.CutPrefix(e.Test, "TestTrajectory/"); ok && e.Action == "output" {
			if runs[head] == nil {
				runs[head] = &gpurecord.TrajectoryRun{Engine: "deeplda", Device: adapter, Head: head}
				heads = append(heads, head)
			}
			trajectoryLine(runs[head], e.Output)
		}
		if e.Test == "" {
			switch e.Action {
			case "pass":
				ended = true
			case "fail":
				ended = true
				if c.Failed == 0 {
					c.Failed++
					c.Failures = append(c.Failures, "(the test binary failed outside any test)")
				}
			}
			return nil
		}
		switch e.Action {
		case "pass":
			c.Passed++
		case "fail":
			c.Failed++
			c.Failures = append(c.Failures, e.Test)
		case "skip":
			c.Skipped++
			c.Skips = append(c.Skips, e.Test)
		}
		return nil
	})
	var traj []gpurecord.TrajectoryRun
	for _, h := range heads {
		if r := runs[h]; r.Correct > 0 {
			traj = append(traj, *r)
		}
	}
	if err == nil && !ended {
		c.Failed++
		c.Failures = append(c.Failures, "(the test binary did not finish)")
	}
	if err == nil && c.Passed+c.Failed == 0 {
		err = fmt.Errorf("%s: no test ran", path)
	}
	// A binary-level failure counted above stands for failures already
	// listed when some test failed too.
	if len(c.Failures) > 1 && c.Failures[0] == "(the test binary failed outside any test)" {
		c.Failures, c.Failed = c.Failures[1:], c.Failed-1
	}
	return c, traj, err
}

// The lines of traintest.Trajectory's log that hold its figures.
var (
	lossesLine   = regexp.MustCompile(`largest relative loss difference ([0-9.e+-]+) in the first 5, ([0-9.e+-]+) overall`)
	logitsLine   = regexp.MustCompile(`test512_logits: relative L2 error ([0-9.e+-]+)`)
	accuracyLine = regexp.MustCompile(`test accuracy on \d+ images: (\d+) correct, PyTorch (\d+)`)
)

// trajectoryLine reads the figures of one line of the trajectory test's
// log into r.
func trajectoryLine(r *gpurecord.TrajectoryRun, line string) {
	if m := lossesLine.FindStringSubmatch(line); m != nil {
		r.FirstLosses, _ = strconv.ParseFloat(m[1], 64)
		r.Losses, _ = strconv.ParseFloat(m[2], 64)
	}
	if m := logitsLine.FindStringSubmatch(line); m != nil {
		r.Logits, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := accuracyLine.FindStringSubmatch(line); m != nil {
		r.Correct, _ = strconv.Atoi(m[1])
		r.GoldenCorrect, _ = strconv.Atoi(m[2])
	}
}

// readGPU reads nvidia-smi's CSV (a header line, then one line a card) and
// returns the first card's fields by header name.
func readGPU(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		return nil, fmt.Errorf("%s: no card", path)
	}
	head, vals := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	m := map[string]string{}
	for i, h := range head {
		if i < len(vals) {
			m[strings.TrimSpace(h)] = strings.TrimSpace(vals[i])
		}
	}
	return m, nil
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// Slug is the adapter's name as a file name part: lower case, runs of
// other characters than letters and digits as one '-'.
func Slug(name string) string {
	s := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "unknown"
	}
	return s
}
