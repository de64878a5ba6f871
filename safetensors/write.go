package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/deeplda/deeplda/internal/atomicfile"
)

// Encode returns f in the safetensors format, as Write writes it.
func Encode(f *File) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes f to w in the safetensors format: tensors in sorted name
// order, laid out contiguously in that order, then "__metadata__" (omitted
// when empty) last in the header, which is padded with spaces to a multiple
// of 8 bytes (as gen_golden.py does). It returns an error, writing nothing,
// if a tensor is inconsistent (unknown dtype, negative dimension, or a value
// count that does not match its shape).
func Write(w io.Writer, f *File) error {
	header, err := encodeHeader(f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var lenb [8]byte
	binary.LittleEndian.PutUint64(lenb[:], uint64(len(header)))
	bw.Write(lenb[:])
	bw.Write(header)
	var word [4]byte
	for _, name := range f.Names() {
		t := f.Tensors[name]
		switch t.DType {
		case F32:
			for _, v := range t.F32 {
				binary.LittleEndian.PutUint32(word[:], math.Float32bits(v))
				bw.Write(word[:])
			}
		case I32:
			for _, v := range t.I32 {
				binary.LittleEndian.PutUint32(word[:], uint32(v))
				bw.Write(word[:])
			}
		}
	}
	// bufio.Writer keeps the first error and returns it from Flush.
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("safetensors: writing: %w", err)
	}
	return nil
}

func encodeHeader(f *File) ([]byte, error) {
	var h bytes.Buffer
	h.WriteByte('{')
	off := 0
	first := true
	for _, name := range f.Names() {
		t := f.Tensors[name]
		if name == MetadataKey {
			return nil, fmt.Errorf("safetensors: tensor name %q is reserved for metadata", name)
		}
		if t.DType != F32 && t.DType != I32 {
			return nil, fmt.Errorf("safetensors: tensor %q: cannot write dtype %q (only F32 and I32)", name, t.DType)
		}
		if err := t.Check(name, t.DType, t.Shape...); err != nil {
			return nil, fmt.Errorf("safetensors: %w", err)
		}
		if !first {
			h.WriteByte(',')
		}
		first = false
		writeJSONString(&h, name)
		size := 4 * t.Numel()
		fmt.Fprintf(&h, `:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, t.DType, FormatShape(t.Shape), off, off+size)
		off += size
	}
	if len(f.Metadata) > 0 {
		if !first {
			h.WriteByte(',')
		}
		writeJSONString(&h, MetadataKey)
		h.WriteString(":{")
		keys := make([]string, 0, len(f.Metadata))
		for k := range f.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				h.WriteByte(',')
			}
			writeJSONString(&h, k)
			h.WriteByte(':')
			writeJSONString(&h, f.Metadata[k])
		}
		h.WriteByte('}')
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	return h.Bytes(), nil
}

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // cannot fail for a string
	b.Truncate(b.Len() - 1) // drop the newline Encode appends
}

// WriteFile writes f to path atomically and durably
// (atomicfile.Write), so a failed write never destroys an existing file.
// The file gets mode 0644 less the umask.
func WriteFile(path string, f *File) error {
	// Validate before touching the file system.
	if _, err := encodeHeader(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return Write(w, f) }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
