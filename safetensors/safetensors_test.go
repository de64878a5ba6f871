package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/deeplda/deeplda/internal/sharedtest"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenDir returns ../shared/golden (see sharedtest.Dir).
func goldenDir(t testing.TB) string { return sharedtest.Dir(t, "golden") }

func sample() *File {
	f := New()
	f.Set("b/weights", NewF32([]float32{1, -2.5, float32(math.Inf(1)), 0, 3.25, -0.0}, 2, 3))
	f.Set("a/labels", NewI32([]int32{0, 1, -7, math.MaxInt32, math.MinInt32}, 5))
	f.Set("scalar", NewF32([]float32{0.125}))
	f.Set("empty", NewF32([]float32{}, 0, 4))
	f.Metadata["note"] = "made <in> a \"test\" & ünïcode"
	return f
}

func sameFile(t *testing.T, got, want *File) {
	t.Helper()
	if len(got.Tensors) != len(want.Tensors) {
		t.Fatalf("got %d tensors, want %d", len(got.Tensors), len(want.Tensors))
	}
	for name, w := range want.Tensors {
		g, err := got.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Check(name, w.DType, w.Shape...); err != nil {
			t.Fatal(err)
		}
		for i := range w.F32 {
			if math.Float32bits(g.F32[i]) != math.Float32bits(w.F32[i]) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g.F32[i], w.F32[i])
			}
		}
		for i := range w.I32 {
			if g.I32[i] != w.I32[i] {
				t.Errorf("%s[%d] = %v, want %v", name, i, g.I32[i], w.I32[i])
			}
		}
	}
	if len(got.Metadata) != len(want.Metadata) {
		t.Fatalf("metadata %v, want %v", got.Metadata, want.Metadata)
	}
	for k, v := range want.Metadata {
		if got.Metadata[k] != v {
			t.Errorf("metadata[%q] = %q, want %q", k, got.Metadata[k], v)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	f := sample()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	hlen := binary.LittleEndian.Uint64(b)
	if hlen%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", hlen)
	}
	if !strings.Contains(string(b[8:8+hlen]), "<in> a") {
		t.Errorf("header escapes HTML: %s", b[8:8+hlen])
	}
	got, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, got, f)
	if names := got.Names(); strings.Join(names, " ") != "a/labels b/weights empty scalar" {
		t.Errorf("Names() = %v", names)
	}
	b2, err := Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Error("encoding is not stable across a round trip")
	}

	// No tensors, no metadata.
	b3, err := Encode(New())
	if err != nil {
		t.Fatal(err)
	}
	e, err := Decode(b3)
	if err != nil || len(e.Tensors) != 0 || e.Metadata == nil {
		t.Fatalf("empty file: %v %v", e, err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.safetensors")
	f := sample()
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, got, f)
	before, _ := os.ReadFile(path)

	// A failed write leaves the existing file alone and no temporary behind.
	bad := New()
	bad.Set("x", Tensor{DType: F32, Shape: []int{3}, F32: []float32{1, 2}})
	err = WriteFile(path, bad)
	if err == nil || !strings.Contains(err.Error(), "holds 2 values") || !strings.Contains(err.Error(), path) {
		t.Fatalf("WriteFile(bad) error = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("failed write changed the existing file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want 1", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.safetensors"), f); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.safetensors")); err == nil || !strings.Contains(err.Error(), "missing.safetensors") {
		t.Errorf("ReadFile(missing) error = %v", err)
	}
	// Errors from a corrupt file name the file.
	os.WriteFile(filepath.Join(dir, "bad.safetensors"), []byte{1, 2, 3}, 0o644)
	if _, err := ReadFile(filepath.Join(dir, "bad.safetensors")); err == nil || !strings.Contains(err.Error(), "bad.safetensors: safetensors: truncated") {
		t.Errorf("ReadFile(bad) error = %v", err)
	}
}

func TestWriteRejects(t *testing.T) {
	cases := map[string]Tensor{
		"dtype":    {DType: "F64", Shape: []int{1}, F32: []float32{1}},
		"negative": {DType: F32, Shape: []int{-1}},
		"count":    {DType: I32, Shape: []int{2, 2}, I32: []int32{1, 2, 3}},
		"wrong":    {DType: I32, Shape: []int{1}, F32: []float32{1}},
	}
	for name, tt := range cases {
		f := New()
		f.Set(name, tt)
		var buf bytes.Buffer
		if err := Write(&buf, f); err == nil {
			t.Errorf("%s: Write succeeded", name)
		} else if buf.Len() != 0 {
			t.Errorf("%s: Write wrote %d bytes before failing", name, buf.Len())
		}
	}
	f := &File{Tensors: map[string]Tensor{MetadataKey: NewF32([]float32{1})}}
	if err := Write(&bytes.Buffer{}, f); err == nil {
		t.Error("Write accepted a tensor called __metadata__")
	}
}

