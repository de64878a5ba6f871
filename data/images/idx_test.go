package images

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

func TestParseIDX(t *testing.T) {
	img, lbl := tinyIDX(3, 2, 4)
	for _, tc := range []struct {
		name     string
		img, lbl []byte
	}{
		{"raw", img, lbl},
		{"gzip", gzipBytes(img), gzipBytes(lbl)},
		{"mixed", gzipBytes(img), lbl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseIDX("img", tc.img, "lbl", tc.lbl, 10)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Len() != 3 || s.Shape != [3]int{1, 2, 4} || s.Classes != 10 || s.Name != "img" || s.Coarse != nil {
				t.Fatalf("got %d examples of %v, %d classes, name %q", s.Len(), s.Shape, s.Classes, s.Name)
			}
			if !bytes.Equal(s.Pixels, img[16:]) || !bytes.Equal(s.Labels, []byte{0, 1, 2}) {
				t.Errorf("pixels %v labels %v", s.Pixels, s.Labels)
			}
			if cap(s.Pixels) != len(s.Pixels) {
				t.Errorf("pixel buffer has capacity %d for %d pixels", cap(s.Pixels), len(s.Pixels))
			}
		})
	}
}

func TestReadIDX(t *testing.T) {
	dir := t.TempDir()
	img, lbl := tinyIDX(5, 3, 3)
	ip := writeFile(t, dir, "images.gz", gzipBytes(img))
	lp := writeFile(t, dir, "labels", lbl)
	s, err := ReadIDX(ip, lp, 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 5 || !bytes.Equal(s.Pixels, img[16:]) || !bytes.Equal(s.Labels, lbl[8:]) {
		t.Errorf("got %d examples", s.Len())
	}
	if _, err := ReadIDX(ip, lp, 4); err == nil {
		t.Error("label 4 accepted with 4 classes")
	} else {
		wantErr(t, err, lp, "label 4 of example 4 is outside [0, 4)")
	}
	_, err = ReadIDX(filepath.Join(dir, "missing"), lp, 10)
	wantErr(t, err, "missing")
	_, err = ReadIDX(dir, lp, 10)
	wantErr(t, err, dir)
	wantPanic(t, "ReadIDX with 0 classes", func() { ReadIDX(ip, lp, 0) })
	wantPanic(t, "ParseIDX with 257 classes", func() { ParseIDX("a", img, "b", lbl, 257) })
}

// TestIDXErrors checks that malformed files give errors naming the file and
// the problem.
func TestIDXErrors(t *testing.T) {
	img, lbl := tinyIDX(3, 2, 2)
	gzImg := gzipBytes(img)
	badCRC := bytes.Clone(gzImg)
	badCRC[len(badCRC)-8] ^= 0xff
	labels := func(ls ...byte) []byte { return idxBytes(idxLabels, []uint32{uint32(len(ls))}, ls) }
	for _, tc := range []struct {
		name     string
		img, lbl []byte
		file     string // the file the error must name
		parts    []string
	}{
		{"truncated images", img[:len(img)-1], lbl, "img",
			[]string{"truncated: header says 3 images of 2x2 (12 bytes), file has 11 bytes (2 whole images)"}},
		{"truncated gzip content", gzipBytes(img[:len(img)-5]), lbl, "img",
			[]string{"truncated: header says 3 images of 2x2 (12 bytes), file has 7 bytes (1 whole images)"}},
		{"truncated gzip stream", gzImg[:len(gzImg)-10], lbl, "img", []string{"truncated gzip stream"}},
		{"truncated gzip data", gzImg[:len(gzImg)/2], lbl, "img", []string{"truncated"}},
		{"gzip checksum", badCRC, lbl, "img", []string{"checksum"}},
		{"truncated labels", img, lbl[:len(lbl)-1], "lbl", []string{"truncated: header says 3 labels, file has 2"}},
		{"extra image bytes", append(bytes.Clone(img), 1, 2), lbl, "img", []string{"2 extra"}},
		{"extra gzip bytes", gzipBytes(append(bytes.Clone(img), 1, 2, 3)), lbl, "img", []string{"3 extra"}},
		{"labels as images", lbl, lbl, "img", []string{"bad magic 0x00000801, want 0x00000803", "labels"}},
		{"images as labels", img, img, "lbl", []string{"bad magic 0x00000803, want 0x00000801"}},
		{"not IDX", []byte("hello, world, this is text"), lbl, "img", []string{"bad magic", "not an IDX file"}},
		{"empty images", nil, lbl, "img", []string{"empty file"}},
		{"empty gzip", gzipBytes(nil), lbl, "img", []string{"empty file"}},
		{"short header", img[:10], lbl, "img", []string{"truncated"}},
		{"short magic", img[:3], lbl, "img", []string{"truncated"}},
		{"zero images", idxBytes(idxImages, []uint32{0, 2, 2}, nil), labels(), "img", []string{"empty: header says 0 images"}},
		{"zero labels", img, labels(), "lbl", []string{"empty: header says 0 labels"}},
		{"zero rows", idxBytes(idxImages, []uint32{3, 0, 2}, nil), lbl, "img", []string{"images of 0x2"}},
		{"absurd dims", idxBytes(idxImages, []uint32{0xffffffff, 0xffffffff, 0xffffffff}, []byte{1}), lbl, "img",
			[]string{"more than the limit"}},
		{"absurd dims gzip", gzipBytes(idxBytes(idxImages, []uint32{1 << 21, 28, 28}, []byte{1})), lbl, "img",
			[]string{"more than the limit"}},
		{"large gzip truncated", gzipBytes(idxBytes(idxImages, []uint32{1000, 28, 28}, []byte{1, 2})), lbl, "img",
			[]string{"truncated", "file has 2 bytes (0 whole images)"}},
		{"count mismatch", img, labels(1, 2), "lbl", []string{"2 labels, but img has 3 images"}},
		{"label out of range", img, labels(1, 10, 2), "lbl", []string{"label 10 of example 1 is outside [0, 10)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIDX("img", tc.img, "lbl", tc.lbl, 10)
			wantErr(t, err, append([]string{tc.file + ":"}, tc.parts...)...)
			t.Log(err)
		})
	}
}

func TestReadN(t *testing.T) {
	data := bytes.Repeat([]byte{1, 2, 3}, 1<<20)
	got, err := readN(iotest.OneByteReader(bytes.NewReader(data[:5000])), 5000)
	if err != nil || !bytes.Equal(got, data[:5000]) {
		t.Errorf("one-byte reads: %d bytes, %v", len(got), err)
	}
	got, err = readN(bytes.NewReader(data), len(data))
	if err != nil || !bytes.Equal(got, data) || cap(got) != len(data) {
		t.Errorf("%d bytes (capacity %d), %v", len(got), cap(got), err)
	}
	got, err = readN(bytes.NewReader(data[:100]), 1<<30)
	if err == nil || len(got) != 100 || cap(got) > 1<<20 {
		t.Errorf("short input: %d bytes (capacity %d), %v", len(got), cap(got), err)
	}
	got, err = readN(iotest.ErrReader(os.ErrClosed), 10)
	if err != os.ErrClosed || len(got) != 0 {
		t.Errorf("failing reader: %d bytes, %v", len(got), err)
	}
}
