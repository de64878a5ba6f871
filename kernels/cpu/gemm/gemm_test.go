package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// useKernel makes Sgemm use kern for the rest of the test.
func useKernel(t testing.TB, kern *microKernel) {
	t.Helper()
	old := activeKernel
	activeKernel = kern
	t.Cleanup(func() { activeKernel = old })
}

// forEachKernel runs f once per micro-kernel this machine supports,
// including the portable Go kernel. The portable kernel also runs with the
// portable packing routines, so that the pure-Go path is covered entirely
// on machines that have assembly.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	for _, kern := range supportedKernels() {
		t.Run(kern.name, func(t *testing.T) {
			useKernel(t, kern)
			if kern == goKernel {
				old := asmPacking
				asmPacking = false
				t.Cleanup(func() { asmPacking = old })
			}
			f(t)
		})
	}
}

// matrix is a row-major matrix stored with row stride ld.
type matrix struct {
	rows, cols, ld int
	data           []float32
}

// newMatrix returns a rows×cols matrix with stride cols+pad whose elements
// are uniform in [-1, 1). Elements in the padding are set to pad values so
// that reads and writes outside the matrix are detectable.
func newMatrix(rng *rand.Rand, rows, cols, pad int) matrix {
	ld := max(1, cols+pad)
	n := 0
	if rows > 0 {
		n = (rows-1)*ld + cols
	}
	m := matrix{rows: rows, cols: cols, ld: ld, data: make([]float32, n)}
	for i := range m.data {
		if i%ld < cols {
			m.data[i] = 2*rng.Float32() - 1
		} else {
			m.data[i] = padValue
		}
	}
	return m
}

// padValue marks the unused elements between rows.
const padValue = 1e30

// maxAbs returns the largest absolute value of the elements of m.
func (m matrix) maxAbs() float64 {
	var r float64
	for i := 0; i < m.rows; i++ {
		for j := 0; j < m.cols; j++ {
			r = max(r, math.Abs(float64(m.data[i*m.ld+j])))
		}
	}
	return r
}

// refGemm computes alpha*op(A)*op(B) + beta*C in float64 with a plain
// triple loop. With beta == 0 the old C is ignored, as BLAS specifies.
func refGemm(transA, transB bool, m, n, k int, alpha float32, a matrix, b matrix, beta float32, c matrix) []float64 {
	// Copy op(A) (m×k) and op(B)^T (n×k) to contiguous float64 rows so the
	// inner loop is a plain dot product.
	opA := make([]float64, m*k)
	opBT := make([]float64, n*k)
	for p := 0; p < k; p++ {
		for i := 0; i < m; i++ {
			if transA {
				opA[i*k+p] = float64(a.data[p*a.ld+i])
			} else {
				opA[i*k+p] = float64(a.data[i*a.ld+p])
			}
		}
		for j := 0; j < n; j++ {
			if transB {
				opBT[j*k+p] = float64(b.data[j*b.ld+p])
			} else {
				opBT[j*k+p] = float64(b.data[p*b.ld+j])
			}
		}
	}
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		ai := opA[i*k : i*k+k]
		for j := 0; j < n; j++ {
			bj := opBT[j*k : j*k+k]
			var s float64
			for p, av := range ai {
				s += av * bj[p]
			}
			s *= float64(alpha)
			if beta != 0 {
				s += float64(beta) * float64(c.data[i*c.ld+j])
			}
			out[i*n+j] = s
		}
	}
	return out
}

// scale is one (alpha, beta) combination under test.
type scale struct {
	alpha, beta float32
	nanC        bool // fill C with NaN first (only meaningful with beta == 0)
	bias        bool // add a random bias row, as SgemmBias does (beta == 0)
}

var scales = []scale{
	{alpha: 1, beta: 0, nanC: true},
	{alpha: 1, beta: 1},
	{alpha: -0.75, beta: 0.5},
	{alpha: 2.5, beta: 0, nanC: true},
	{alpha: 1, beta: 0, nanC: true, bias: true},
	{alpha: 0.5, beta: -1},
	{alpha: -1.5, beta: 0, bias: true},
}

