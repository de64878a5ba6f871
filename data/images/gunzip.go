package images

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

// This file holds the one capped gzip decompressor that every reader of a
// gzipped file uses: readIDX (the command's loading and fetching), the
// fetcher's CIFAR archive and, through Gunzip, the page's dropped files. A
// gzip bomb stops at the cap with one message instead of filling memory.

// sizeCap is a cap on the decompressed size of a file: n bytes, which what
// explains in messages ("the size of the largest mnist file").
type sizeCap struct {
	n    int64
	what string
}

// idxCap caps an IDX file read outside a known data set (ReadIDX,
// ParseIDX): a header of three dimensions and the readers' limit of
// maxBytes of data.
var idxCap = sizeCap{4 + 4*3 + maxBytes, "the limit on an IDX file"}

// largestFile returns the cap on the files of the data sets names: the
// size n of their largest file.
func largestFile(n int64, names ...string) sizeCap {
	return sizeCap{n, "the size of the largest " + strings.Join(names, " or ") + " file"}
}

// fileCap returns the cap on the decompressed files of s: its IDX files
// or its CIFAR archive.
func (s *Spec) fileCap() sizeCap {
	if s.Format != IDX {
		return sizeCap{s.MaxFile, "the limit on the " + s.Name + " archive"}
	}
	return largestFile(s.MaxFile, s.Name)
}

// capped reads the decompressed data of the file name and fails, with
// itself as the error, once more than its cap comes out.
type capped struct {
	r    io.Reader
	name string
	cap  sizeCap
	left int64
	over bool
}

func (c *capped) Error() string {
	return fmt.Sprintf("%s: decompresses to more than %d bytes, %s", c.name, c.cap.n, c.cap.what)
}

// exceeded reports whether more data than the cap came out (false for a
// nil c: nothing decompressed).
func (c *capped) exceeded() bool {
	return c != nil && c.over
}

func (c *capped) Read(p []byte) (int, error) {
	if c.over {
		return 0, c
	}
	// One byte past the cap tells a file of exactly the cap from a larger one.
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		n, c.left, c.over = int(c.left), 0, true
		return n, c
	}
	c.left -= int64(n)
	return n, err
}

// gunzip returns a reader of the decompressed gzip data of the file name
// read from r, capped at limit. Its error is gzip's, for a bad header.
func gunzip(name string, r io.Reader, limit sizeCap) (*capped, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return &capped{r: zr, name: name, cap: limit, left: limit.n}, nil
}

// gunzipChunk is how much Gunzip.Next decompresses at a time.
const gunzipChunk = 1 << 20

// Gunzip decompresses a file held in memory one chunk at a time, so that
// the caller can do other work between chunks (the page yields to the
// browser): see Dropped.Gunzip.
type Gunzip struct {
	src *capped // nil when done
	out bytes.Buffer
	res []byte
	err error
}

// Gunzip starts decompressing data, the content of the file name, one of
// the IDX files that d describes (CIFAR batches are not compressed); the
// output is capped at the size of the largest file of the data sets d can
// be (Spec.MaxFile). Call Next until it returns false, then Result.
func (d Dropped) Gunzip(name string, data []byte) *Gunzip {
	g := &Gunzip{res: data}
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return g
	}
	var n int64
	for _, set := range d.Names {
		s, _ := spec(set)
		n = max(n, s.MaxFile)
	}
	limit := largestFile(n, d.Names...)
	src, err := gunzip(name, bytes.NewReader(data), limit)
	if err != nil {
		return g
	}
	g.src = src
	g.out.Grow(int(min(4*int64(len(data)), limit.n)))
	return g
}

// Next decompresses the next chunk (1 MiB) and reports whether there is
// more to do.
func (g *Gunzip) Next() bool {
	if g.src == nil {
		return false
	}
	_, err := io.CopyN(&g.out, g.src, gunzipChunk)
	switch {
	case err == nil:
		return true
	case err == io.EOF:
		g.res = g.out.Bytes()
	case g.src.exceeded():
		g.res, g.err = nil, g.src
	}
	// Otherwise the data is damaged: Result gives it as it is, for the
	// parser to name the problem.
	g.src = nil
	return false
}

// Result returns the decompressed data; data as it is when it is not gzip
// (by its magic bytes 1f 8b) or damaged gzip, for the parser to judge; or
// an error naming the file and the cap when the data decompresses to more
// than the cap. It is valid once Next has returned false.
func (g *Gunzip) Result() ([]byte, error) {
	return g.res, g.err
}
