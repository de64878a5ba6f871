package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"sort"
)

// i64 is read (as I32) but never written.
const i64 = "I64"

// dtypeSizes lists the dtypes of the safetensors specification with their
// element sizes in bytes, so that unsupported ones get a precise message.
var dtypeSizes = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1,
	"U16": 2, "I16": 2, "F16": 2, "BF16": 2,
	"U32": 4, "I32": 4, "F32": 4,
	"U64": 8, "I64": 8, "F64": 8,
}

// ReadFile reads and validates the safetensors file at path. A regular
// file is read to its size and no further, in one allocation of that size;
// anything else (a pipe, a device such as /dev/zero) is read as a stream by
// Read. Errors name the file.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	f, err := read(fh, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read reads one safetensors file from r and validates it. It reads the
// length prefix, then the header, then exactly the data the header
// announces, and fails if r goes on after that: memory grows with the bytes
// r delivers, never with what a corrupt header claims, and an endless
// stream is refused once it passes the end of the announced data.
func Read(r io.Reader) (*File, error) { return read(r, -1) }

// Decode parses and validates a complete safetensors file held in b. The
// returned tensors do not alias b.
func Decode(b []byte) (*File, error) { return read(bytes.NewReader(b), int64(len(b))) }

// entry is one tensor's header record.
type entry struct {
	name       string
	dtype      string
	shape      []int
	begin, end int
	numel      int
}

type rawEntry struct {
	DType       *string  `json:"dtype"`
	Shape       *[]int64 `json:"shape"`
	DataOffsets *[]int64 `json:"data_offsets"`
}

// read reads a safetensors file from r, whose length is size bytes, or
// unknown when size < 0. With a known size every length in the file is
// checked against it before anything is allocated.
func read(r io.Reader, size int64) (*File, error) {
	var prefix [8]byte
	if n, err := io.ReadFull(r, prefix[:]); err != nil {
		if isShort(err) {
			return nil, fmt.Errorf("safetensors: truncated: file has %d bytes, need at least 8 for the header length", n)
		}
		return nil, fmt.Errorf("safetensors: reading: %w", err)
	}
	hlen := binary.LittleEndian.Uint64(prefix[:])
	if hlen > MaxHeaderLen {
		return nil, fmt.Errorf("safetensors: header length %d is absurd (limit %d); not a safetensors file?", hlen, MaxHeaderLen)
	}
	truncatedHeader := func(got int64) error {
		return fmt.Errorf("safetensors: truncated: header length is %d bytes, file has only %d bytes after the length prefix", hlen, got)
	}
	if size >= 0 && (size < 8 || hlen > uint64(size-8)) {
		return nil, truncatedHeader(max(size-8, 0))
	}
	header, err := readN(r, int64(hlen), size >= 0)
	if err != nil {
		if isShort(err) {
			return nil, truncatedHeader(int64(len(header)))
		}
		return nil, fmt.Errorf("safetensors: reading: %w", err)
	}
	entries, meta, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	dataLen := int64(dataEnd(entries))
	if size >= 0 {
		// The layout is checked against the real size before the data is
		// read: a header that claims more (or less) data fails here.
		dataLen = size - 8 - int64(hlen)
		if err := checkLayout(entries, int(dataLen)); err != nil {
			return nil, err
		}
	}
	data, err := readN(r, dataLen, size >= 0)
	if err != nil {
		if isShort(err) {
			return nil, fmt.Errorf("safetensors: truncated: header says %d bytes of data, file has %d", dataLen, len(data))
		}
		return nil, fmt.Errorf("safetensors: reading: %w", err)
	}
	if size < 0 {
		if err := checkLayout(entries, len(data)); err != nil {
			return nil, err
		}
		var more [1]byte
		if n, _ := io.ReadFull(r, more[:]); n > 0 {
			return nil, fmt.Errorf("safetensors: trailing data after the last tensor (header says %d bytes of data, the stream goes on)", dataLen)
		}
	}
	return decodeData(entries, meta, data)
}

