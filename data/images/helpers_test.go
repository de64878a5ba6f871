package images

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes returns a raw IDX file with the given magic, dimensions and data.
func idxBytes(magic uint32, dims []uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(data)
	return b.Bytes()
}

// gzipBytes compresses b.
func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// shaHex returns the hex SHA-256 of b.
func shaHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// tinyIDX returns raw IDX image and label files of n images of rows x cols
// with pixel k of image i equal to (7*i + k) mod 256 and label i mod 10.
func tinyIDX(n, rows, cols int) (images, labels []byte) {
	pix := make([]byte, n*rows*cols)
	for i := range n {
		for k := range rows * cols {
			pix[i*rows*cols+k] = byte(7*i + k)
		}
	}
	lbl := make([]byte, n)
	for i := range lbl {
		lbl[i] = byte(i % 10)
	}
	return idxBytes(idxImages, []uint32{uint32(n), uint32(rows), uint32(cols)}, pix),
		idxBytes(idxLabels, []uint32{uint32(n)}, lbl)
}

// cifarFile returns a CIFAR file of n records of format f for batch b:
// pixel k of record r is (b*7 + r*13 + k) mod 256; the labels come from
// cifarLabels.
func cifarFile(f Format, b, n int) []byte {
	var out []byte
	for r := range n {
		fine, coarse := cifarLabels(f, b, r)
		if f == CIFAR100 {
			out = append(out, coarse)
		}
		out = append(out, fine)
		for k := range cifarPixels {
			out = append(out, byte(b*7+r*13+k))
		}
	}
	return out
}

// cifarLabels returns the fine and coarse labels of record r of batch b.
func cifarLabels(f Format, b, r int) (fine, coarse byte) {
	if f == CIFAR10 {
		return byte((b*3 + r) % 10), 0
	}
	return byte((r*37 + b*11 + 50) % 100), byte((r*5 + b) % 20)
}

// writeFile writes data to dir/name, creating folders.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantErr checks that err is not nil and mentions every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

// wantPanic checks that f panics with a message starting "images: ".
func wantPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic", what)
			return
		}
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "images: ") {
			t.Errorf("%s panicked with %v, want a string starting \"images: \"", what, r)
		}
	}()
	f()
}
