package kerneltest

import (
	"math"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels"
)

// testAlloc checks that Alloc returns zeroed tensors of the requested shape
// and type, including scalars (the spherical covariance is shape []).
func testAlloc(t *testing.T, b kernels.Backend, _ Tolerance) {
	for _, shape := range [][]int{{}, {1}, {7}, {3, 5}, {2, 3, 4, 5}, {70001}} {
		t.Run(shapeName(shape), func(t *testing.T) {
			x := b.Alloc(kernels.Float32, shape...)
			if x.DType() != kernels.Float32 || !slices.Equal(x.Shape(), shape) {
				t.Errorf("Alloc(Float32, %v) = %v tensor of shape %v", shape, x.DType(), x.Shape())
			}
			if msg := ExactMismatch(shape, Download(t, b, x), make([]float32, kernels.Numel(shape))); msg != "" {
				t.Errorf("Alloc(Float32, %v) is not zeroed: %s", shape, msg)
			}
			xi := b.Alloc(kernels.Int32, shape...)
			if xi.DType() != kernels.Int32 || !slices.Equal(xi.Shape(), shape) {
				t.Errorf("Alloc(Int32, %v) = %v tensor of shape %v", shape, xi.DType(), xi.Shape())
			}
			for i, v := range DownloadInt(t, b, xi) {
				if v != 0 {
					t.Errorf("Alloc(Int32, %v) is not zeroed: [%d] = %d", shape, i, v)
					break
				}
			}
			b.Free(x)
			b.Free(xi)
		})
	}
}

// testWriteRead checks that Write then Read returns the same bits, for
// random values and for the special ones (signed zeros, infinities, the
// extremes of float32, a subnormal); NaN must stay NaN.
func testWriteRead(t *testing.T, b kernels.Backend, _ Tolerance) {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, 0x1p-126, math.SmallestNonzeroFloat32 * 3, 1, -1}
	for _, n := range []int{1, 10, 1000, 70001} {
		t.Run(dimsName(n), func(t *testing.T) {
			e := newEnv(t, b, Tolerance{})
			data := e.normal(n, 0, 10)
			copy(data, special)
			nan := n > len(special)
			if nan {
				data[len(special)] = float32(math.NaN())
			}
			x := Upload(b, []int{n}, data)
			got := Download(t, b, x)
			if len(got) != n {
				t.Fatalf("Read returned %d values, want %d", len(got), n)
			}
			for i := range got {
				if nan && i == len(special) {
					if got[i] == got[i] {
						t.Errorf("[%d] = %g, want NaN", i, got[i])
					}
					continue
				}
				if math.Float32bits(got[i]) != math.Float32bits(data[i]) {
					t.Errorf("[%d] = %g (bits %#08x), want %g (bits %#08x)", i, got[i], math.Float32bits(got[i]), data[i], math.Float32bits(data[i]))
				}
			}
			// A second Write replaces the contents.
			data2 := e.normal(n, 1, 1)
			b.Write(x, data2)
			if msg := ExactMismatch(x.Shape(), Download(t, b, x), data2); msg != "" {
				t.Errorf("after a second Write: %s", msg)
			}
			b.Free(x)
		})
	}
}

// testWriteReadInt checks the Int32 round trip, extremes included.
func testWriteReadInt(t *testing.T, b kernels.Backend, _ Tolerance) {
	for _, n := range []int{1, 10, 1000, 70001} {
		t.Run(dimsName(n), func(t *testing.T) {
			e := newEnv(t, b, Tolerance{})
			data := make([]int32, n)
			for i := range data {
				data[i] = int32(e.rng.Uint32())
			}
			copy(data, []int32{math.MaxInt32, math.MinInt32, -1, 0, 1})
			x := UploadInt(b, []int{n}, data)
			got := DownloadInt(t, b, x)
			if len(got) != n {
				t.Fatalf("ReadInt returned %d values, want %d", len(got), n)
			}
			for i := range got {
				if got[i] != data[i] {
					t.Errorf("[%d] = %d, want %d", i, got[i], data[i])
					break
				}
			}
			b.Free(x)
		})
	}
}

// testFill checks Fill over sizes that are and are not multiples of typical
// workgroup sizes.
func testFill(t *testing.T, b kernels.Backend, _ Tolerance) {
	for _, n := range []int{1, 63, 64, 65, 1000, 70001} {
		for _, v := range []float32{0, -2.5, 3.1415927, 1e-30} {
			x := b.Alloc(kernels.Float32, n)
			b.Write(x, make([]float32, n))
			b.Fill(x, float32(math.NaN()))
			b.Fill(x, v)
			want := make([]float32, n)
			for i := range want {
				want[i] = v
			}
			if msg := ExactMismatch(x.Shape(), Download(t, b, x), want); msg != "" {
				t.Errorf("Fill([%d], %g): %s", n, v, msg)
			}
			b.Free(x)
		}
	}
}