// checkGemm runs Sgemm on random data of the given shape and compares the
// result with refGemm. pad is added to the minimum row stride of every
// matrix.
//
// Error bound: each element of alpha*op(A)*op(B) is a sum of k products
// computed in float32, whose rounding error is at most about k*u*sum|a||b|
// with u = 2^-24 ≈ 6e-8 (plus one rounding from folding alpha into A, and
// one each for the beta update). With the elements of A, B and C bounded by
// max|a|, max|b| and max|c|, the test accepts
//
//	|got - want| <= 1e-5 * ((k+2)*|alpha|*max|a|*max|b| + |beta|*max|c|)
//
// which is a comfortable margin (≈ 160 u per term) over that worst case yet
// tight enough to catch any wrong or missing product (a single product is
// ≈ 1/3 on average for uniform [-1,1) inputs).
func checkGemm(t *testing.T, rng *rand.Rand, transA, transB bool, m, n, k int, sc scale, pad int) {
	t.Helper()
	checkProduct(t, rng, func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, bias, c []float32, ldc int) {
		sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, bias, epilogue{}, c, ldc)
	}, transA, transB, m, n, k, sc, pad)
}

// gemmFunc is the signature of Sgemm with a bias, as sgemm without an
// epilogue.
type gemmFunc func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, bias, c []float32, ldc int)

// checkProduct is checkGemm for the product computed by gemm.
func checkProduct(t *testing.T, rng *rand.Rand, gemm gemmFunc, transA, transB bool, m, n, k int, sc scale, pad int) {
	t.Helper()
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	a := newMatrix(rng, ar, ac, pad)
	b := newMatrix(rng, br, bc, pad+1)
	c := newMatrix(rng, m, n, pad+2)
	if sc.nanC {
		for i := range c.data {
			if i%c.ld < n {
				c.data[i] = float32(math.NaN())
			}
		}
	}
	want := refGemm(transA, transB, m, n, k, sc.alpha, a, b, sc.beta, c)
	maxC := 0.0
	if !sc.nanC {
		maxC = c.maxAbs()
	}
	tol := 1e-5 * (float64(k+2)*math.Abs(float64(sc.alpha))*a.maxAbs()*b.maxAbs() + math.Abs(float64(sc.beta))*maxC)
	var bias []float32
	if sc.bias {
		bias = newMatrix(rng, 1, n, 0).data
		for i := range want {
			want[i] += float64(bias[i%n])
		}
		tol += 1e-5
	}

	gemm(transA, transB, m, n, k, sc.alpha, a.data, a.ld, b.data, b.ld, sc.beta, bias, c.data, c.ld)

	bad := 0
	for i := 0; i < m; i++ {
		for j := 0; j < c.ld && i*c.ld+j < len(c.data); j++ {
			got := c.data[i*c.ld+j]
			if j >= n {
				if got != padValue {
					t.Fatalf("tA=%v tB=%v m=%d n=%d k=%d %+v pad=%d: wrote C padding at (%d,%d): %v", transA, transB, m, n, k, sc, pad, i, j, got)
				}
				continue
			}
			w := want[i*n+j]
			if d := math.Abs(float64(got) - w); !(d <= tol) {
				if bad++; bad <= 3 {
					t.Errorf("tA=%v tB=%v m=%d n=%d k=%d %+v pad=%d: C(%d,%d) = %v, want %v (|diff| %.3g > tol %.3g)",
						transA, transB, m, n, k, sc, pad, i, j, got, w, d, tol)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d wrong elements", bad)
	}
}

var transposes = []struct{ a, b bool }{{false, false}, {false, true}, {true, false}, {true, true}}

func TestSgemmSmall(t *testing.T) {
	sizes := []int{1, 2, 5, 15, 16, 17, 33}
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		i := 0
		for _, tr := range transposes {
			for _, m := range sizes {
				for _, n := range sizes {
					for _, k := range sizes {
						i++
						checkGemm(t, rng, tr.a, tr.b, m, n, k, scales[i%len(scales)], i%3*2)
					}
				}
			}
		}
	})
}

// TestDirectOrders runs every loop order of the products without packing
// on every shape, whatever order Sgemm would choose.
func TestDirectOrders(t *testing.T) {
	sizes := []int{1, 2, 3, 7, 8, 9, 17, 32}
	for _, o := range []order{byRows, byCols, byDots} {
		direct := func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, bias, c []float32, ldc int) {
			p := problem{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc}
			p.direct(o, bias, epilogue{})
		}
		rng := rand.New(rand.NewPCG(14, uint64(o)))
		i := 0
		for _, tr := range transposes {
			for _, m := range sizes {
				for _, n := range sizes {
					for _, k := range sizes {
						i++
						sc := scale{alpha: 1, nanC: true, bias: i%3 == 0}
						if i%2 == 0 {
							sc.alpha = -1.25
						}
						checkProduct(t, rng, direct, tr.a, tr.b, m, n, k, sc, i%3)
					}
				}
			}
		}
	}
}

