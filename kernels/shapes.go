package kernels

import "fmt"

// The shape checks of the operations, shared by every backend so that they
// are equally strict: each panics through Mismatch (a "kernels: OP:"
// message naming the shapes) unless its operands fit, and returns the
// dimensions the operation runs over. Operands are Float32 unless said
// otherwise.

// shapes returns the shapes of ts, nil tensors left out.
func shapes(ts []Tensor) [][]int {
	var s [][]int
	for _, t := range ts {
		if t != nil {
			s = append(s, t.Shape())
		}
	}
	return s
}

// float32s panics unless every tensor of ts that is not nil is Float32.
func float32s(op string, ts ...Tensor) {
	for _, t := range ts {
		if t != nil && t.DType() != Float32 {
			Mismatch(op, "want Float32 operands", shapes(ts)...)
		}
	}
}

// rank returns t's shape, panicking unless it has r dimensions.
func rank(op string, t Tensor, r int) []int {
	s := t.Shape()
	if len(s) != r {
		Mismatch(op, fmt.Sprintf("want a rank-%d tensor", r), s)
	}
	return s
}

// SameSizeDims checks the operands of an elementwise op (ReLU,
// ReLUBackward, Adam): Float32, all of ts[0]'s size, which it returns.
func SameSizeDims(op string, ts ...Tensor) int {
	float32s(op, ts...)
	n := Len(ts[0])
	for _, t := range ts[1:] {
		if Len(t) != n {
			Mismatch(op, "operands differ in size", shapes(ts)...)
		}
	}
	return n
}

// MatMulDims checks the operands of op (MatMul or a fused variant),
// c[M,N] = op(a) op(b) (+ bias[N] when bias is not nil), and returns M, N
// and the inner dimension K.
func MatMulDims(op string, c, a, b, bias Tensor, transA, transB bool) (m, n, k int) {
	float32s(op, c, a, b, bias)
	as, bs, cs := rank(op, a, 2), rank(op, b, 2), rank(op, c, 2)
	m, k = as[0], as[1]
	if transA {
		m, k = k, m
	}
	k2, n := bs[0], bs[1]
	if transB {
		k2, n = n, k2
	}
	if k != k2 || cs[0] != m || cs[1] != n || (bias != nil && Len(bias) != n) {
		Mismatch(op, fmt.Sprintf("inner or outer dimensions differ (transA %v, transB %v)", transA, transB), shapes([]Tensor{c, a, b, bias})...)
	}
	return m, n, k
}

// BiasGradDims checks the operands of BiasGrad, dy[N,C,...] and db[C], and
// returns N, C and the size of the trailing dimensions.
func BiasGradDims(db, dy Tensor) (outer, ch, inner int) {
	float32s("BiasGrad", db, dy)
	s := dy.Shape()
	if len(s) < 2 || Len(db) != s[1] {
		Mismatch("BiasGrad", "want dy [N,C,...] and db [C]", db.Shape(), s)
	}
	return s[0], s[1], Numel(s[2:])
}

// ConvDims is the geometry of a convolution of x[N,Ci,H,W] with
// w[Co,Ci,K,K] into y[N,Co,Ho,Wo].
type ConvDims struct {
	N, Ci, H, W, Co, K, Ho, Wo int
}

// CheckConv checks the operands of op, one of the convolutions (y stands
// for y or dy, x for x or dx, w for w or dw; bias, which may be nil, has
// Co elements), and returns its geometry.
func CheckConv(op string, y, x, w, bias Tensor, p ConvParams) ConvDims {
	float32s(op, y, x, w, bias)
	xs, ws, ys := rank(op, x, 4), rank(op, w, 4), rank(op, y, 4)
	g := ConvDims{N: xs[0], Ci: xs[1], H: xs[2], W: xs[3], Co: ws[0], K: ws[2]}
	if p.Stride < 1 || p.Pad < 0 {
		Mismatch(op, "want stride >= 1 and pad >= 0", ys, xs, ws)
	}
	g.Ho, g.Wo = p.OutSize(g.H, g.K), p.OutSize(g.W, g.K)
	if ws[1] != g.Ci || ws[3] != g.K || ys[0] != g.N || ys[1] != g.Co || ys[2] != g.Ho || ys[3] != g.Wo || (bias != nil && Len(bias) != g.Co) {
		Mismatch(op, "want x [N,Ci,H,W], w [Co,Ci,K,K], y [N,Co,Ho,Wo] and bias [Co]", shapes([]Tensor{y, x, w, bias})...)
	}
	return g
}