// testCopy checks Copy of Float32 and Int32 tensors, between shapes of the
// same size.
func testCopy(t *testing.T, b kernels.Backend, _ Tolerance) {
	for _, c := range []struct{ dst, src []int }{
		{[]int{1}, []int{1}},
		{[]int{65}, []int{65}},
		{[]int{24}, []int{6, 4}},
		{[]int{2, 33, 7, 7}, []int{66, 49}},
		{[]int{70001}, []int{70001}},
	} {
		t.Run(dimsName(c.dst...)+"<-"+dimsName(c.src...), func(t *testing.T) {
			e := newEnv(t, b, Tolerance{})
			e.desc = "Copy"
			n := kernels.Numel(c.src)
			data := e.normal(n, 0, 1)
			src := e.in("src", data, c.src...)
			dst := e.out(c.dst...)
			b.Copy(dst, src)
			e.exact("dst", dst, data)
			e.unchanged()

			idata := make([]int32, n)
			for i := range idata {
				idata[i] = int32(e.rng.Uint32())
			}
			isrc := UploadInt(b, c.src, idata)
			idst := b.Alloc(kernels.Int32, c.dst...)
			b.Copy(idst, isrc)
			for i, v := range DownloadInt(t, b, idst) {
				if v != idata[i] {
					t.Errorf("Copy of Int32: [%d] = %d, want %d", i, v, idata[i])
					break
				}
			}
		})
	}
}

// testView checks that views share their parent's memory: Write, WriteInt,
// Fill and Copy through a view change exactly the viewed elements of the
// parent, Read of a view returns them, and freeing a view leaves the parent
// intact.
func testView(t *testing.T, b kernels.Backend, _ Tolerance) {
	const A = kernels.ViewAlign
	for _, c := range []struct {
		parent []int
		offset int
		shape  []int
	}{
		{[]int{3*A + 10}, 0, []int{5, 7}},
		{[]int{3*A + 10}, 2 * A, []int{A + 10}},
		{[]int{4, A}, A, []int{8, 8}},
		{[]int{2, 3, A}, 4 * A, []int{A}},
		{[]int{10, 100}, 7 * A, []int{2, 2, 3, 3}},
	} {
		t.Run(dimsName(c.parent...)+"@"+dimsName(c.offset)+"="+dimsName(c.shape...), func(t *testing.T) {
			e := newEnv(t, b, Tolerance{})
			np, nv := kernels.Numel(c.parent), kernels.Numel(c.shape)
			pdata := e.normal(np, 0, 1)
			parent := Upload(b, c.parent, pdata)
			v := b.View(parent, c.offset, c.shape...)
			if v.DType() != kernels.Float32 || !slices.Equal(v.Shape(), c.shape) {
				t.Errorf("View = %v tensor of shape %v, want Float32 %v", v.DType(), v.Shape(), c.shape)
			}
			if msg := ExactMismatch(c.shape, Download(t, b, v), pdata[c.offset:c.offset+nv]); msg != "" {
				t.Errorf("Read of the view: %s", msg)
			}
			want := append([]float32{}, pdata...)
			vdata := e.normal(nv, 5, 1)
			b.Write(v, vdata)
			copy(want[c.offset:], vdata)
			if msg := ExactMismatch(c.parent, Download(t, b, parent), want); msg != "" {
				t.Errorf("parent after Write through the view: %s", msg)
			}
			b.Fill(v, -7)
			for i := range nv {
				want[c.offset+i] = -7
			}
			if msg := ExactMismatch(c.parent, Download(t, b, parent), want); msg != "" {
				t.Errorf("parent after Fill of the view: %s", msg)
			}
			src := Upload(b, []int{nv}, vdata)
			b.Copy(v, src)
			copy(want[c.offset:], vdata)
			if msg := ExactMismatch(c.parent, Download(t, b, parent), want); msg != "" {
				t.Errorf("parent after Copy into the view: %s", msg)
			}
			dst := b.Alloc(kernels.Float32, nv)
			b.Copy(dst, v)
			if msg := ExactMismatch([]int{nv}, Download(t, b, dst), vdata); msg != "" {
				t.Errorf("Copy from the view: %s", msg)
			}
			b.Free(v)
			if msg := ExactMismatch(c.parent, Download(t, b, parent), want); msg != "" {
				t.Errorf("parent after Free of the view: %s", msg)
			}

			ipdata := make([]int32, np)
			for i := range ipdata {
				ipdata[i] = int32(i) - 3
			}
			iparent := UploadInt(b, c.parent, ipdata)
			iv := b.View(iparent, c.offset, c.shape...)
			if iv.DType() != kernels.Int32 {
				t.Errorf("View of an Int32 tensor has type %v", iv.DType())
			}
			ivdata := make([]int32, nv)
			for i := range ivdata {
				ivdata[i] = -1000 - int32(i)
			}
			b.WriteInt(iv, ivdata)
			copy(ipdata[c.offset:], ivdata)
			for i, x := range DownloadInt(t, b, iparent) {
				if x != ipdata[i] {
					t.Errorf("Int32 parent after WriteInt through the view: [%d] = %d, want %d", i, x, ipdata[i])
					break
				}
			}
			for i, x := range DownloadInt(t, b, iv) {
				if x != ivdata[i] {
					t.Errorf("ReadInt of the view: [%d] = %d, want %d", i, x, ivdata[i])
					break
				}
			}
		})
	}
}
