// Package kernels defines the small set of tensor operations that Deep LDA
// training needs, as an interface over tensors that live on a backend.
//
// A Backend owns its tensors' memory (host slices for the CPU backend, GPU
// buffers for WebGPU). Operations are recorded in program order; results are
// only guaranteed to be visible to Read after the operations that produce
// them, and Read and Sync report device failures. Every operation writes its
// outputs (it never accumulates into them) unless its comment says otherwise.
//
// Layouts are row-major; images are NCHW; Linear weights are [out, in];
// convolution weights are [out, in, kh, kw], as in PyTorch.
//
// Shape mismatches are programmer errors: operations panic with a message
// prefixed "kernels:" naming the op and the shapes, through the checks of
// this package (MatMulDims, CheckConv, HeadDims, ...), which every backend
// uses, so that all reject the same calls. Device failures (a lost GPU, a
// failed pipeline) are returned by Sync and Read.
package kernels

import (
	"fmt"
	"strings"
)

// DType is the element type of a tensor.
type DType uint8

// The element types a backend supports.
const (
	Float32 DType = iota
	Int32
)

// String returns the safetensors name of the type.
func (d DType) String() string {
	if d == Int32 {
		return "I32"
	}
	return "F32"
}

// ViewAlign is the element alignment that View offsets must respect. It makes
// views bindable as GPU storage buffers (256-byte offset alignment).
const ViewAlign = 64

// AlignUp rounds n up to a multiple of ViewAlign.
func AlignUp(n int) int { return (n + ViewAlign - 1) / ViewAlign * ViewAlign }

// Tensor is a handle to an n-dimensional array resident on a Backend.
type Tensor interface {
	Shape() []int
	DType() DType
}

// Numel returns the number of elements of a shape (1 for a scalar).
func Numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// Len returns the number of elements of t.
func Len(t Tensor) int { return Numel(t.Shape()) }

// ShapeString formats a shape as [a b c].
func ShapeString(shape []int) string { return fmt.Sprint(shape) }

// Info describes a backend for reports: its name and the adapter it runs on.
type Info struct {
	Name    string `json:"name"`
	Adapter string `json:"adapter"`
}

// CovKind selects the covariance parameterisation of the LDA head.
type CovKind int

// Covariance kinds. Spherical: one log_var (Sigma = exp(log_var) I).
// Diagonal: log_var[D]. Full: raw_tril[D,D] with Sigma = L L^T where
// L = strict_lower(raw) + diag(softplus(diag(raw)) + MinScale).
const (
	Spherical CovKind = iota
	Diagonal
	Full
)

// MinScale is the floor added to the Cholesky diagonal of the full head.
const MinScale = 1e-4

var covNames = []string{"spherical", "diag", "full"}

// String returns the flag spelling of the covariance kind.
func (c CovKind) String() string { return covNames[c] }

// ParseCov parses "spherical", "diag" (or "diagonal") and "full".
func ParseCov(s string) (CovKind, error) {
	switch strings.ToLower(s) {
	case "spherical":
		return Spherical, nil
	case "diag", "diagonal":
		return Diagonal, nil
	case "full":
		return Full, nil
	}
	return 0, fmt.Errorf("unknown covariance %q (want spherical, diag or full)", s)
}

// CovShape returns the shape of the covariance parameter for dimension d.
func (c CovKind) CovShape(d int) []int {
	switch c {
	case Spherical:
		return []int{}
	case Diagonal:
		return []int{d}
	}
	return []int{d, d}
}

// LossKind selects the training loss over per-class scores (logits or the
// LDA discriminants delta).
type LossKind int

// Loss kinds: NLL = mean of -delta_y; CE = cross-entropy with the scores as
// logits; DNLL = mean of -delta_y + lambda * sum_c exp(delta_c).
const (
	NLL LossKind = iota
	CE
	DNLL
)

var lossNames = []string{"nll", "ce", "dnll"}

// String returns the flag spelling of the loss.
func (l LossKind) String() string { return lossNames[l] }