func TestCheckAndGet(t *testing.T) {
	f := sample()
	if _, err := f.Get("nope"); err == nil || err.Error() != `missing tensor "nope"` {
		t.Errorf("Get(nope) error = %v", err)
	}
	w, _ := f.Get("b/weights")
	if err := w.Check("b/weights", F32, 2, 3); err != nil {
		t.Error(err)
	}
	if err := w.Check("b/weights", F32, 3, 2); err == nil || err.Error() != `tensor "b/weights" has shape [2,3], want [3,2]` {
		t.Errorf("Check error = %v", err)
	}
	if err := w.Check("b/weights", I32, 2, 3); err == nil || !strings.Contains(err.Error(), "dtype F32, want I32") {
		t.Errorf("Check error = %v", err)
	}
	if v, err := f.GetF32("b/weights"); err != nil || len(v) != 6 {
		t.Errorf("GetF32 = %v, %v", v, err)
	}
	if _, err := f.GetF32("b/weights", 6); err == nil {
		t.Error("GetF32 with a wrong shape succeeded")
	}
	if _, err := f.GetF32("a/labels"); err == nil {
		t.Error("GetF32 of an I32 tensor succeeded")
	}
	if v, err := f.GetI32("a/labels", 5); err != nil || v[2] != -7 {
		t.Errorf("GetI32 = %v, %v", v, err)
	}
	if v, err := f.Scalar("scalar"); err != nil || v != 0.125 {
		t.Errorf("Scalar = %v, %v", v, err)
	}
	if _, err := f.Scalar("b/weights"); err == nil {
		t.Error("Scalar of a matrix succeeded")
	}
	if got := FormatShape(nil); got != "[]" {
		t.Errorf("FormatShape(nil) = %q", got)
	}
	l, _ := f.Get("a/labels")
	if x := l.Float64(); x[1] != 1 || x[2] != -7 {
		t.Errorf("Float64() = %v", x)
	}
}

func TestNewPanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"F32 count": func() { NewF32([]float32{1, 2}, 3) },
		"I32 count": func() { NewI32([]int32{1}, 2) },
		"negative":  func() { NewF32(nil, -1, 0) },
		"reserved":  func() { New().Set(MetadataKey, NewF32([]float32{1})) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "safetensors: ") {
					t.Errorf("%s: recovered %v, want a safetensors panic", name, r)
				}
			}()
			fn()
		}()
	}
}

// build assembles a file from a raw header and data.
func build(header string, data []byte) []byte {
	b := make([]byte, 8, 8+len(header)+len(data))
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

func corruptCases() map[string]struct {
	b    []byte
	want string
} {
	d8 := make([]byte, 8)
	type c = struct {
		b    []byte
		want string
	}
	absurd := make([]byte, 16)
	binary.LittleEndian.PutUint64(absurd, 1<<62)
	beyond := make([]byte, 16)
	binary.LittleEndian.PutUint64(beyond, 100)
	return map[string]c{
		"empty":          {nil, "truncated"},
		"short length":   {[]byte{1, 0, 0}, "truncated"},
		"absurd header":  {absurd, "absurd"},
		"header too big": {beyond, "truncated: header length is 100"},
		"bad json":       {build(`{"a":`, nil), "invalid JSON"},
		"not object":     {build(`[1,2]`, nil), "want an object"},
		"trailing json":  {build(`{} {}`, nil), "trailing data after the header"},
		"duplicate":      {build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, d8), "twice"},
		"record type":    {build(`{"a":5}`, nil), `tensor "a": invalid header record`},
		"missing field":  {build(`{"a":{"dtype":"F32","shape":[1]}}`, nil), "needs dtype, shape and data_offsets"},
		"unsupported":    {build(`{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}`, d8), "unsupported dtype F64"},
		"unknown dtype":  {build(`{"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,8]}}`, d8), `unknown dtype "Q7"`},
		"negative dim":   {build(`{"a":{"dtype":"F32","shape":[-2,-2],"data_offsets":[0,16]}}`, d8), "negative dimension"},
		"float dim":      {build(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, d8), "invalid header record"},
		"offsets count":  {build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, d8), "data_offsets has 1 values"},
		"offsets order":  {build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}}`, d8), "invalid data_offsets [8,4]"},
		"shape size":     {build(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, d8), "shape [3] of F32 needs 12 bytes, data_offsets [0,8] give 8"},
		"huge shape":     {build(`{"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}}`, d8), "is too large"},
		"truncated data": {build(`{"a":{"dtype":"I32","shape":[3],"data_offsets":[0,12]}}`, d8), "truncated: header says 12 bytes of data, file has 8"},
		"overlap":        {build(`{"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}}`, d8), "overlap"},
		"gap":            {build(`{"a":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}}`, d8), "gap of 4 bytes"},
		"trailing data":  {build(`{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}}`, d8), "trailing data after the last tensor"},
		"bad metadata":   {build(`{"__metadata__":{"a":1}}`, nil), "__metadata__ must be an object of strings"},
		"null metadata":  {build(`{"__metadata__":null}`, nil), "__metadata__ must be an object of strings"},
	}
}

