package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/gpurecord"
)

// gpuRecord is a GPU record (bench/gpu.sh's gpu-<adapter>.json) and the
// path it was read from.
type gpuRecord struct {
	path string
	gpurecord.Record
}

// loadGPURecord reads the GPU record at path.
func loadGPURecord(path string) (*gpuRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &gpuRecord{path: path}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Adapter == "" {
		return nil, fmt.Errorf("%s: not a GPU record (no adapter)", path)
	}
	return r, nil
}

// fp32Peaks are the fp32 peaks (without tensor cores) of the cards that
// the gpu kind knows, in GFLOP/s, by the words that the adapter's name
// must all contain.
var fp32Peaks = []struct {
	words []string
	name  string
	gflop float64
}{
	{[]string{"H100", "HBM3"}, "the H100 SXM5's", 67000},
	{[]string{"H200"}, "the H200 SXM's", 67000}, // the H100 SXM5's chip and clocks, more memory
}

// fp32Peak returns the fp32 peak of the card that adapter names and the
// card's name, or 0 for a card the gpu kind does not know.
func fp32Peak(adapter string) (float64, string) {
	for _, p := range fp32Peaks {
		if !slices.ContainsFunc(p.words, func(w string) bool { return !strings.Contains(adapter, w) }) {
			return p.gflop, p.name
		}
	}
	return 0, ""
}

// gpuBlock is the gpu kind of a marker: for each GPU record, its adapter
// and card, deeplda against PyTorch (fp32, and its defaults), deeplda's
// device time per ConvNet step by kernel at the largest batch, and the
// conformance tests and trajectory on the adapter. It returns the
// Markdown and the commits that the records were measured at.
func gpuBlock(paths []string) (string, []string, error) {
	var b bytes.Buffer
	var commits []string
	for i, p := range paths {
		r, err := loadGPURecord(p)
		if err != nil {
			return "", nil, err
		}
		if i > 0 {
			b.WriteString("\n")
		}
		r.write(&b)
		commits = append(commits, r.Commit)
	}
	return b.String(), commits, nil
}

// write writes the record's part of a gpu block.
func (r *gpuRecord) write(b *bytes.Buffer) {
	r.writeSetup(b)
	b.WriteString("\n")
	r.writeComparison(b)
	b.WriteString("\n")
	r.writeKernels(b)
	b.WriteString("\n")
	if r.writeTiles(b) {
		b.WriteString("\n")
	}
	r.writeConformance(b)
}

// writeSetup writes the line naming the adapter, the card, PyTorch and
// the commit.
func (r *gpuRecord) writeSetup(b *bytes.Buffer) {
	fmt.Fprintf(b, "WebGPU adapter **%s**, driver %q", r.Adapter, r.Driver)
	var card []string
	for _, f := range []struct{ key, format string }{
		{"name", "%s"},
		{"driver_version", "driver %s"},
		{"memory.total [MiB]", "%s MiB"},
		{"power.limit [W]", "power limit %s W"},
		{"clocks.max.sm [MHz]", "max SM clock %s MHz"},
		{"clocks.max.memory [MHz]", "max memory clock %s MHz"},
	} {
		if v := strings.TrimSpace(r.GPU[f.key]); v != "" {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				v = strconv.FormatFloat(x, 'f', -1, 64)
			}
			card = append(card, fmt.Sprintf(f.format, v))
		}
	}
	if len(card) > 0 {
		fmt.Fprintf(b, "; the card (nvidia-smi): %s", strings.Join(card, ", "))
	}
	if torch := r.pytorchString("torch"); torch != "" {
		fmt.Fprintf(b, "; PyTorch %s", torch)
		var with []string
		if v := r.pytorchString("cuda"); v != "" {
			with = append(with, "CUDA "+v)
		}
		if v := r.pytorchString("cudnn"); v != "" {
			with = append(with, "cuDNN "+v)
		}
		if len(with) > 0 {
			fmt.Fprintf(b, " (%s)", strings.Join(with, ", "))
		}
		if v := r.pytorchString("device"); v != "" {
			fmt.Fprintf(b, " on %s", v)
		}
	}
	if r.Commit != "" {
		fmt.Fprintf(b, "; measured at commit %s.", r.Commit)
	} else {
		b.WriteString("; measured at an unrecorded commit.")
	}
	if r.Short {
		b.WriteString(" This is a run of bench/gpu.sh's short mode (tiny sizes, one step), which tests the script: its figures mean nothing.")
	}
	b.WriteString("\n")
}

