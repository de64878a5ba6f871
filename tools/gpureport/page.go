package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/deeplda/deeplda/internal/gpurecord"
)

// pageGoal is the least fraction of the native ConvNet step's rate that
// the page's must reach at the largest batch.
const pageGoal = 0.8

// runPage builds the record of bench/page_gpu.sh's folder dir and writes
// it there. Unless short, it then returns an error, with the record's
// path, when the page ran on a CPU implementation of WebGPU or missed
// pageGoal.
func runPage(dir, commit string, short bool) (string, error) {
	r := gpurecord.PageRecord{Commit: commit, Short: short}
	b, err := os.ReadFile(filepath.Join(dir, "page.json"))
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &r.Page); err != nil {
		return "", fmt.Errorf("page.json: %w", err)
	}
	if len(r.Page.Results) == 0 {
		return "", errors.New("page.json: no results")
	}
	r.Adapter = r.Page.Adapter.Name()
	// The native suite, read as bench/gpu.sh's record reads it.
	var n gpurecord.Record
	n.MatmulGFLOPS, n.ConvNetImagesPerSecond, n.ToyImagesPerSecond = map[string]float64{}, map[string]map[string]float64{"deeplda": {}}, map[string]float64{}
	if err := readSuite(filepath.Join(dir, "suite.jsonl"), &n); err != nil {
		return "", err
	}
	r.NativeAdapter, r.NativeAdapterDetails, r.Native = n.Adapter, n.AdapterDetails, n.DeepLDA
	r.MatmulGFLOPS = map[string]map[string]float64{"native": n.MatmulGFLOPS, "page": {}}
	r.ConvNetImagesPerSecond = map[string]map[string]float64{"native": n.ConvNetImagesPerSecond["deeplda"], "page": {}}
	r.ToyImagesPerSecond = map[string]float64{"native": n.ToyImagesPerSecond["deeplda"]}
	for _, x := range r.Page.Results {
		switch x.Model {
		case "matmul":
			r.MatmulGFLOPS["page"][strconv.Itoa(x.Size)] = x.GFLOPS
		case "convnet":
			r.ConvNetImagesPerSecond["page"][strconv.Itoa(x.Batch)] = x.ImagesPerSecond
			if native := r.ConvNetImagesPerSecond["native"][strconv.Itoa(x.Batch)]; native > 0 && x.Batch > r.ConvNetGoal.Batch {
				r.ConvNetGoal = gpurecord.PageGoal{Batch: x.Batch, Ratio: x.ImagesPerSecond / native, Min: pageGoal}
			}
		case "mlp":
			r.ToyImagesPerSecond["page"] = x.ImagesPerSecond
		}
	}
	r.ConvNetGoal.Met = r.ConvNetGoal.Batch > 0 && r.ConvNetGoal.Ratio >= pageGoal
	// The page's test, then the other browser tests (absent when the
	// script did not run them).
	for _, name := range []string{"page.jsonl", "conformance.jsonl"} {
		c, _, err := readConformance(filepath.Join(dir, name), r.Adapter)
		if errors.Is(err, os.ErrNotExist) {
			c = gpurecord.Conformance{Failed: 1, Failures: []string{"(" + name + " is missing: the tests did not run)"}}
		} else if err != nil {
			return "", err
		}
		r.Conformance.Passed += c.Passed
		r.Conformance.Failed += c.Failed
		r.Conformance.Skipped += c.Skipped
		r.Conformance.Failures = append(r.Conformance.Failures, c.Failures...)
		r.Conformance.Skips = append(r.Conformance.Skips, c.Skips...)
	}
	if gpu, err := readGPU(filepath.Join(dir, "gpu.csv")); err == nil {
		r.GPU = gpu
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	b, err = json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "gpu-"+Slug(r.NativeAdapter)+"-page.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	switch g := r.ConvNetGoal; {
	case short:
	case r.Page.Adapter.Software:
		return path, fmt.Errorf("the page ran on %q, a CPU implementation of WebGPU, not on the GPU", r.Adapter)
	case !g.Met:
		return path, fmt.Errorf("the page's ConvNet step at batch %d runs at %.2fx the native one's rate, less than %.2fx", g.Batch, g.Ratio, g.Min)
	}
	return path, nil
}
