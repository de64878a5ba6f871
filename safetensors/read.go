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

// ReadFile reads and validates the safetensors file at path. Errors name the
// file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	f, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read reads a whole safetensors stream from r and validates it.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("safetensors: reading: %w", err)
	}
	return Decode(b)
}

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

// Decode parses and validates a complete safetensors file held in b. The
// returned tensors do not alias b.
func Decode(b []byte) (*File, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("safetensors: truncated: file has %d bytes, need at least 8 for the header length", len(b))
	}
	hlen := binary.LittleEndian.Uint64(b[:8])
	if hlen > MaxHeaderLen {
		return nil, fmt.Errorf("safetensors: header length %d is absurd (limit %d); not a safetensors file?", hlen, MaxHeaderLen)
	}
	if hlen > uint64(len(b)-8) {
		return nil, fmt.Errorf("safetensors: truncated: header length is %d bytes, file has only %d bytes after the length prefix", hlen, len(b)-8)
	}
	header := b[8 : 8+hlen]
	data := b[8+hlen:]

	entries, meta, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	if err := checkLayout(entries, len(data)); err != nil {
		return nil, err
	}

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
	maxEnd := 0
	for _, e := range entries {
		if e.end > maxEnd {
			maxEnd = e.end
		}
	}
	if maxEnd > dataLen {
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

func shape64(s []int64) string {
	ints := make([]int, len(s))
	for i, v := range s {
		ints[i] = int(v)
	}
	return FormatShape(ints)
}
