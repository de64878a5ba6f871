package traintest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/data"
	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// TrajectoryTolerance bounds how far a backend's run of
// fmnist_trajectory.safetensors may drift from PyTorch's.
//
// Measured: PyTorch against itself (1 thread instead of 2) differs by up to
// 1.5e-4 relative in the first 5 losses and 9e-3 in all 30
// (golden/README.md). The evaluation-mode outputs after 30 steps are
// chaotic: the golden run classifies 326 of the 512 test images correctly
// with the softmax head, PyTorch with 2 threads 323 and in float64 324, and
// our CPU backend, when one bias of the initial parameters is scaled by
// 1+k*1e-6 (k = 0..4), between 317 and 325; the relative L2 distance of the
// scores to the golden ones is 3.5e-2 to 7.6e-2 (PyTorch float64: 6.0e-2,
// 2 threads: 7.1e-2). The LDA head is steadier (1 image, 2.6e-2 on the
// CPU backend). The defaults leave room for that spread.
type TrajectoryTolerance struct {
	// FirstLosses bounds |got-want|/|want| for the first 5 losses.
	FirstLosses float64
	// Losses bounds |got-want|/|want| for every loss.
	Losses float64
	// AccuracyImages bounds the difference in correctly classified
	// images among the first 512 test images (evaluation mode).
	AccuracyImages int
	// Logits bounds the relative L2 error ||got-want||/||want|| of the
	// evaluation-mode scores on those images (delta for the LDA head).
	Logits float64
}

// DefaultTrajectoryTolerance is the tolerance of Trajectory when none is
// given: 5e-4 for the first 5 losses, 2e-2 for all 30, 4 images of 512 (the
// bound the project asks for; the perturbation figures above, measured
// before BatchNorm's sums moved to float64, show it is tight; with them the
// CPU backend is 3 images off for the LDA head and 2 for softmax) and a
// relative L2 error of 0.15 for the test scores.
var DefaultTrajectoryTolerance = TrajectoryTolerance{FirstLosses: 5e-4, Losses: 2e-2, AccuracyImages: 4, Logits: 0.15}

// GPUTrajectoryTolerance is the tolerance of the trajectory on a GPU, set
// from PyTorch's own replay of the golden run (PyTorch on the CPU) on an
// NVIDIA H100 (bench/pytorch_trajectory.py, in bench/gpu.sh's record
// bench/results/gpu-nvidia-h100-80gb-hbm3-discrete-gpu-vulkan.json): in
// fp32 with TF32 off it drifts by up to 8.4e-4 in the first 5 losses
// (softmax), 8.9e-3 in all 30 and 0.109 in the test scores, and
// classifies 6 (LDA) and 7 (softmax) of the 512 test images otherwise than
// the golden run; with cuDNN's TF32 convolutions (its default) by 1.9e-3
// and 1.2e-2. A GPU sums its reductions in other orders than a CPU, and
// contracts multiply-adds, so the run diverges from the CPU's as PyTorch's
// does: 2e-3 for the first 5 losses, 2e-2 for all, 12 images and 0.15 for
// the scores leave room for that spread (PyTorch on the CPU, with
// parameters perturbed by 1e-6, is up to 9 images off; see
// TrajectoryTolerance). The WebGPU backend on that H100 measured 1.05e-3,
// 1.2e-2, 7 and 10 images, and 0.041 and 0.108. Its shaders sum in the
// same orders on a CPU implementation of WebGPU, where the first 5 losses
// land anywhere below about 1e-3 as well: a change of summation order in
// BatchNorm's statistics moved them from 2.3e-4 and 3.9e-4 (LDA, softmax)
// to 1.4e-4 and 8.6e-4 on lavapipe, while traintest.Lockstep's gradients
// stayed within 5e-3 of the CPU backend's; the ReLUs' kinks make the
// first steps' gradients that sensitive.
var GPUTrajectoryTolerance = TrajectoryTolerance{FirstLosses: 2e-3, Losses: 2e-2, AccuracyImages: 12, Logits: 0.15}