// pytorchString returns the PyTorch description's key as text ("" when
// absent or null); cuDNN's version number is written major.minor.patch.
func (r *gpuRecord) pytorchString(key string) string {
	switch v := r.PyTorch[key].(type) {
	case string:
		return v
	case float64:
		if key == "cudnn" && v == float64(int(v)) && v >= 1000 {
			// cuDNN 9 numbers its versions major*10000+minor*100+patch,
			// earlier ones major*1000+minor*100+patch.
			n, unit := int(v), 1000
			if n >= 90000 {
				unit = 10000
			}
			return fmt.Sprintf("%d.%d.%d", n/unit, n%unit/100, n%100)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// rate writes a GFLOP/s or images/s figure: whole and with thousands
// separators from 100 on, three significant digits below.
func rate(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// ratio writes a/b with two decimals, "-" when either is missing.
func ratio(a, b float64, okA, okB bool) string {
	if !okA || !okB || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// sizeKeys returns the keys of the maps (sizes or batches written as
// numbers) in increasing order.
func sizeKeys(ms ...map[string]float64) []string {
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			seen[k] = true
		}
	}
	return slices.SortedFunc(maps.Keys(seen), func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA == nil && errB == nil {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(a, b)
	})
}

// writeComparison writes the table of deeplda against PyTorch: the
// matmuls (with their share of the card's fp32 peak where it is known),
// the ConvNet steps and the toy step.
func (r *gpuRecord) writeComparison(b *bytes.Buffer) {
	peak, card := fp32Peak(r.Adapter)
	b.WriteString("deeplda on the WebGPU adapter against the same steps in PyTorch (bench/pytorch_baseline.py)")
	if dev := r.pytorchString("device"); dev != "" {
		fmt.Fprintf(b, " on %s", dev)
	}
	b.WriteString(": in fp32 (TF32 off) and with PyTorch's defaults (TF32 convolutions; its matmuls stay fp32). ")
	if peak > 0 {
		fmt.Fprintf(b, "The matmuls' percentages are of %s fp32 peak without tensor cores, %g TFLOP/s.\n\n", card, peak/1000)
	} else {
		b.WriteString("The card's fp32 peak is not known here, so the matmuls are not given as a share of it.\n\n")
	}
	b.WriteString("| benchmark | deeplda (WebGPU) | PyTorch fp32 (TF32 off) | PyTorch defaults (TF32 convolutions) | deeplda / PyTorch fp32 | deeplda / PyTorch defaults |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	cell := func(m map[string]float64, k string, ofPeak bool) (string, float64, bool) {
		v, ok := m[k]
		if !ok {
			return "-", 0, false
		}
		s := rate(v)
		if ofPeak && peak > 0 {
			s += fmt.Sprintf(" (%.0f%%)", 100*v/peak)
		}
		return s, v, true
	}
	row := func(label string, engines [3]map[string]float64, k string, ofPeak bool) {
		var cells [3]string
		var vs [3]float64
		var oks [3]bool
		for i, m := range engines {
			cells[i], vs[i], oks[i] = cell(m, k, ofPeak)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", label, cells[0], cells[1], cells[2],
			ratio(vs[0], vs[1], oks[0], oks[1]), ratio(vs[0], vs[2], oks[0], oks[2]))
	}
	mm := [3]map[string]float64{r.MatmulGFLOPS, r.PyTorchMatmulGFLOPS["fp32"], r.PyTorchMatmulGFLOPS["default"]}
	for _, s := range sizeKeys(mm[:]...) {
		row(fmt.Sprintf("matmul %s, GFLOP/s", s), mm, s, true)
	}
	conv := [3]map[string]float64{r.ConvNetImagesPerSecond["deeplda"], r.ConvNetImagesPerSecond["pytorch_fp32"], r.ConvNetImagesPerSecond["pytorch_default"]}
	for _, batch := range sizeKeys(conv[:]...) {
		row(fmt.Sprintf("ConvNet step, batch %s, images/s", batch), conv, batch, false)
	}
	if len(r.ToyImagesPerSecond) > 0 {
		toy := [3]map[string]float64{}
		for i, e := range []string{"deeplda", "pytorch_fp32", "pytorch_default"} {
			if v, ok := r.ToyImagesPerSecond[e]; ok {
				toy[i] = map[string]float64{"": v}
			}
		}
		label := "toy step, images/s"
		for _, d := range r.DeepLDA {
			if d.Model == "mlp" && d.Batch > 0 {
				label = fmt.Sprintf("toy step, batch %d, images/s", d.Batch)
			}
		}
		row(label, toy, "", false)
	}
}

// writeKernels writes the table of deeplda's device time per ConvNet step
// at the largest batch by kernel (by op family where the record has no
// kernels' times), longest first, with each one's share.
func (r *gpuRecord) writeKernels(b *bytes.Buffer) {
	var step *experiment.BenchResult
	for i := range r.DeepLDA {
		if d := &r.DeepLDA[i]; d.Model == "convnet" && (step == nil || d.Batch > step.Batch) {
			step = d
		}
	}
	if step == nil {
		b.WriteString("The record has no deeplda ConvNet step.\n")
		return
	}
	times, what := step.GPUMsKernels, "kernel"
	if len(times) == 0 {
		times, what = step.GPUMs, "op family"
	}
	if len(times) == 0 {
		why := step.GPUMsUnavailable
		if why == "" {
			why = "not recorded"
		}
		fmt.Fprintf(b, "deeplda's device time per ConvNet step at batch %d is not in the record (%s).\n", step.Batch, why)
		return
	}
	total := 0.0
	for _, v := range times {
		total += v
	}
	names := slices.SortedFunc(maps.Keys(times), func(x, y string) int {
		return cmp.Or(cmp.Compare(times[y], times[x]), cmp.Compare(x, y))
	})
	fmt.Fprintf(b, "deeplda's device time per ConvNet step at batch %d by %s (timestamp queries, in a run apart from the wall-clock one: %.2f ms in all, against a wall-clock step of %.2f ms):\n\n",
		step.Batch, what, total, 1000*step.SecondsPerStep)
	fmt.Fprintf(b, "| %s | ms per step | share |\n| --- | --- | --- |\n", what)
	for _, n := range names {
		fmt.Fprintf(b, "| %s | %.3f | %.1f%% |\n", n, times[n], 100*times[n]/total)
	}
	fmt.Fprintf(b, "| all | %.3f | 100%% |\n", total)
}

// writeTiles writes, where the record has them, the GEMMs' rates on each
// tile (a column a tile, then the second's over the first's) and the
// suite's rates with every GEMM on one tile against the backend's own
// choice. It reports whether it wrote anything.
func (r *gpuRecord) writeTiles(b *bytes.Buffer) bool {
	wrote := false
	if len(r.Tiles) > 0 {
		var gemms, tiles []string
		rate := map[[2]string]float64{}
		for _, t := range r.Tiles {
			if !slices.Contains(gemms, t.GEMM) {
				gemms = append(gemms, t.GEMM)
			}
			if !slices.Contains(tiles, t.Tile) {
				tiles = append(tiles, t.Tile)
			}
			rate[[2]string{t.GEMM, t.Tile}] = t.GFLOPS
		}
		b.WriteString("deeplda's GEMMs on each tile (rows of C by 128 columns a workgroup x slice depth; `go test -bench Tiles ./kernels/webgpu`), GFLOP/s:\n\n| GEMM |")
		for _, t := range tiles {
			fmt.Fprintf(b, " %s |", t)
		}
		if len(tiles) == 2 {
			fmt.Fprintf(b, " %s / %s |", tiles[1], tiles[0])
		}
		b.WriteString("\n|" + strings.Repeat(" --- |", 1+len(tiles)+min(1, len(tiles)/2)) + "\n")
		for _, g := range gemms {
			fmt.Fprintf(b, "| %s |", g)
			for _, t := range tiles {
				v, ok := rate[[2]string{g, t}]
				fmt.Fprintf(b, " %s |", rateOr(v, ok))
			}
			if len(tiles) == 2 {
				x, okX := rate[[2]string{g, tiles[1]}]
				y, okY := rate[[2]string{g, tiles[0]}]
				fmt.Fprintf(b, " %s |", ratio(x, y, okX, okY))
			}
			b.WriteString("\n")
		}
		wrote = true
	}
	for _, tile := range slices.Sorted(maps.Keys(r.TileSuites)) {
		s := r.TileSuites[tile]
		if wrote {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "The suite with every GEMM on the %s tile (`DEEPLDA_WEBGPU_TILE=%s`) against the backend's own choice, in the same run:\n\n", tile, tile)
		fmt.Fprintf(b, "| benchmark | backend's choice | %s everywhere | choice / %s |\n| --- | --- | --- | --- |\n", tile, tile)
		for _, size := range sizeKeys(r.MatmulGFLOPS, s.MatmulGFLOPS) {
			x, okX := r.MatmulGFLOPS[size]
			y, okY := s.MatmulGFLOPS[size]
			fmt.Fprintf(b, "| matmul %s, GFLOP/s | %s | %s | %s |\n", size, rateOr(x, okX), rateOr(y, okY), ratio(x, y, okX, okY))
		}
		for _, batch := range sizeKeys(r.ConvNetImagesPerSecond["deeplda"], s.ConvNetImagesPerSecond) {
			x, okX := r.ConvNetImagesPerSecond["deeplda"][batch]
			y, okY := s.ConvNetImagesPerSecond[batch]
			fmt.Fprintf(b, "| ConvNet step, batch %s, images/s | %s | %s | %s |\n", batch, rateOr(x, okX), rateOr(y, okY), ratio(x, y, okX, okY))
		}
		wrote = true
	}
	return wrote
}

// rateOr is rate(v), or a dash where there is no v.
func rateOr(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return rate(v)
}

// writeConformance writes the WebGPU tests' counts on the adapter, their
// failures, and the golden trajectory's drift per engine and device.
func (r *gpuRecord) writeConformance(b *bytes.Buffer) {
	c := r.Conformance
	fmt.Fprintf(b, "Conformance (the WebGPU tests on the adapter, subtests included): %d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
	if len(c.Failures) > 0 {
		quoted := make([]string, len(c.Failures))
		for i, f := range c.Failures {
			quoted[i] = "`" + f + "`"
		}
		fmt.Fprintf(b, "; failed: %s", strings.Join(quoted, ", "))
	}
	b.WriteString(".\n")
	if len(r.Trajectory) == 0 {
		return
	}
	b.WriteString("\nThe golden trajectory (PyTorch's run on the CPU) replayed by deeplda on the adapter and by PyTorch on the machine's devices: the largest relative loss difference in the first 5 steps and in all, the relative L2 error of the test scores, and the test images classified correctly (of 512) against the golden run's:\n\n")
	b.WriteString("| engine | device | head | loss drift, first 5 steps | loss drift, all steps | score error | correct | golden correct |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, t := range r.Trajectory {
		fmt.Fprintf(b, "| %s | %s | %s | %.3g | %.3g | %.3g | %d | %d |\n",
			t.Engine, t.Device, t.Head, t.FirstLosses, t.Losses, t.Logits, t.Correct, t.GoldenCorrect)
	}
}