// BatchNormDims checks the operands of op, one of the batch
// normalisations of x[N,C,...]: every tensor of full has x's size, every one
// of perChannel C elements. It returns N, C and the size of the trailing
// dimensions.
func BatchNormDims(op string, x Tensor, full, perChannel []Tensor) (n, c, hw int) {
	var buf [9]Tensor // on the stack: x and the operands of BatchNormTrain
	all := append(append(append(buf[:0], x), full...), perChannel...)
	float32s(op, all...)
	s := x.Shape()
	if len(s) < 2 {
		Mismatch(op, "want x [N,C,...]", shapes(all)...)
	}
	n, c, hw = s[0], s[1], Numel(s[2:])
	for _, t := range full {
		if Len(t) != Len(x) {
			Mismatch(op, "want tensors of x's size (x first, then in argument order)", shapes(all)...)
		}
	}
	for _, t := range perChannel {
		if Len(t) != c {
			Mismatch(op, fmt.Sprintf("want per-channel tensors of %d elements (x first, then in argument order)", c), shapes(all)...)
		}
	}
	return n, c, hw
}

// MaxPool2Dims checks the operands of op, MaxPool2 (y, x; dx nil) or
// MaxPool2Backward (dy, x, dx), and returns x's shape [N,C,H,W]: y is
// [N,C,H/2,W/2] (dy has as many elements), dx has x's size.
func MaxPool2Dims(op string, y, x, dx Tensor) []int {
	all := []Tensor{y, x, dx}
	float32s(op, all...)
	xs := rank(op, x, 4)
	ok := Len(y) == xs[0]*xs[1]*(xs[2]/2)*(xs[3]/2)
	if ys := y.Shape(); dx == nil {
		ok = len(ys) == 4 && ys[0] == xs[0] && ys[1] == xs[1] && ys[2] == xs[2]/2 && ys[3] == xs[3]/2
	} else {
		ok = ok && Len(dx) == Len(x)
	}
	if !ok {
		Mismatch(op, "want x [N,C,H,W], y [N,C,H/2,W/2] and dx of x's size", shapes(all)...)
	}
	return xs
}

// GlobalAvgPoolDims checks the operands of op, GlobalAvgPool (y, x) or its
// backward pass (dy, dx), and returns x's shape [N,C,H,W]; y has N*C
// elements.
func GlobalAvgPoolDims(op string, y, x Tensor) []int {
	float32s(op, y, x)
	xs := rank(op, x, 4)
	if Len(y) != xs[0]*xs[1] {
		Mismatch(op, "want x [N,C,H,W] and y [N,C]", y.Shape(), xs)
	}
	return xs
}

// HeadDims checks the operands of op, LDA or LDABackward: z[N,D], prior[C],
// mu[C,D], a covariance parameter of kind's shape, and the [N,C] scores
// (delta or ddelta); grads, for LDABackward, are dz, dprior, dmu and dcov,
// each of the size of the operand it is the gradient of. It returns N, C
// and D.
func HeadDims(op string, scores, z, prior, mu, cov Tensor, kind CovKind, grads ...Tensor) (n, c, d int) {
	if kind < Spherical || kind > Full {
		panic(fmt.Sprintf("kernels: %s: unknown covariance kind %d", op, int(kind)))
	}
	var buf [9]Tensor // on the stack: the operands of LDABackward
	all := append(append(buf[:0], scores, z, prior, mu, cov), grads...)
	float32s(op, all...)
	zs, ms := z.Shape(), mu.Shape()
	if len(zs) != 2 || len(ms) != 2 || zs[1] != ms[1] || Len(prior) != ms[0] || Len(cov) != Numel(kind.CovShape(zs[1])) {
		Mismatch(op, "want z [N,D], prior [C], mu [C,D] and a "+kind.String()+" covariance parameter", shapes(all)...)
	}
	n, c, d = zs[0], ms[0], zs[1]
	if Len(scores) != n*c {
		Mismatch(op, "want scores [N,C]", shapes(all)...)
	}
	for i, g := range grads {
		if Len(g) != Len(all[i+1]) {
			Mismatch(op, "want gradients of the sizes of z, prior, mu and cov", shapes(all)...)
		}
	}
	return n, c, d
}

// LossDims checks the operands of Loss: scores[N,C] with C > 0 unless N is
// 0, Int32 labels y[N], stats[StatsLen] and dscores (nil, or of scores'
// size). It returns N and C.
func LossDims(dscores, stats, scores, y Tensor, kind LossKind) (n, c int) {
	if kind < NLL || kind > DNLL {
		panic(fmt.Sprintf("kernels: Loss: unknown loss kind %d", int(kind)))
	}
	all := []Tensor{dscores, stats, scores, y}
	float32s("Loss", dscores, stats, scores)
	ss := scores.Shape()
	if y.DType() != Int32 || len(ss) != 2 || Len(y) != ss[0] || Len(stats) != StatsLen || (ss[1] == 0 && ss[0] > 0) ||
		(dscores != nil && Len(dscores) != Len(scores)) {
		Mismatch("Loss", "want scores [N,C] with C > 0, Int32 labels y [N], stats [4] and dscores of scores' size", shapes(all)...)
	}
	return ss[0], ss[1]
}