// TestDirectChoice checks that the toy MLP's products (see benchShapes) go
// without packing with the portable kernel, and that the order chosen for
// each is the one that needs no copy of its larger operand.
func TestDirectChoice(t *testing.T) {
	want := map[string]order{
		"mlp_fwd1_256x32x2_NT": byRows,
		"mlp_fwd2_256x2x32_NT": byDots,
		"mlp_dW2_2x32x256_TN":  byRows,
		"mlp_dX2_256x32x2_NN":  byRows,
		"mlp_dW1_32x2x256_TN":  byCols,
	}
	for _, s := range benchShapes {
		w, ok := want[s.name]
		if !ok {
			continue
		}
		delete(want, s.name)
		if s.m*s.n*s.k > goKernel.direct {
			t.Errorf("%s: %d multiply-adds, over the direct limit %d", s.name, s.m*s.n*s.k, goKernel.direct)
		}
		p := problem{transA: s.transA, transB: s.transB, m: s.m, n: s.n, k: s.k}
		if got := p.bestOrder(); got != w {
			t.Errorf("%s: order %d, want %d", s.name, got, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("shapes missing from benchShapes: %v", want)
	}
}

func TestSgemmEdges(t *testing.T) {
	sizes := []int{1, 2, 5, 15, 16, 17, 63, 64, 65, 127, 129, 255, 257}
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		i := 0
		for _, tr := range transposes {
			for x, m := range sizes {
				// Pair every m with a spread of n and k that walks through
				// the list at different rates so all sizes meet each other.
				for y := 0; y < len(sizes); y += 3 {
					n := sizes[(x+y)%len(sizes)]
					k := sizes[(2*x+5*y+1)%len(sizes)]
					i++
					checkGemm(t, rng, tr.a, tr.b, m, n, k, scales[i%len(scales)], i%4)
				}
			}
		}
	})
}

func TestSgemmAllScales(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, tr := range transposes {
			for _, sc := range scales {
				for _, pad := range []int{0, 3} {
					checkGemm(t, rng, tr.a, tr.b, 37, 45, 29, sc, pad)
				}
			}
		}
	})
}

func TestSgemmLarge(t *testing.T) {
	shapes := [][3]int{
		{300, 700, 513},  // several kc blocks, parallel split along n
		{700, 300, 513},  // parallel split along m
		{257, 129, 1030}, // k spans more than four kc blocks
		{5, 2100, 1050},  // packed B exceeds maxPackedB: two column blocks
		{600, 5, 70},     // many mc blocks, one micro-tile column
		{64, 784, 576},   // ConvNet forward shape
	}
	if testing.Short() {
		shapes = shapes[:2]
	}
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for i, s := range shapes {
			for j, tr := range transposes {
				checkGemm(t, rng, tr.a, tr.b, s[0], s[1], s[2], scales[(i+j)%len(scales)], (i+j)%3)
			}
		}
	})
}

// TestSgemmSerialParallel checks that single- and multi-goroutine runs agree
// bit for bit (the split never changes the order of the sums).
func TestSgemmSerialParallel(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, s := range [][3]int{{333, 251, 300}, {129, 900, 200}} {
			m, n, k := s[0], s[1], s[2]
			a := newMatrix(rng, m, k, 0)
			b := newMatrix(rng, k, n, 0)
			c0 := newMatrix(rng, m, n, 0)
			var results [][]float32
			for _, procs := range []int{1, 2, 3, 8} {
				old := runtime.GOMAXPROCS(procs)
				c := append([]float32(nil), c0.data...)
				Sgemm(false, false, m, n, k, 1.5, a.data, a.ld, b.data, b.ld, 0.5, c, c0.ld)
				runtime.GOMAXPROCS(old)
				results = append(results, c)
			}
			for i := 1; i < len(results); i++ {
				for j := range results[0] {
					if results[i][j] != results[0][j] {
						t.Fatalf("%v: run %d differs from the serial run at %d: %v vs %v", s, i, j, results[i][j], results[0][j])
					}
				}
			}
		}
	})
}