// isShort reports whether err says that a reader ended early.
func isShort(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// readN reads n bytes from r: into one allocation of n bytes when sized (n
// is known to be there), else into a buffer that grows with what r
// delivers. On a short read it returns what came with the error.
func readN(r io.Reader, n int64, sized bool) ([]byte, error) {
	if sized {
		b := make([]byte, n)
		got, err := io.ReadFull(r, b)
		return b[:got], err
	}
	var buf bytes.Buffer
	if _, err := io.CopyN(&buf, r, n); err != nil {
		return buf.Bytes(), err
	}
	return buf.Bytes(), nil
}

// decodeData converts the data section of a validated layout into tensors.
func decodeData(entries []entry, meta map[string]string, data []byte) (*File, error) {
	f := &File{Tensors: make(map[string]Tensor, len(entries)), Metadata: meta}
	for _, e := range entries {
		raw := data[e.begin:e.end]
		t := Tensor{DType: e.dtype, Shape: e.shape}
		switch e.dtype {
		case F32:
			t.F32 = make([]float32, e.numel)
			for i := range t.F32 {
				t.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		case I32:
			t.I32 = make([]int32, e.numel)
			for i := range t.I32 {
				t.I32[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		case i64:
			// PyTorch stores counters such as num_batches_tracked as int64:
			// read them as I32 when every value fits.
			t.DType, t.I32 = I32, make([]int32, e.numel)
			for i := range t.I32 {
				v := int64(binary.LittleEndian.Uint64(raw[8*i:]))
				if v < math.MinInt32 || v > math.MaxInt32 {
					return nil, fmt.Errorf("safetensors: tensor %q: I64 value %d does not fit in I32", e.name, v)
				}
				t.I32[i] = int32(v)
			}
		}
		f.Tensors[e.name] = t
	}
	return f, nil
}

// parseHeader decodes the JSON header, rejecting duplicate keys, malformed
// records, unsupported dtypes and shapes that do not match their offsets.
func parseHeader(header []byte) ([]entry, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: invalid JSON header: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("safetensors: invalid JSON header: want an object, got %v", tok)
	}
	meta := map[string]string{}
	var entries []entry
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: invalid JSON header: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: invalid JSON header: want a key, got %v", tok)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("safetensors: header has key %q twice", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("safetensors: invalid JSON header at key %q: %v", name, err)
		}
		if name == MetadataKey {
			var m map[string]string
			if err := json.Unmarshal(raw, &m); err != nil || m == nil {
				return nil, nil, fmt.Errorf("safetensors: %s must be an object of strings", MetadataKey)
			}
			meta = m
			continue
		}
		e, err := parseEntry(name, raw)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, nil, fmt.Errorf("safetensors: invalid JSON header: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("safetensors: invalid JSON header: trailing data after the header object")
	}
	return entries, meta, nil
}

func parseEntry(name string, raw json.RawMessage) (entry, error) {
	var r rawEntry
	if err := json.Unmarshal(raw, &r); err != nil {
		return entry{}, fmt.Errorf("safetensors: tensor %q: invalid header record: %v", name, err)
	}
	if r.DType == nil || r.Shape == nil || r.DataOffsets == nil {
		return entry{}, fmt.Errorf("safetensors: tensor %q: header record needs dtype, shape and data_offsets", name)
	}
	e := entry{name: name, dtype: *r.DType}
	elem, known := dtypeSizes[e.dtype]
	if !known {
		return entry{}, fmt.Errorf("safetensors: tensor %q: unknown dtype %q", name, e.dtype)
	}
	if e.dtype != F32 && e.dtype != I32 && e.dtype != i64 {
		return entry{}, fmt.Errorf("safetensors: tensor %q: unsupported dtype %s (only F32, I32 and I64 are read)", name, e.dtype)
	}
	off := *r.DataOffsets
	if len(off) != 2 {
		return entry{}, fmt.Errorf("safetensors: tensor %q: data_offsets has %d values, want 2", name, len(off))
	}
	if off[0] < 0 || off[1] < off[0] || int64(int(off[1])) != off[1] {
		return entry{}, fmt.Errorf("safetensors: tensor %q: invalid data_offsets [%d,%d]", name, off[0], off[1])
	}
	span := off[1] - off[0]
	e.shape = make([]int, len(*r.Shape))
	hasZero := false
	for i, s := range *r.Shape {
		if s < 0 {
			return entry{}, fmt.Errorf("safetensors: tensor %q: negative dimension in shape %s", name, shape64(*r.Shape))
		}
		if int64(int(s)) != s {
			return entry{}, fmt.Errorf("safetensors: tensor %q: dimension %d too large", name, s)
		}
		e.shape[i] = int(s)
		hasZero = hasZero || s == 0
	}
	numel := uint64(0)
	if !hasZero {
		numel = 1
		for _, s := range *r.Shape {
			hi, lo := bits.Mul64(numel, uint64(s))
			if hi != 0 || lo > math.MaxInt64/8 {
				return entry{}, fmt.Errorf("safetensors: tensor %q: shape %s is too large", name, shape64(*r.Shape))
			}
			numel = lo
		}
	}
	if int64(numel)*int64(elem) != span {
		return entry{}, fmt.Errorf("safetensors: tensor %q: shape %s of %s needs %d bytes, data_offsets [%d,%d] give %d", name, shape64(*r.Shape), e.dtype, int64(numel)*int64(elem), off[0], off[1], span)
	}
	e.begin, e.end = int(off[0]), int(off[1])
	e.numel = int(numel)
	return e, nil
}

// checkLayout checks that the tensors fit in the data section, tile it
// without gaps or overlaps and leave no trailing bytes, as the specification
// asks.
func checkLayout(entries []entry, dataLen int) error {
	if maxEnd := dataEnd(entries); maxEnd > dataLen {
		return fmt.Errorf("safetensors: truncated: header says %d bytes of data, file has %d", maxEnd, dataLen)
	}
	sorted := make([]entry, len(entries))
	copy(sorted, entries)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].begin != sorted[j].begin {
			return sorted[i].begin < sorted[j].begin
		}
		return sorted[i].end < sorted[j].end
	})
	pos := 0
	prev := ""
	for _, e := range sorted {
		if e.begin < pos {
			return fmt.Errorf("safetensors: tensors %q and %q overlap in the data section", prev, e.name)
		}
		if e.begin > pos {
			return fmt.Errorf("safetensors: gap of %d bytes in the data section before tensor %q", e.begin-pos, e.name)
		}
		pos = e.end
		prev = e.name
	}
	if pos < dataLen {
		return fmt.Errorf("safetensors: %d bytes of trailing data after the last tensor (header says %d bytes of data, file has %d)", dataLen-pos, pos, dataLen)
	}
	return nil
}

// dataEnd returns the end of the data section that entries describe.
func dataEnd(entries []entry) int {
	end := 0
	for _, e := range entries {
		end = max(end, e.end)
	}
	return end
}

func shape64(s []int64) string {
	ints := make([]int, len(s))
	for i, v := range s {
		ints[i] = int(v)
	}
	return FormatShape(ints)
}
