package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"time"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// benchResult is the JSON line that bench prints.
type benchResult struct {
	Backend         kernels.Info `json:"backend"`
	Model           string       `json:"model"`
	Batch           int          `json:"batch,omitempty"`
	Size            int          `json:"size,omitempty"`
	Steps           int          `json:"steps"`
	SecondsPerStep  float64      `json:"seconds_per_step"`
	ImagesPerSecond float64      `json:"images_per_second,omitempty"`
	GFLOPS          float64      `json:"gflops"`
}

// convnetFLOPs is the forward and backward work of the paper's ConvNet per
// 28x28 image (116 M multiply-adds forward, three times that in all).
const convnetFLOPs = 695.5e6

// benchCmd times training steps of a model, or a square matrix product, on
// a backend and prints one JSON line.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	backend := fs.String("backend", "auto", "compute backend: cpu, webgpu or auto")
	which := fs.String("model", "convnet", "what to time: convnet (a training step on 28x28 inputs), mlp (a toy training step) or matmul (an SxSxS product)")
	batch := fs.Int("batch", 64, "batch size (convnet, mlp)")
	size := fs.Int("size", 1024, "matrix size S (matmul)")
	steps := fs.Int("steps", 10, "timed steps (after one untimed warm-up step)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed steps to this file (go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deeplda bench [flags]\n\nTimes the backend and prints one JSON line.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *batch < 1 || *size < 1 || *steps < 1 {
		return usageError{fmt.Errorf("-batch, -size and -steps must be positive")}
	}
	be, err := openBackendNote(*backend, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	res := benchResult{Backend: be.Info(), Model: *which, Steps: *steps}
	var step func()
	var flops float64
	switch *which {
	case "matmul":
		s := *size
		a, b, c := be.Alloc(kernels.Float32, s, s), be.Alloc(kernels.Float32, s, s), be.Alloc(kernels.Float32, s, s)
		be.Write(a, randn(s*s))
		be.Write(b, randn(s*s))
		step = func() { be.MatMul(c, a, b, nil, false, false) }
		flops, res.Size = 2*float64(s)*float64(s)*float64(s), s
	case "convnet", "mlp":
		spec := model.Spec{Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
			Head: model.HeadLDA, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
		flops = convnetFLOPs * float64(*batch)
		if *which == "mlp" {
			spec = model.Spec{Encoder: model.EncoderMLP, Input: []int{2}, Classes: 3, Dim: 2,
				Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1}
			flops = float64(*batch) * 6 * (2*32 + 32*2) // linear layers, forward and backward
		}
		m, err := model.New(be, spec)
		if err != nil {
			return err
		}
		x := be.Alloc(kernels.Float32, append([]int{*batch}, spec.Input...)...)
		be.Write(x, randn(*batch*kernels.Numel(spec.Input)))
		y := be.Alloc(kernels.Int32, *batch)
		labels := make([]int32, *batch)
		for i := range labels {
			labels[i] = int32(i % spec.Classes)
		}
		be.WriteInt(y, labels)
		step = func() { m.TrainStep(x, y) }
		res.Batch = *batch
	default:
		return usageError{fmt.Errorf("-model must be convnet, mlp or matmul, got %q", *which)}
	}
	step()
	if err := be.Sync(); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	for i := 0; i < *steps; i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		step()
	}
	if err := be.Sync(); err != nil {
		return err
	}
	sec := time.Since(start).Seconds() / float64(*steps)
	res.SecondsPerStep = sec
	res.GFLOPS = flops / sec / 1e9
	if *which != "matmul" {
		res.ImagesPerSecond = float64(*batch) / sec
	}
	return json.NewEncoder(stdout).Encode(res)
}

func randn(n int) []float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}