func TestSgemmConcurrent(t *testing.T) {
	// Several goroutines call Sgemm at once, with sizes both below and
	// above the parallel threshold, so that parallel jobs compete for the
	// helper goroutines.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for i := range 12 {
				m, n, k := 1+rng.IntN(90), 1+rng.IntN(90), 1+rng.IntN(300)
				if i%3 == 0 {
					m, n, k = 150+rng.IntN(100), 150+rng.IntN(100), 150+rng.IntN(100)
				}
				checkGemm(t, rng, i%2 == 0, i%3 == 0, m, n, k, scales[i%len(scales)], i%2)
			}
		})
	}
	wg.Wait()
}

func TestSgemmZeroSizes(t *testing.T) {
	nan := float32(math.NaN())
	// k == 0: C = beta*C, A and B are not read (and may be empty).
	for _, beta := range []float32{0, 1, 0.5} {
		c := []float32{nan, 2, 99, 4, 6, 99}
		if beta != 0 {
			c[0] = 1
		}
		Sgemm(false, false, 2, 2, 0, 1, nil, 1, nil, 2, beta, c, 3)
		want := []float32{beta * 1, beta * 2, 99, beta * 4, beta * 6, 99}
		if beta == 0 {
			want = []float32{0, 0, 99, 0, 0, 99}
		}
		for i := range c {
			if c[i] != want[i] {
				t.Errorf("k=0 beta=%v: c = %v, want %v", beta, c, want)
				break
			}
		}
	}
	// alpha == 0: A and B are not read even if they hold NaNs.
	a := []float32{nan, nan}
	c := []float32{nan, nan, nan, nan}
	Sgemm(false, false, 2, 2, 1, 0, a, 1, a, 2, 0, c, 2)
	for _, v := range c {
		if v != 0 {
			t.Errorf("alpha=0 beta=0: c = %v, want zeros", c)
			break
		}
	}
	// With k == 0, SgemmBias sets every row of C to the bias.
	c = []float32{nan, nan, 99, nan, nan, 99}
	SgemmBias(false, false, 2, 2, 0, 1, nil, 1, nil, 2, []float32{3, -4}, c, 3)
	if want := []float32{3, -4, 99, 3, -4, 99}; !slices.Equal(c, want) {
		t.Errorf("k=0 with a bias: c = %v, want %v", c, want)
	}
	// m == 0 or n == 0: nothing happens; empty slices are fine.
	Sgemm(false, false, 0, 5, 3, 1, nil, 3, make([]float32, 15), 5, 0, nil, 5)
	Sgemm(true, true, 4, 0, 3, 1, make([]float32, 12), 4, nil, 3, 0, nil, 1)
	Sgemm(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1)
}