// TestCorrupt reads each corrupt file as a stream (Read, length unknown)
// and whole (Decode, length known): both refuse it with the same reason.
func TestCorrupt(t *testing.T) {
	for name, c := range corruptCases() {
		for how, read := range map[string]func([]byte) (*File, error){
			"Read":   func(b []byte) (*File, error) { return Read(bytes.NewReader(b)) },
			"Decode": Decode,
		} {
			_, err := read(c.b)
			if err == nil {
				t.Errorf("%s: %s succeeded", name, how)
				continue
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s error %q does not mention %q", name, how, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "safetensors: ") {
				t.Errorf("%s: %s error %q lacks the package prefix", name, how, err)
			}
		}
	}
}

func TestTruncatedAndFlipped(t *testing.T) {
	b, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := Decode(b[:n]); err == nil {
			t.Errorf("Decode of the first %d of %d bytes succeeded", n, len(b))
		}
	}
	// Flipping any bit must give an error or a valid file, never a panic.
	for i := range b {
		for bit := 0; bit < 8; bit++ {
			c := append([]byte(nil), b...)
			c[i] ^= 1 << bit
			Decode(c)
		}
	}
}

func TestGolden(t *testing.T) {
	dir := goldenDir(t)
	paths, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 5 {
		t.Fatalf("found %d golden files in %s, want at least 5", len(paths), dir)
	}
	for _, p := range paths {
		f, err := ReadFile(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(f.Tensors) == 0 || f.Metadata["torch"] == "" && f.Metadata["steps"] == "" {
			t.Errorf("%s: %d tensors, metadata %v", p, len(f.Tensors), f.Metadata)
		}
		// Re-encoding reproduces the data section byte for byte (same sorted
		// layout); the header differs only in metadata key order.
		orig, _ := os.ReadFile(p)
		enc, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		oh := binary.LittleEndian.Uint64(orig)
		eh := binary.LittleEndian.Uint64(enc)
		if !bytes.Equal(orig[8+oh:], enc[8+eh:]) {
			t.Errorf("%s: re-encoded data section differs", p)
		}
	}

	f, err := ReadFile(filepath.Join(dir, "head_cases.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Metadata["C"] != "4" || f.Metadata["D"] != "3" || f.Metadata["N"] != "7" {
		t.Errorf("metadata = %v", f.Metadata)
	}
	z, err := f.GetF32("spherical/z", 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.GetI32("spherical/y", 7); err != nil {
		t.Error(err)
	}
	if _, err := f.Scalar("spherical/log_var"); err != nil {
		t.Error(err)
	}
	// The full head stores L and Sigma = L L^T: check the relation.
	L, err := f.GetF32("full/L", 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	S, err := f.GetF32("full/Sigma", 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var s float64
			for k := 0; k < 3; k++ {
				s += float64(L[3*i+k]) * float64(L[3*j+k])
			}
			if math.Abs(s-float64(S[3*i+j])) > 1e-5*(1+math.Abs(s)) {
				t.Errorf("Sigma[%d,%d] = %v, L L^T gives %v", i, j, S[3*i+j], s)
			}
		}
		if L[3*i+i] <= 0 {
			t.Errorf("L[%d,%d] = %v is not positive", i, i, L[3*i+i])
		}
	}
	for _, v := range z {
		if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 20 {
			t.Errorf("implausible z value %v", v)
		}
	}
	pi, err := f.GetF32("lda_mle/pi", 3)
	if err != nil {
		t.Fatal(err)
	}
	if s := pi[0] + pi[1] + pi[2]; math.Abs(float64(s)-1) > 1e-6 {
		t.Errorf("lda_mle/pi sums to %v", s)
	}
	labels, err := f.GetI32("ece/labels", 500)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		if l < 0 || l >= 5 {
			t.Fatalf("ece label %d out of range", l)
		}
	}

	m, err := ReadFile(filepath.Join(dir, "mlp_synthetic.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.GetF32("init/enc.fc1.weight", 32, 2); err != nil {
		t.Error(err)
	}
	if _, err := m.GetF32("adam/losses", 5); err != nil {
		t.Error(err)
	}
}

func FuzzRead(f *testing.F) {
	valid, err := Encode(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	one := New()
	one.Set("x", NewF32([]float32{1.5}, 1))
	b, _ := Encode(one)
	f.Add(b)
	b, _ = Encode(New())
	f.Add(b)
	f.Add(valid[:len(valid)-3])
	f.Add(valid[:20])
	flipped := append([]byte(nil), valid...)
	flipped[12] ^= 0x20
	f.Add(flipped)
	for _, c := range corruptCases() {
		f.Add(c.b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Read(bytes.NewReader(b))
		if _, derr := Decode(b); (derr == nil) != (err == nil) {
			t.Fatalf("Read error %v, Decode error %v", err, derr)
		}
		if err != nil {
			if file != nil {
				t.Fatal("Read returned a file and an error")
			}
			if !strings.HasPrefix(err.Error(), "safetensors: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		// Whatever Read accepts, Write must write and Read must read back
		// identically, and the encoding must then be stable.
		enc, err := Encode(file)
		if err != nil {
			t.Fatalf("Encode of a file Read accepted: %v", err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode of Encode output: %v", err)
		}
		sameFile(t, again, file)
		enc2, err := Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatal("encoding not stable")
		}
	})
}

func TestHugeShapeRejected(t *testing.T) {
	f := New()
	f.Set("x", Tensor{DType: F32, Shape: []int{1 << 32, 1 << 32}})
	if err := Write(&bytes.Buffer{}, f); err == nil || !strings.Contains(err.Error(), "invalid shape") {
		t.Errorf("Write error = %v", err)
	}
	f.Set("x", Tensor{DType: F32, Shape: []int{1 << 40, 1 << 40, 0}, F32: []float32{}})
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, g, f)
}

// TestReadI64AsI32 reads PyTorch's int64 counters (num_batches_tracked) as
// I32, and refuses values that do not fit.
func TestReadI64AsI32(t *testing.T) {
	le := func(v int64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(uint64(v) >> (8 * i))
		}
		return b
	}
	f, err := Decode(build(`{"n":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}`, le(12345)))
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Tensors["n"]; n.DType != I32 || len(n.I32) != 1 || n.I32[0] != 12345 {
		t.Errorf("read %+v, want I32 12345", n)
	}
	_, err = Decode(build(`{"n":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}`, le(1<<40)))
	if err == nil || !strings.Contains(err.Error(), "does not fit in I32") {
		t.Errorf("error %v for an I64 beyond int32", err)
	}
}

// endless is a stream that goes on for limit bytes of zeros and then fails:
// a reader that reaches its end has read far past any sane file.
type endless struct{ read, limit int }

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.limit {
		return 0, errors.New("read too far")
	}
	n := min(len(p), e.limit-e.read)
	clear(p[:n])
	e.read += n
	return n, nil
}

// TestReadStopsAtTheAnnouncedEnd reads a valid file followed by an endless
// stream: Read refuses the trailing data after reading one byte of it, and
// a stream of zeros (as /dev/zero gives) is refused at its empty header.
func TestReadStopsAtTheAnnouncedEnd(t *testing.T) {
	valid, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	tail := &endless{limit: 64 << 20}
	_, err = Read(io.MultiReader(bytes.NewReader(valid), tail))
	if err == nil || !strings.Contains(err.Error(), "trailing data after the last tensor") {
		t.Errorf("error %v, want trailing data", err)
	}
	if tail.read > 1 {
		t.Errorf("Read went %d bytes past the end of the file", tail.read)
	}
	zeros := &endless{limit: 64 << 20}
	if _, err := Read(zeros); err == nil || !strings.Contains(err.Error(), "invalid JSON header") {
		t.Errorf("a stream of zeros: error %v, want an invalid header", err)
	}
	if zeros.read > 8 {
		t.Errorf("Read took %d bytes of a stream of zeros, want the 8 of the length prefix", zeros.read)
	}
}

// TestReadFileDevice reads /dev/zero, a file with no end: ReadFile refuses
// it at once instead of reading until memory runs out.
func TestReadFileDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skipf("SKIPPED: no /dev/zero here (%v)", err)
	}
	_, err := ReadFile("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: safetensors: invalid JSON header") {
		t.Errorf("error %v, want /dev/zero named with an invalid header", err)
	}
}
