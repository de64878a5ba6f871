//go:build js && wasm

package main

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
)

// pieceMACs is about the work (multiply-adds) of one piece of a split
// convolution: some 20-60 ms of WebAssembly, with the SIMD products
// (15-40 GFLOP/s on one thread) or without (1-2 GFLOP/s). Pieces much
// smaller than that cost time: a ConvNet step trained at 12 images/s with
// pieces of 25 million multiply-adds where it trains at 20-30 with these.
// The size depends only on the kernel, so that a run's numbers do not
// depend on the machine's speed (the filter gradients' sums follow the
// pieces).
var pieceMACs = map[bool]int{false: 25_000_000, true: 400_000_000}[gemm.SIMD()]

// yieldingBackend is the CPU backend for the image runs: the page's thread
// is also the browser's, and one convolution of the ConvNet over a batch
// of 64 images takes seconds in WebAssembly. It runs the convolutions a
// few images at a time (the batch split along N; the filter gradients of
// the pieces summed) and yields to the browser between the pieces and
// after every other operation that took long enough, so the page keeps
// painting and answering clicks while it trains. The results are those of
// the whole batch, up to the order of the filter gradient's float32 sums.
type yieldingBackend struct {
	kernels.Backend
	y *yielder
}

// piece returns how many images of a batch of n one piece of a convolution
// takes: about pieceMACs of work, with every piece's offset in each
// tensor (per-image sizes sizes) a multiple of kernels.ViewAlign. It
// returns n when the batch cannot or need not be split.
func piece(n, macsPerImage int, sizes ...int) int {
	k := max(1, pieceMACs/max(1, macsPerImage))
	for ; k < n; k++ {
		ok := true
		for _, s := range sizes {
			if k*s%kernels.ViewAlign != 0 {
				ok = false
				break
			}
		}
		if ok {
			return k
		}
	}
	return n
}

// convGeometry returns the batch size, the per-image sizes of x and y and
// the work per image of a convolution of x[N,Ci,H,W] into y[N,Co,Ho,Wo]
// with w[Co,Ci,K,K].
func convGeometry(x, y, w kernels.Tensor) (n, xs, ys, macs int) {
	xsh, ysh, wsh := x.Shape(), y.Shape(), w.Shape()
	n = xsh[0]
	xs = kernels.Numel(xsh[1:])
	ys = kernels.Numel(ysh[1:])
	macs = kernels.Numel(wsh) * ysh[2] * ysh[3]
	return n, xs, ys, macs
}

// split runs f on pieces of k images of the tensors (each of per-image
// size sizes[i]), yielding after each piece; first is true for the first.
func (b *yieldingBackend) split(n, k int, ts []kernels.Tensor, sizes []int, f func(first bool, parts []kernels.Tensor)) {
	parts := make([]kernels.Tensor, len(ts))
	for lo := 0; lo < n; lo += k {
		hi := min(lo+k, n)
		for i, t := range ts {
			shape := append([]int{hi - lo}, t.Shape()[1:]...)
			parts[i] = b.Backend.View(t, lo*sizes[i], shape...)
		}
		f(lo == 0, parts)
		b.y.maybe()
	}
}

func (b *yieldingBackend) Conv2D(y, x, w, bias kernels.Tensor, p kernels.ConvParams) {
	n, xs, ys, macs := convGeometry(x, y, w)
	k := piece(n, macs, xs, ys)
	if k >= n {
		b.Backend.Conv2D(y, x, w, bias, p)
		b.y.maybe()
		return
	}
	b.split(n, k, []kernels.Tensor{y, x}, []int{ys, xs}, func(_ bool, t []kernels.Tensor) {
		b.Backend.Conv2D(t[0], t[1], w, bias, p)
	})
}

func (b *yieldingBackend) Conv2DBackwardData(dx, dy, w kernels.Tensor, p kernels.ConvParams) {
	n, xs, ys, macs := convGeometry(dx, dy, w)
	k := piece(n, macs, xs, ys)
	if k >= n {
		b.Backend.Conv2DBackwardData(dx, dy, w, p)
		b.y.maybe()
		return
	}
	b.split(n, k, []kernels.Tensor{dx, dy}, []int{xs, ys}, func(_ bool, t []kernels.Tensor) {
		b.Backend.Conv2DBackwardData(t[0], t[1], w, p)
	})
}

func (b *yieldingBackend) Conv2DBackwardFilter(dw, dy, x kernels.Tensor, p kernels.ConvParams) {
	n, xs, ys, macs := convGeometry(x, dy, dw)
	k := piece(n, macs, xs, ys)
	if k >= n {
		b.Backend.Conv2DBackwardFilter(dw, dy, x, p)
		b.y.maybe()
		return
	}
	// The gradient of each piece goes to part, and is added to dw on the
	// host (the CPU backend's memory is the host's).
	part := b.Backend.Alloc(kernels.Float32, dw.Shape()...)
	defer b.Backend.Free(part)
	var sum []float32
	b.split(n, k, []kernels.Tensor{dy, x}, []int{ys, xs}, func(first bool, t []kernels.Tensor) {
		b.Backend.Conv2DBackwardFilter(part, t[0], t[1], p)
		v, err := b.Backend.Read(part)
		if err != nil {
			panic(err)
		}
		if first {
			sum = v
			return
		}
		for i := range sum {
			sum[i] += v[i]
		}
	})
	b.Backend.Write(dw, sum)
}

// The other operations run whole and yield afterwards when the page has
// waited long enough.

func (b *yieldingBackend) MatMul(c, a, bb, bias kernels.Tensor, transA, transB bool) {
	b.Backend.MatMul(c, a, bb, bias, transA, transB)
	b.y.maybe()
}

func (b *yieldingBackend) BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar kernels.Tensor, momentum, eps float32) {
	b.Backend.BatchNormTrain(y, mean, invStd, x, gamma, beta, runMean, runVar, momentum, eps)
	b.y.maybe()
}

func (b *yieldingBackend) BatchNormEval(y, x, gamma, beta, runMean, runVar kernels.Tensor, eps float32) {
	b.Backend.BatchNormEval(y, x, gamma, beta, runMean, runVar, eps)
	b.y.maybe()
}

func (b *yieldingBackend) BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd kernels.Tensor) {
	b.Backend.BatchNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, invStd)
	b.y.maybe()
}

func (b *yieldingBackend) ReLU(y, x kernels.Tensor) {
	b.Backend.ReLU(y, x)
	b.y.maybe()
}

func (b *yieldingBackend) ReLUBackward(dx, dy, y kernels.Tensor) {
	b.Backend.ReLUBackward(dx, dy, y)
	b.y.maybe()
}

func (b *yieldingBackend) MaxPool2(y, x kernels.Tensor) {
	b.Backend.MaxPool2(y, x)
	b.y.maybe()
}

func (b *yieldingBackend) MaxPool2Backward(dx, dy, x kernels.Tensor) {
	b.Backend.MaxPool2Backward(dx, dy, x)
	b.y.maybe()
}

func (b *yieldingBackend) Adam(param, grad, m, v kernels.Tensor, p kernels.AdamParams) {
	b.Backend.Adam(param, grad, m, v, p)
	b.y.maybe()
}

func (b *yieldingBackend) Write(t kernels.Tensor, data []float32) {
	b.Backend.Write(t, data)
	b.y.maybe()
}