// ParseLoss parses "nll", "ce" and "dnll".
func ParseLoss(s string) (LossKind, error) {
	for i, n := range lossNames {
		if strings.ToLower(s) == n {
			return LossKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown loss %q (want nll, ce or dnll)", s)
}

// Slots of the statistics tensor that Loss accumulates into. The tensor has
// StatsLen float32 elements; StatBadStep holds the first step whose loss was
// not finite, or -1 while all were finite (set it with Fill before training).
const (
	StatLoss    = 0 // sum over examples of the loss
	StatCorrect = 1 // number of examples whose argmax score is the label
	StatCount   = 2 // number of examples
	StatBadStep = 3 // first step with a non-finite loss, -1 if none
	StatsLen    = 4
)

// ConvParams are the geometry of a 2-D convolution (square kernels come from
// the weight's shape).
type ConvParams struct {
	Stride, Pad int
}

// OutSize returns the output extent for an input extent and kernel size.
func (p ConvParams) OutSize(in, k int) int { return (in+2*p.Pad-k)/p.Stride + 1 }

// AdamParams are the hyper-parameters of one Adam step (PyTorch's
// formulation: bias corrections 1-beta^t applied to the step size and to the
// second moment).
type AdamParams struct {
	LR, Beta1, Beta2, Eps float64
	Step                  int // 1-based step number t
}

// ReLUFuser is implemented by backends that can fold a ReLU into the
// matrix product next to it, saving a pass over the activations; the model
// uses it for a Linear layer followed by a ReLU. The results are those of
// the unfused operations, bit for bit.
type ReLUFuser interface {
	// MatMulReLU computes c = max(op(a) op(b) + bias, 0): MatMul, then ReLU
	// in place.
	MatMulReLU(c, a, b, bias Tensor, transA, transB bool)
	// MatMulMasked computes c = op(a) op(b) where y > 0, else 0: MatMul,
	// then ReLUBackward in place with the ReLU's output y (c's shape; not
	// c itself).
	MatMulMasked(c, a, b, y Tensor, transA, transB bool)
}

// Backend is a device that stores tensors and runs the operations of Deep LDA
// training on them.
type Backend interface {
	// Info names the backend and its adapter.
	Info() Info

	// Alloc returns a zeroed tensor.
	Alloc(dt DType, shape ...int) Tensor
	// View returns a tensor sharing t's memory from element offset on, with
	// the given shape. offset must be a multiple of ViewAlign.
	View(t Tensor, offset int, shape ...int) Tensor
	// Free releases t's memory (views of it become invalid). Freeing a view
	// does nothing.
	Free(t Tensor)
	// Write copies host data into a Float32 tensor; WriteInt into an Int32 one.
	Write(t Tensor, data []float32)
	WriteInt(t Tensor, data []int32)
	// Read copies a Float32 tensor to the host; ReadInt an Int32 one. They
	// wait for the operations recorded before them.
	Read(t Tensor) ([]float32, error)
	ReadInt(t Tensor) ([]int32, error)
	// Fill sets every element of a Float32 tensor to v.
	Fill(t Tensor, v float32)
	// Copy copies src into dst (same number of elements and type).
	Copy(dst, src Tensor)
	// Sync waits for all recorded operations and reports a device failure.
	Sync() error
	// Close releases the device.
	Close()

	// MatMul computes c[M,N] = op(a) op(b) (+ bias[N] on every row when bias
	// is not nil), op(x) being x or its transpose. All operands are 2-D.
	MatMul(c, a, b, bias Tensor, transA, transB bool)
	// BiasGrad computes db[c] = sum of dy[n, c, ...] over n and the trailing
	// dimensions: the gradient of a per-channel bias.
	BiasGrad(db, dy Tensor)

	// Conv2D computes y[N,Co,Ho,Wo] = conv(x[N,Ci,H,W], w[Co,Ci,K,K]) + bias[Co]
	// (bias may be nil).
	Conv2D(y, x, w, bias Tensor, p ConvParams)
	// Conv2DBackwardData computes dx from dy and w.
	Conv2DBackwardData(dx, dy, w Tensor, p ConvParams)
	// Conv2DBackwardFilter computes dw from dy and x.
	Conv2DBackwardFilter(dw, dy, x Tensor, p ConvParams)

	// BatchNormTrain normalises x[N,C,...] with its batch statistics, writes
	// them to mean[C] and invStd[C] (1/sqrt(biased var + eps)) for the backward
	// pass, scales by gamma and shifts by beta into y, and updates the running
	// estimates: run = (1-momentum) run + momentum stat, using the unbiased
	// variance for runVar.
	BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar Tensor, momentum, eps float32)
	// BatchNormEval normalises x with the running estimates.
	BatchNormEval(y, x, gamma, beta, runMean, runVar Tensor, eps float32)
	// BatchNormBackward computes dx, dgamma and dbeta of BatchNormTrain.
	BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd Tensor)

	// ReLU computes y = max(x, 0); y may be x.
	ReLU(y, x Tensor)
	// ReLUBackward computes dx = dy where y > 0, else 0; dx may be dy.
	ReLUBackward(dx, dy, y Tensor)
	// MaxPool2 computes the 2x2, stride 2 max pool of x[N,C,H,W] into
	// y[N,C,H/2,W/2] (floor mode).
	MaxPool2(y, x Tensor)
	// MaxPool2Backward routes dy to the first maximum of each window of x.
	MaxPool2Backward(dx, dy, x Tensor)
	// GlobalAvgPool computes y[N,C] as the mean of x[N,C,H,W] over H and W.
	GlobalAvgPool(y, x Tensor)
	// GlobalAvgPoolBackward spreads dy[N,C] evenly over dx[N,C,H,W].
	GlobalAvgPoolBackward(dx, dy Tensor)

	// LDA computes the discriminants delta[N,C] of z[N,D] for the head with
	// prior logits prior[C], means mu[C,D] and covariance parameter cov
	// (log_var [] or [D], or raw_tril [D,D], as kind says):
	// delta_c = log pi_c - 1/2 log det Sigma - 1/2 (z-mu_c)^T Sigma^-1 (z-mu_c).
	LDA(delta, z, prior, mu, cov Tensor, kind CovKind)
	// LDABackward computes the gradients of the head for ddelta.
	LDABackward(dz, dprior, dmu, dcov, ddelta, z, prior, mu, cov Tensor, kind CovKind)

	// Loss adds the batch's loss sum, correct count and size to stats (see
	// StatLoss) and, when dscores is not nil, writes the gradient of the
	// batch-mean loss with respect to scores[N,C] for labels y[N] (Int32).
	// step is recorded in stats[StatBadStep] if the loss is not finite and no
	// earlier step was.
	Loss(dscores, stats, scores, y Tensor, kind LossKind, lambda float32, step int)

	// Adam updates param in place from grad with the moments m and v (all the
	// same length; typically one arena holding every parameter).
	Adam(param, grad, m, v Tensor, p AdamParams)
}

// Mismatch panics with a message naming the op and the shapes involved.
func Mismatch(op string, what string, shapes ...[]int) {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = ShapeString(s)
	}
	panic(fmt.Sprintf("kernels: %s: %s (shapes %s)", op, what, strings.Join(parts, ", ")))
}
