package images

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
)

// IDX magic numbers of the files read here.
const (
	idxImages uint32 = 0x00000803 // uint8, 3 dimensions: n, rows, cols
	idxLabels uint32 = 0x00000801 // uint8, 1 dimension: n
)

// idxFile is a decoded IDX file.
type idxFile struct {
	dims []int
	data []byte
}

// describe says what an IDX header announces, for error messages.
func describe(magic uint32, dims []int) string {
	if magic == idxLabels {
		return fmt.Sprintf("%d labels", dims[0])
	}
	hi, lo := bits.Mul64(uint64(dims[0])*uint64(dims[1]), uint64(dims[2]))
	if hi != 0 {
		return fmt.Sprintf("%d images of %dx%d (more than 2^64 bytes)", dims[0], dims[1], dims[2])
	}
	return fmt.Sprintf("%d images of %dx%d (%d bytes)", dims[0], dims[1], dims[2], lo)
}

// mismatch reports a body of have bytes where the header announces total.
func mismatch(name string, magic uint32, dims []int, total, have uint64) error {
	what := describe(magic, dims)
	if have < total {
		if magic == idxLabels {
			return fmt.Errorf("%s: truncated: header says %s, file has %d", name, what, have)
		}
		per := uint64(dims[1]) * uint64(dims[2])
		return fmt.Errorf("%s: truncated: header says %s, file has %d bytes (%d whole images)", name, what, have, have/per)
	}
	return fmt.Errorf("%s: header says %s, file has %d bytes of data (%d extra)", name, what, have, have-total)
}