func TestSgemmPanics(t *testing.T) {
	s := make([]float32, 100)
	cases := []struct {
		name string
		f    func()
	}{
		{"m<0", func() { Sgemm(false, false, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"n<0", func() { Sgemm(false, false, 2, -1, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"k<0", func() { Sgemm(false, false, 2, 2, -1, 1, s, 2, s, 2, 0, s, 2) }},
		{"lda", func() { Sgemm(false, false, 2, 2, 3, 1, s, 2, s, 2, 0, s, 2) }},
		{"lda trans", func() { Sgemm(true, false, 4, 2, 3, 1, s, 3, s, 2, 0, s, 2) }},
		{"ldb", func() { Sgemm(false, false, 2, 4, 3, 1, s, 3, s, 3, 0, s, 4) }},
		{"ldb trans", func() { Sgemm(false, true, 2, 4, 3, 1, s, 3, s, 2, 0, s, 4) }},
		{"ldc", func() { Sgemm(false, false, 2, 4, 3, 1, s, 3, s, 4, 0, s, 3) }},
		{"ldc zero", func() { Sgemm(false, false, 0, 0, 0, 1, s, 1, s, 1, 0, s, 0) }},
		{"short a", func() { Sgemm(false, false, 10, 2, 11, 1, s, 11, s, 2, 0, s, 2) }},
		{"short b", func() { Sgemm(false, true, 2, 10, 11, 1, s, 11, s, 11, 0, s, 10) }},
		{"short c", func() { Sgemm(false, false, 11, 10, 1, 1, s, 1, s, 10, 0, s, 10) }},
		{"short bias", func() { SgemmBias(false, false, 2, 4, 3, 1, s, 3, s, 4, s[:3], s, 4) }},
		{"sums m<0", func() { ColumnSums(-1, 2, s, 2, s) }},
		{"sums lda", func() { ColumnSums(2, 3, s, 2, s) }},
		{"sums short a", func() { ColumnSums(11, 10, s, 10, s) }},
		{"sums short s", func() { ColumnSums(2, 4, s, 4, s[:3]) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "gemm: ") {
					t.Errorf("panic value %#v, want a string starting with %q", r, "gemm: ")
				}
			}()
			tc.f()
		})
	}
}

func TestKernelsAgree(t *testing.T) {
	// Every kernel variant must compute its tile of C from packed panels;
	// this exercises the assembly directly, including beta == 0 with NaN
	// in C and writes confined to the tile.
	rng := rand.New(rand.NewPCG(12, 13))
	for _, kern := range supportedKernels() {
		for vr, rows := range kern.rows {
			for vc, cols := range kern.cols {
				for _, k := range []int{1, 2, 3, 4, 5, 8, 31, 256} {
					for _, beta := range []float32{0, 1, -0.5} {
						checkKernel(t, rng, kern, kern.fns[vr][vc], rows, cols, k, 0.75, beta)
					}
				}
			}
		}
	}
}

// checkKernel runs fn, a rows×cols variant of kern, on random packed
// panels of depth k and checks C and that nothing outside the tile changed.
func checkKernel(t *testing.T, rng *rand.Rand, kern *microKernel, fn kernelFunc, rows, cols, k int, alpha, beta float32) {
	t.Helper()
	mr, nr, ldc := kern.mr, kern.nr, kern.nr+3
	a := make([]float32, k*mr)
	b := make([]float32, k*nr)
	c := make([]float32, kern.mr*ldc)
	for i := range a {
		a[i] = rng.Float32()
	}
	for i := range b {
		b[i] = rng.Float32()
	}
	for i := range c {
		c[i] = rng.Float32()
		if beta == 0 {
			c[i] = float32(math.NaN())
		}
	}
	old := append([]float32(nil), c...)
	fn(k, a, b, c, ldc, alpha, beta)
	for i := 0; i < mr; i++ {
		for j := 0; j < ldc; j++ {
			got := c[i*ldc+j]
			if i >= rows || j >= cols {
				if math.Float32bits(got) != math.Float32bits(old[i*ldc+j]) {
					t.Fatalf("%s %dx%d k=%d: wrote outside the tile at (%d,%d)", kern.name, rows, cols, k, i, j)
				}
				continue
			}
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a[p*mr+i]) * float64(b[p*nr+j])
			}
			s *= float64(alpha)
			if beta != 0 {
				s += float64(beta) * float64(old[i*ldc+j])
			}
			if d := math.Abs(float64(got) - s); !(d <= 1e-5*float64(k+2)) {
				t.Fatalf("%s %dx%d k=%d beta=%v: C(%d,%d) = %v, want %v", kern.name, rows, cols, k, beta, i, j, got, s)
			}
		}
	}
}

func Example() {
	// C (2×2) = A (2×3) * B (3×2).
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{7, 8, 9, 10, 11, 12}
	c := make([]float32, 4)
	Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [58 64 139 154]
}

// TestColumnSums checks ColumnSums bit for bit against plain additions of
// the rows in order, from zero, on columns holding signed zeros and NaNs.
func TestColumnSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, m := range []int{0, 1, 2, 3, 4, 9, 256} {
		for _, n := range []int{1, 2, 3, 4, 7, 8, 9, 15, 32, 33} {
			a := specialMatrix(rng, m, n, m%3)
			s := make([]float32, n+1)
			s[n] = padValue
			for j := range n {
				s[j] = float32(math.NaN())
			}
			ColumnSums(m, n, a.data, a.ld, s)
			for j := range n {
				var want float32
				for i := range m {
					want += a.data[i*a.ld+j]
				}
				if math.Float32bits(s[j]) != math.Float32bits(want) {
					t.Fatalf("m=%d n=%d: sum of column %d = %v, want %v", m, n, j, s[j], want)
				}
			}
			if s[n] != padValue {
				t.Fatalf("m=%d n=%d: wrote past n", m, n)
			}
		}
	}
}