// SIMDTrajectoryTolerance is the tolerance of the trajectory on the CPU
// backend's WebAssembly SIMD path (the page's, under Node.js with relaxed
// SIMD): DefaultTrajectoryTolerance's losses, which it meets (its first 5
// losses are within 3.3e-4 of PyTorch's), and GPUTrajectoryTolerance's 12
// images for the accuracy after 30 steps. That path convolves by F(2x2,
// 3x3) in the SIMD module, contracts the products' multiply-adds
// (relaxed_madd) and sums BatchNorm's statistics in other orders, so its
// run drifts from the golden one as a GPU's does; and the evaluation at
// the end is chaotic on every path (bench/trajectory_spread.sh, which
// scales the softmax head's last initial bias by 1+k*1e-6, k = 0..8): the
// SIMD path classifies 312 to 327 of the 512 test images correctly (320
// unperturbed), plain SIMD 316 to 327, the native backend 318 to 329
// (323 unperturbed), against PyTorch's 326. The default's 4
// images hold for the native backend's unperturbed run, not for all of
// its perturbed ones (318 at k = 6).
var SIMDTrajectoryTolerance = TrajectoryTolerance{
	FirstLosses:    DefaultTrajectoryTolerance.FirstLosses,
	Losses:         DefaultTrajectoryTolerance.Losses,
	AccuracyImages: GPUTrajectoryTolerance.AccuracyImages,
	Logits:         DefaultTrajectoryTolerance.Logits,
}

// trajectory constants of gen_golden.py's trajectory_case.
const (
	trajSteps = 30
	trajBatch = 64
	trajTest  = 512
)

// Trajectory replays PyTorch's short Fashion-MNIST training run of
// fmnist_trajectory.safetensors on be, for the LDA head (spherical, DNLL
// with lambda 0.01) and the softmax head (CE): from the file's initial
// parameters (lda/init/*, softmax/init/*), 30 Adam steps (lr 1e-3) over the
// first 1920 training images in file order, batch 64, no shuffling, inputs
// (x/255-0.2860)/0.3530 read with data/images from ../shared/datasets; it
// compares the loss of every batch (before its step), then the
// evaluation-mode scores and accuracy on the first 512 test images. tol
// overrides DefaultTrajectoryTolerance.
//
// The first losses are sensitive to the accuracy of long reductions: a
// backend that sums the BatchNorm statistics and their gradients (50,176
// values per channel at batch 64) sequentially in float32 drifts by 2e-3
// after 3 steps, 15 times what PyTorch's float32 drifts from float64.
//
// In -short mode only the first 5 steps run and the evaluation is skipped.
func Trajectory(t *testing.T, be kernels.Backend, tol ...TrajectoryTolerance) {
	tl := DefaultTrajectoryTolerance
	if len(tol) > 0 {
		tl = tol[0]
	}
	trajectory(t, be, testing.Short(), tl)
}

// TrajectoryFirst is Trajectory's -short form, its first 5 steps without
// the evaluation, whatever the flags: for a backend on which the whole
// run takes too long for a test suite (a CPU implementation of WebGPU).
func TrajectoryFirst(t *testing.T, be kernels.Backend, tol TrajectoryTolerance) {
	trajectory(t, be, true, tol)
}