// readIDX decodes one IDX file with the given magic from r, gzip-compressed
// (detected by its magic bytes 1f 8b; decompressed up to limit) or raw.
// size is the length of the input when known, or -1. When wantSHA is not
// empty, the SHA-256 of the uncompressed file must equal it. Errors name
// the file.
func readIDX(name string, r io.Reader, size int64, magic uint32, wantSHA string, limit sizeCap) (*idxFile, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(2)
	if len(head) == 0 {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%s: empty file", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var src io.Reader = br
	var zr *capped // nil for raw input
	gz := len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
	if gz {
		if zr, err = gunzip(name, br, limit); err != nil {
			return nil, fmt.Errorf("%s: bad gzip data: %v", name, err)
		}
		src, size = zr, -1
	}
	h := sha256.New()
	src = io.TeeReader(src, h)

	var word [4]byte
	if n, err := io.ReadFull(src, word[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, fmt.Errorf("%s: empty file", name)
		}
		return nil, fmt.Errorf("%s: truncated: %d bytes, too short for an IDX header: %v", name, n, err)
	}
	if got := binary.BigEndian.Uint32(word[:]); got != magic {
		return nil, badMagic(name, got, magic, gz)
	}
	nd := int(magic & 0xff)
	dims := make([]int, nd)
	total := uint64(1)
	for i := range dims {
		if _, err := io.ReadFull(src, word[:]); err != nil {
			return nil, fmt.Errorf("%s: truncated: the IDX header ends before its %d dimensions", name, nd)
		}
		d := binary.BigEndian.Uint32(word[:])
		dims[i] = int(d)
		if total <= maxBytes {
			total *= uint64(d) // at most 2^30 * 2^32: no overflow
		}
	}
	switch {
	case dims[0] == 0 && magic == idxLabels:
		return nil, fmt.Errorf("%s: empty: header says 0 labels", name)
	case dims[0] == 0:
		return nil, fmt.Errorf("%s: empty: header says 0 images", name)
	case nd == 3 && (dims[1] == 0 || dims[2] == 0):
		return nil, fmt.Errorf("%s: bad header: images of %dx%d", name, dims[1], dims[2])
	case total > maxBytes:
		return nil, fmt.Errorf("%s: header says %s, more than the limit of %d bytes", name, describe(magic, dims), maxBytes)
	}
	if size >= 0 {
		// Raw input of known length: check before allocating.
		if have := size - int64(4+4*nd); have < 0 || uint64(have) != total {
			return nil, mismatch(name, magic, dims, total, uint64(max(have, 0)))
		}
	}
	data, err := readN(src, int(total))
	if len(data) < int(total) {
		switch {
		case zr.exceeded():
			return nil, zr
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil, mismatch(name, magic, dims, total, uint64(len(data)))
		}
		return nil, fmt.Errorf("%s: reading after %d bytes of data: %v", name, len(data), err)
	}
	extra, err := io.Copy(io.Discard, io.LimitReader(src, maxBytes))
	switch {
	case zr.exceeded():
		return nil, zr
	case err == io.ErrUnexpectedEOF && gz:
		return nil, fmt.Errorf("%s: truncated gzip stream: the data is complete but the gzip trailer is missing or cut", name)
	case err != nil:
		return nil, fmt.Errorf("%s: after the data: %v", name, err)
	}
	if extra > 0 {
		return nil, mismatch(name, magic, dims, total, total+uint64(extra))
	}
	if wantSHA != "" {
		if got := hex.EncodeToString(h.Sum(nil)); got != wantSHA {
			if have, want := Which(got), Which(wantSHA); have != "" && have != want {
				return nil, &WrongSetError{Path: name, Have: have, Want: want}
			}
			return nil, fmt.Errorf("%s: SHA-256 of the uncompressed data is %s, expected %s", name, got, wantSHA)
		}
	}
	return &idxFile{dims: dims, data: data}, nil
}

// badMagic explains an unexpected IDX magic number.
func badMagic(name string, got, want uint32, gz bool) error {
	kind := map[uint32]string{idxImages: "IDX uint8 images", idxLabels: "IDX uint8 labels"}
	msg := fmt.Sprintf("%s: bad magic 0x%08x, want 0x%08x (%s)", name, got, want, kind[want])
	if k, ok := kind[got]; ok {
		msg += "; this is a file of " + k
	} else if !gz && got>>16 == 0x1f8b {
		msg += "; damaged gzip data?"
	} else if got>>16 != 0 {
		msg += "; not an IDX file"
	}
	return errors.New(msg)
}

// readN reads exactly n bytes from r, growing its buffer as data arrives so
// that a short input never causes an allocation of the full n. On a short
// read it returns the bytes read and the error (io.EOF or
// io.ErrUnexpectedEOF when the input ended).
func readN(r io.Reader, n int) ([]byte, error) {
	const chunk = 1 << 20
	buf := make([]byte, 0, min(n, chunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if len(buf) == n {
			break // a later read reports any error again
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// readIDXFile reads one IDX file from disk.
func readIDXFile(path string, magic uint32, wantSHA string, limit sizeCap) (*idxFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return readIDX(path, f, st.Size(), magic, wantSHA, limit)
}

// ReadIDX reads a set from an IDX image file (magic 0x00000803, uint8
// [n,rows,cols]) and an IDX label file (magic 0x00000801, uint8 [n]), each
// gzip-compressed or raw, with labels in [0, classes). The set has shape
// [1,rows,cols], the name of the image file and no normalisation constants.
// It panics if classes is not in [1, 256].
func ReadIDX(imagesPath, labelsPath string, classes int) (*Set, error) {
	checkClasses("ReadIDX", classes)
	img, err := readIDXFile(imagesPath, idxImages, "", idxCap)
	if err != nil {
		return nil, err
	}
	lbl, err := readIDXFile(labelsPath, idxLabels, "", idxCap)
	if err != nil {
		return nil, err
	}
	return makeIDXSet(imagesPath, img, labelsPath, lbl, classes)
}

// ParseIDX is ReadIDX on files held in memory; the names identify them in
// errors.
func ParseIDX(imagesName string, images []byte, labelsName string, labels []byte, classes int) (*Set, error) {
	checkClasses("ParseIDX", classes)
	img, err := readIDX(imagesName, bytes.NewReader(images), int64(len(images)), idxImages, "", idxCap)
	if err != nil {
		return nil, err
	}
	lbl, err := readIDX(labelsName, bytes.NewReader(labels), int64(len(labels)), idxLabels, "", idxCap)
	if err != nil {
		return nil, err
	}
	return makeIDXSet(imagesName, img, labelsName, lbl, classes)
}

// checkClasses panics on a class count that uint8 labels cannot hold.
func checkClasses(fn string, classes int) {
	if classes < 1 || classes > 256 {
		panic(fmt.Sprintf("images: %s: %d classes, want 1 to 256", fn, classes))
	}
}

// makeIDXSet checks decoded image and label files against each other.
func makeIDXSet(imagesName string, img *idxFile, labelsName string, lbl *idxFile, classes int) (*Set, error) {
	if n, m := img.dims[0], lbl.dims[0]; n != m {
		return nil, fmt.Errorf("%s: %d labels, but %s has %d images", labelsName, m, imagesName, n)
	}
	for i, y := range lbl.data {
		if int(y) >= classes {
			return nil, fmt.Errorf("%s: label %d of example %d is outside [0, %d)", labelsName, y, i, classes)
		}
	}
	return &Set{
		Name:    imagesName,
		Pixels:  img.data,
		Labels:  lbl.data,
		Shape:   [3]int{1, img.dims[1], img.dims[2]},
		Classes: classes,
	}, nil
}