// TestDotRowsExact checks dotRows (assembly in WebAssembly) bit for bit
// against dot products summed in order, scaled, biased and passed through
// the epilogue one element at a time, with every edge of its blocks and
// loops, and that it writes nothing outside C.
func TestDotRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	sizes := []int{1, 2, 3, 4, 5, 8}
	i := 0
	for _, m := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11} {
		for _, n := range sizes {
			for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 9, 33} {
				i++
				a := specialMatrix(rng, m, k, i%3)
				b := specialMatrix(rng, n, k, i%2)
				y := specialMatrix(rng, m, n, i%4)
				alpha := []float32{1, -1.25, 0.5}[i%3]
				for _, epi := range []epilogue{{}, {relu: true}, {y: y.data, ldy: y.ld}} {
					var bias []float32
					if epi.y == nil && i%2 == 0 {
						bias = specialMatrix(rng, 1, n, 0).data
					}
					c := newMatrix(rng, m, n, 1+i%2)
					dotRows(m, n, k, alpha, a.data, a.ld, b.data, b.ld, bias, epi, c.data, c.ld)
					for r := 0; r < m; r++ {
						for j := 0; j < c.ld && r*c.ld+j < len(c.data); j++ {
							want := float32(padValue)
							if j < n {
								var s float32
								for p := 0; p < k; p++ {
									s += float32(a.data[r*a.ld+p] * b.data[j*b.ld+p])
								}
								s = alpha * s
								if bias != nil {
									s += bias[j]
								}
								want = epi.at(r, j, s)
							}
							if got := c.data[r*c.ld+j]; math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("m=%d n=%d k=%d alpha=%v bias=%v relu=%v mask=%v: C(%d,%d) = %v, want %v",
									m, n, k, alpha, bias != nil, epi.relu, epi.y != nil, r, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestRowPassesExact checks the passes of the rows order, set2Rows with
// every bias and epilogue and add4Rows (assembly in WebAssembly), bit for
// bit against their sums formed one element at a time, with odd numbers of
// rows and every tail of their column loops, and that they write nothing
// outside the m rows of C.
func TestRowPassesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	i := 0
	for _, m := range []int{1, 2, 3, 4, 5, 255, 256, 257} {
		for _, n := range []int{1, 2, 7, 8, 9, 17, 32, 33} {
			i++
			vi, vq := 4+i%3, 1 // coefficient q of row r at v[r*vi+q*vq]
			if i%2 == 0 {
				vi, vq = 1, m+i%3
			}
			v := specialMatrix(rng, 1, (m-1)*vi+3*vq+1, 0).data
			b := specialMatrix(rng, 4, n, i%3)
			y := specialMatrix(rng, m, n, i%4)
			bias := specialMatrix(rng, 1, n, 0).data
			for _, pass := range []struct {
				add, bias bool
				epi       epilogue
			}{{}, {bias: true}, {epi: epilogue{relu: true}}, {bias: true, epi: epilogue{relu: true}}, {epi: epilogue{y: y.data, ldy: y.ld}}, {add: true}} {
				c := newMatrix(rng, m+1, n, 1+i%2) // row m must stay as it is
				want := append([]float32(nil), c.data...)
				for r := 0; r < m; r++ {
					for j := 0; j < n; j++ {
						x := &want[r*c.ld+j]
						if pass.add {
							for q := range 4 {
								*x += float32(v[r*vi+q*vq] * b.data[q*b.ld+j])
							}
							continue
						}
						s := float32(v[r*vi]*b.data[j]) + float32(v[r*vi+vq]*b.data[b.ld+j])
						if pass.bias {
							s += bias[j]
						}
						*x = pass.epi.at(r, j, s)
					}
				}
				if pass.add {
					add4Rows(m, v, vi, vq, b.data, b.ld, n, c.data, c.ld)
				} else {
					var e []float32
					if pass.bias {
						e = bias
					}
					set2Rows(m, v, vi, vq, b.data, b.ld, n, e, pass.epi, c.data, c.ld)
				}
				for j, w := range want {
					if math.Float32bits(c.data[j]) != math.Float32bits(w) {
						t.Fatalf("m=%d n=%d vi=%d vq=%d add=%v bias=%v relu=%v mask=%v: C(%d,%d) = %v, want %v",
							m, n, vi, vq, pass.add, pass.bias, pass.epi.relu, pass.epi.y != nil, j/c.ld, j%c.ld, c.data[j], w)
					}
				}
			}
		}
	}
}
