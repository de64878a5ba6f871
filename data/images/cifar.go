package images

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Format is the file format of a data set.
type Format int

// The formats read here.
const (
	IDX      Format = iota + 1 // IDX image and label files (MNIST, Fashion-MNIST)
	CIFAR10                    // CIFAR-10 binary: 1 label byte, 3072 pixel bytes per record
	CIFAR100                   // CIFAR-100 binary: coarse label, fine label, 3072 pixel bytes
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case IDX:
		return "idx"
	case CIFAR10:
		return "cifar10"
	case CIFAR100:
		return "cifar100"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// CIFAR record geometry.
const (
	cifarPixels = 3 * 32 * 32
	cifarCoarse = 20 // CIFAR-100 coarse classes
)

// cifarLayout returns the label bytes per record and the number of (fine)
// classes of a CIFAR format; it panics for other formats.
func cifarLayout(fn string, f Format) (labelBytes, classes int) {
	switch f {
	case CIFAR10:
		return 1, 10
	case CIFAR100:
		return 2, 100
	}
	panic(fmt.Sprintf("images: %s: %v is not a CIFAR format", fn, f))
}

// cifarRecords returns the number of records of a CIFAR file of size bytes.
func cifarRecords(name string, size int64, f Format) (int, error) {
	lb, _ := cifarLayout("cifarRecords", f)
	rec := int64(lb + cifarPixels)
	switch {
	case size == 0:
		return 0, fmt.Errorf("%s: empty file", name)
	case size%rec != 0:
		return 0, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte %v records (%d records and %d bytes over): truncated, or not a %v binary file",
			name, size, rec, f, size/rec, size%rec, f)
	case size/rec*cifarPixels > maxBytes:
		return 0, fmt.Errorf("%s: %d records, more than the limit of %d bytes of pixels", name, size/rec, maxBytes)
	}
	return int(size / rec), nil
}

// decodeCIFAR reads recs records of format f from r into pix, labels and
// coarse (CIFAR-100 only), which hold exactly recs records; with pix nil it
// only checks the records. It checks that r ends after them, and the
// SHA-256 of the data when wantSHA is not empty.
func decodeCIFAR(name string, r io.Reader, recs int, f Format, pix, labels, coarse []uint8, wantSHA string) error {
	lb, classes := cifarLayout("decodeCIFAR", f)
	var h hash.Hash
	if wantSHA != "" {
		h = sha256.New()
	}
	br := bufio.NewReaderSize(r, 64<<10)
	rec := make([]byte, lb+cifarPixels)
	for i := range recs {
		if n, err := io.ReadFull(br, rec); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return fmt.Errorf("%s: truncated: expected %d records, the data ends %d bytes into record %d", name, recs, n, i)
			}
			return fmt.Errorf("%s: record %d: %v", name, i, err)
		}
		if h != nil {
			h.Write(rec)
		}
		fine := rec[lb-1]
		if f == CIFAR100 && rec[0] >= cifarCoarse {
			return fmt.Errorf("%s: record %d has coarse label %d, outside [0, %d)", name, i, rec[0], cifarCoarse)
		}
		if int(fine) >= classes {
			return fmt.Errorf("%s: record %d has label %d, outside [0, %d)", name, i, fine, classes)
		}
		if pix != nil {
			labels[i] = fine
			if f == CIFAR100 {
				coarse[i] = rec[0]
			}
			copy(pix[i*cifarPixels:(i+1)*cifarPixels], rec[lb:])
		}
	}
	if extra, err := io.Copy(io.Discard, io.LimitReader(br, maxBytes)); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	} else if extra > 0 {
		return fmt.Errorf("%s: %d bytes after the expected %d records", name, extra, recs)
	}
	if h != nil {
		if got := hex.EncodeToString(h.Sum(nil)); got != wantSHA {
			return fmt.Errorf("%s: SHA-256 is %s, expected %s", name, got, wantSHA)
		}
	}
	return nil
}

// newCIFARSet allocates a set of n records of format f.
func newCIFARSet(name string, f Format, n int) *Set {
	_, classes := cifarLayout("newCIFARSet", f)
	s := &Set{
		Name:    name,
		Pixels:  make([]uint8, n*cifarPixels),
		Labels:  make([]uint8, n),
		Shape:   [3]int{3, 32, 32},
		Classes: classes,
	}
	if f == CIFAR100 {
		s.Coarse = make([]uint8, n)
	}
	return s
}

// ParseCIFAR decodes a CIFAR-10 or CIFAR-100 binary file held in memory
// (format CIFAR10 or CIFAR100); name identifies it in errors. The set has
// shape [3,32,32] (RGB planes), the fine labels (10 or 100 classes), for
// CIFAR-100 the coarse labels, and no normalisation constants. It panics if
// f is not a CIFAR format.
func ParseCIFAR(f Format, name string, data []byte) (*Set, error) {
	cifarLayout("ParseCIFAR", f)
	n, err := cifarRecords(name, int64(len(data)), f)
	if err != nil {
		return nil, err
	}
	s := newCIFARSet(name, f, n)
	if err := decodeCIFAR(name, bytes.NewReader(data), n, f, s.Pixels, s.Labels, s.Coarse, ""); err != nil {
		return nil, err
	}
	return s, nil
}

// cifarPart is one file of a CIFAR set.
type cifarPart struct {
	path, sha string
	recs      int
}

// readCIFARFiles reads files of format f into one set, in order, decoding
// them concurrently.
func readCIFARFiles(name string, f Format, files []cifarPart) (*Set, error) {
	total := 0
	for i := range files {
		st, err := os.Stat(files[i].path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", files[i].path)
		}
		if files[i].recs, err = cifarRecords(files[i].path, st.Size(), f); err != nil {
			return nil, err
		}
		total += files[i].recs
		if total*cifarPixels > maxBytes {
			return nil, fmt.Errorf("%s: the files hold more than the limit of %d bytes of pixels", files[i].path, maxBytes)
		}
	}
	s := newCIFARSet(name, f, total)
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	lo := 0
	for i, p := range files {
		hi := lo + p.recs
		var coarse []uint8
		if s.Coarse != nil {
			coarse = s.Coarse[lo:hi]
		}
		pix, labels := s.Pixels[lo*cifarPixels:hi*cifarPixels], s.Labels[lo:hi]
		wg.Go(func() {
			fh, err := os.Open(p.path)
			if err != nil {
				errs[i] = err
				return
			}
			defer fh.Close()
			errs[i] = decodeCIFAR(p.path, fh, p.recs, f, pix, labels, coarse, p.sha)
		})
		lo = hi
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ReadCIFAR reads CIFAR-10 or CIFAR-100 binary files (format CIFAR10 or
// CIFAR100) into one set, in the order given, as ParseCIFAR. The set is
// named after the format. It panics if f is not a CIFAR format or no path
// is given.
func ReadCIFAR(f Format, paths ...string) (*Set, error) {
	cifarLayout("ReadCIFAR", f)
	if len(paths) == 0 {
		panic("images: ReadCIFAR: no file")
	}
	parts := make([]cifarPart, len(paths))
	for i, p := range paths {
		parts[i].path = p
	}
	name := f.String()
	if len(paths) == 1 {
		name = filepath.Base(paths[0])
	}
	return readCIFARFiles(name, f, parts)
}
