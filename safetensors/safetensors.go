// Package safetensors reads and writes the safetensors file format: an
// 8-byte little-endian header length N, N bytes of JSON header that map each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (plus an
// optional "__metadata__" map of strings), then the raw little-endian data.
//
// F32 and I32 are read and written; I64 (PyTorch's integer counters) is read
// as I32 when its values fit; files holding other dtypes are rejected with an
// "unsupported dtype" error. Reading validates the whole file
// (header length, JSON, dtypes, shapes, offsets, data size) and reports any
// problem as an error, never a panic.
package safetensors

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Supported dtype names.
const (
	F32 = "F32"
	I32 = "I32"
)

// MetadataKey is the reserved header key that holds the string metadata.
const MetadataKey = "__metadata__"

// MaxHeaderLen is the largest header length Read accepts (100 MB, the limit
// of the reference implementation).
const MaxHeaderLen = 100_000_000

// Tensor is one named array. DType is F32 or I32; the values are in F32 or
// I32 (the other slice is nil), row-major, with len equal to the product of
// Shape. An empty Shape is a scalar holding one value.
type Tensor struct {
	DType string
	Shape []int
	F32   []float32
	I32   []int32
}

// NewF32 returns an F32 tensor holding data with the given shape. It panics
// if the shape is invalid or does not match len(data). The data is not copied.
func NewF32(data []float32, shape ...int) Tensor {
	n := mustNumel("NewF32", shape)
	if n != len(data) {
		panic(fmt.Sprintf("safetensors: NewF32: shape %s has %d elements, data has %d", FormatShape(shape), n, len(data)))
	}
	return Tensor{DType: F32, Shape: append([]int(nil), shape...), F32: data}
}

// NewI32 returns an I32 tensor holding data with the given shape. It panics
// if the shape is invalid or does not match len(data). The data is not copied.
func NewI32(data []int32, shape ...int) Tensor {
	n := mustNumel("NewI32", shape)
	if n != len(data) {
		panic(fmt.Sprintf("safetensors: NewI32: shape %s has %d elements, data has %d", FormatShape(shape), n, len(data)))
	}
	return Tensor{DType: I32, Shape: append([]int(nil), shape...), I32: data}
}

func mustNumel(fn string, shape []int) int {
	n, ok := numel(shape)
	if !ok {
		panic(fmt.Sprintf("safetensors: %s: invalid shape %s", fn, FormatShape(shape)))
	}
	return n
}

// numel returns the product of shape, or false if a dimension is negative
// or the byte size of the product (4 bytes an element) overflows.
func numel(shape []int) (int, bool) {
	n := uint64(1)
	zero := false
	for _, s := range shape {
		if s < 0 {
			return 0, false
		}
		zero = zero || s == 0
	}
	if zero {
		return 0, true
	}
	for _, s := range shape {
		hi, lo := bits.Mul64(n, uint64(s))
		if hi != 0 || lo > math.MaxInt/8 {
			return 0, false
		}
		n = lo
	}
	return int(n), true
}

// Numel returns the number of elements the shape describes (1 for a
// scalar), or -1 if the shape is invalid (a negative dimension, or too large).
func (t Tensor) Numel() int {
	n, ok := numel(t.Shape)
	if !ok {
		return -1
	}
	return n
}

// Len returns the number of stored values (len of F32 or I32 by DType).
func (t Tensor) Len() int {
	switch t.DType {
	case F32:
		return len(t.F32)
	case I32:
		return len(t.I32)
	}
	return 0
}

// Float64 returns the values converted to float64 (from F32 or I32).
func (t Tensor) Float64() []float64 {
	switch t.DType {
	case F32:
		out := make([]float64, len(t.F32))
		for i, v := range t.F32 {
			out[i] = float64(v)
		}
		return out
	case I32:
		out := make([]float64, len(t.I32))
		for i, v := range t.I32 {
			out[i] = float64(v)
		}
		return out
	}
	return nil
}

// Check reports whether t has the given dtype and exactly the given shape
// (no shape arguments means a scalar) and holds the matching number of
// values. name is only used in the error message, for example
// `tensor "spherical/z" has shape [7,4], want [7,3]`.
func (t Tensor) Check(name string, dtype string, shape ...int) error {
	if t.DType != dtype {
		return fmt.Errorf("tensor %q has dtype %s, want %s", name, t.DType, dtype)
	}
	if t.Numel() < 0 {
		return fmt.Errorf("tensor %q has invalid shape %s", name, FormatShape(t.Shape))
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Errorf("tensor %q has shape %s, want %s", name, FormatShape(t.Shape), FormatShape(shape))
	}
	if t.Len() != t.Numel() {
		return fmt.Errorf("tensor %q holds %d values, shape %s needs %d", name, t.Len(), FormatShape(t.Shape), t.Numel())
	}
	return nil
}

// FormatShape formats a shape as in the JSON header, e.g. "[7,3]" ("[]" for
// a scalar).
func FormatShape(shape []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range shape {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s))
	}
	b.WriteByte(']')
	return b.String()
}

// File is the content of a safetensors file: named tensors and string
// metadata. Read always returns non-nil maps.
type File struct {
	Tensors  map[string]Tensor
	Metadata map[string]string
}

// New returns an empty File with non-nil maps.
func New() *File {
	return &File{Tensors: map[string]Tensor{}, Metadata: map[string]string{}}
}

// Set stores t under name, creating the map if needed. It panics if name is
// the reserved MetadataKey.
func (f *File) Set(name string, t Tensor) {
	if name == MetadataKey {
		panic("safetensors: Set: " + MetadataKey + " is reserved for metadata")
	}
	if f.Tensors == nil {
		f.Tensors = map[string]Tensor{}
	}
	f.Tensors[name] = t
}

// Names returns the tensor names in sorted order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Tensors))
	for n := range f.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the tensor called name, or a "missing tensor" error.
func (f *File) Get(name string) (Tensor, error) {
	t, ok := f.Tensors[name]
	if !ok {
		return Tensor{}, fmt.Errorf("missing tensor %q", name)
	}
	return t, nil
}

// GetF32 returns the values of the F32 tensor called name. If shape is
// given, the tensor must have exactly that shape; with no shape any shape is
// accepted (use Scalar to read a 0-d tensor).
func (f *File) GetF32(name string, shape ...int) ([]float32, error) {
	t, err := f.get(name, F32, shape)
	if err != nil {
		return nil, err
	}
	return t.F32, nil
}

// GetI32 returns the values of the I32 tensor called name. If shape is
// given, the tensor must have exactly that shape; with no shape any shape is
// accepted.
func (f *File) GetI32(name string, shape ...int) ([]int32, error) {
	t, err := f.get(name, I32, shape)
	if err != nil {
		return nil, err
	}
	return t.I32, nil
}

// Scalar returns the value of the 0-d (shape []) F32 tensor called name.
func (f *File) Scalar(name string) (float32, error) {
	t, err := f.Get(name)
	if err != nil {
		return 0, err
	}
	if err := t.Check(name, F32); err != nil {
		return 0, err
	}
	return t.F32[0], nil
}

func (f *File) get(name, dtype string, shape []int) (Tensor, error) {
	t, err := f.Get(name)
	if err != nil {
		return Tensor{}, err
	}
	want := shape
	if len(shape) == 0 {
		want = t.Shape
	}
	if err := t.Check(name, dtype, want...); err != nil {
		return Tensor{}, err
	}
	return t, nil
}