// trajectoryData reads the trajectory's golden file and its training and
// test images.
func trajectoryData(t *testing.T) (f *safetensors.File, train, test data.Dataset) {
	f = Open(t, "fmnist_trajectory")
	spec, err := images.Lookup("fashion-mnist")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("DEEPLDA_SHARED") != "" {
		// bench/gpu.sh's copy: the first images only (tools/gpucarry,
		// which read them from the verified files).
		for _, files := range [][]images.File{spec.Train, spec.Test} {
			for i := range files {
				files[i].SHA256 = ""
			}
		}
	}
	trainSet, testSet, err := images.LoadSpec(spec, filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist"))
	if err != nil {
		t.Fatal(err)
	}
	return f, trainSet.Dataset(trajSteps * trajBatch), testSet.Dataset(trajTest)
}

// trajectorySpec is the model of the trajectory's run with the head.
func trajectorySpec(head model.HeadKind) model.Spec {
	spec := model.Spec{
		Encoder: model.EncoderConvNet, Input: []int{1, 28, 28}, Classes: 10, Dim: 9,
		Head: head, Cov: kernels.Spherical, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3,
	}
	if head == model.HeadSoftmax {
		spec.Loss, spec.Lambda = kernels.CE, 0
	}
	return spec
}

// trajectory is Trajectory, with only the first 5 steps when short.
func trajectory(t *testing.T, be kernels.Backend, short bool, tl TrajectoryTolerance) {
	f, xs, xt := trajectoryData(t)
	steps := trajSteps
	if short {
		steps = 5
	}
	for _, head := range []model.HeadKind{model.HeadLDA, model.HeadSoftmax} {
		kind := head.String()
		t.Run(kind, func(t *testing.T) {
			m, err := model.New(be, trajectorySpec(head))
			if err != nil {
				t.Fatal(err)
			}
			if err := perturb(f, kind, os.Getenv("DEEPLDA_TRAJECTORY_PERTURB")); err != nil {
				t.Fatal(err)
			}
			if err := m.LoadState(f, kind+"/init/"); err != nil {
				t.Fatal(err)
			}
			want := func(name string) []float32 {
				v, ok := f.Tensors[kind+"/"+name]
				if !ok {
					t.Fatalf("golden file lacks %s/%s", kind, name)
				}
				return v.F32
			}
			wantLoss := want("losses")
			x := be.Alloc(kernels.Float32, trajBatch, 1, 28, 28)
			y := be.Alloc(kernels.Int32, trajBatch)
			defer be.Free(x)
			defer be.Free(y)
			buf := make([]float32, trajBatch*xs.Size())
			worstFirst, worstAll := 0.0, 0.0
			for s := 0; s < steps; s++ {
				be.Write(x, xs.Rows(buf, s*trajBatch, (s+1)*trajBatch))
				be.WriteInt(y, xs.Y[s*trajBatch:(s+1)*trajBatch])
				m.ResetStats()
				m.TrainStep(x, y)
				st, err := m.ReadStats()
				if err != nil {
					t.Fatal(err)
				}
				w := float64(wantLoss[s])
				rel := math.Abs(st.Loss-w) / math.Abs(w)
				worstAll = max(worstAll, rel)
				lim := tl.Losses
				if s < 5 {
					worstFirst = max(worstFirst, rel)
					lim = tl.FirstLosses
				}
				t.Logf("step %2d: loss %.7g, PyTorch %.7g, relative difference %.2e", s, st.Loss, w, rel)
				if !(rel <= lim) {
					t.Errorf("loss of step %d: %.6g, PyTorch %.6g (relative difference %.2e > %.0e)", s, st.Loss, w, rel, lim)
				}
			}
			t.Logf("%d steps: largest relative loss difference %.2e in the first 5, %.2e overall", steps, worstFirst, worstAll)
			if worstFirst > tl.FirstLosses {
				t.Errorf("the first losses drift from PyTorch's faster than float32 rounding explains (PyTorch against float64: 3e-4 after 5 steps); " +
					"look for long float32 sums, such as the BatchNorm statistics and their gradients over N*H*W = 50,176 values per channel, " +
					"which need float64 or pairwise accumulation")
			}
			if steps < trajSteps {
				t.Logf("short: %d of %d steps, evaluation skipped", steps, trajSteps)
				return
			}
			out, err := train.Evaluate(m, xt, trajTest, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantScores := want("test512_logits")
			if r := RelErr(out.Scores, wantScores); !(r <= tl.Logits) {
				t.Errorf("test512_logits: relative L2 error %.3g > %g", r, tl.Logits)
			} else {
				t.Logf("test512_logits: relative L2 error %.3g", r)
			}
			got := correct(out.Scores, xt.Y, 10)
			wantAcc := float64(want("test512_accuracy")[0])
			wantN := int(math.Round(wantAcc * trajTest))
			if d := got - wantN; d > tl.AccuracyImages || -d > tl.AccuracyImages {
				t.Errorf("test accuracy on %d images: %d correct, PyTorch %d (more than %d apart)", trajTest, got, wantN, tl.AccuracyImages)
			} else {
				t.Logf("test accuracy on %d images: %d correct, PyTorch %d", trajTest, got, wantN)
			}
		})
	}
}

// perturb scales the first value of the last bias among head's initial
// parameters in f (by name: the softmax head's linear layer's, the LDA
// run's projection's) by 1+k*1e-6, k the integer in env, to measure how
// chaotic the run's end is (bench/trajectory_spread.sh); nothing where env
// is empty or 0.
func perturb(f *safetensors.File, head, env string) error {
	if env == "" {
		return nil
	}
	k, err := strconv.Atoi(env)
	if err != nil {
		return fmt.Errorf("DEEPLDA_TRAJECTORY_PERTURB=%q: not a whole number", env)
	}
	if k == 0 {
		return nil
	}
	var last string
	for name := range f.Tensors {
		if strings.HasPrefix(name, head+"/init/") && strings.HasSuffix(name, ".bias") && !strings.Contains(name, ".bn") && name > last {
			last = name
		}
	}
	if last == "" {
		return fmt.Errorf("no bias among %s's initial parameters", head)
	}
	v := f.Tensors[last]
	v.F32[0] *= float32(1 + float64(k)*1e-6)
	return nil
}

// correct counts the rows of scores whose argmax is the label.
func correct(scores []float32, y []int32, c int) int {
	if len(scores) != len(y)*c {
		panic(fmt.Sprintf("traintest: %d scores for %d labels of %d classes", len(scores), len(y), c))
	}
	n := 0
	for i, l := range y {
		row := scores[i*c : (i+1)*c]
		best := 0
		for k, v := range row {
			if v > row[best] {
				best = k
			}
		}
		if best == int(l) {
			n++
		}
	}
	return n
}
