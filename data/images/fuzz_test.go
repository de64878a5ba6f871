package images

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzIDX checks that ParseIDX never panics, names a file in every error
// and returns only valid sets.
func FuzzIDX(f *testing.F) {
	img, lbl := tinyIDX(3, 2, 2)
	gzImg, gzLbl := gzipBytes(img), gzipBytes(lbl)
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 0x40; return b }
	f.Add(img, lbl)
	f.Add(gzImg, gzLbl)
	f.Add(img, gzLbl)
	f.Add(img[:len(img)-1], lbl)                                              // truncated
	f.Add(append(bytes.Clone(img), 0), lbl)                                   // extra byte
	f.Add(flip(img, 3), lbl)                                                  // bad magic
	f.Add(flip(img, 7), lbl)                                                  // absurd count
	f.Add(img, idxBytes(idxLabels, []uint32{2}, []byte{1, 2}))                // count mismatch
	f.Add(img, idxBytes(idxLabels, []uint32{3}, []byte{1, 200, 2}))           // label out of range
	f.Add(gzImg[:len(gzImg)-6], gzLbl)                                        // truncated gzip
	f.Add(flip(gzImg, len(gzImg)/2), gzLbl)                                   // corrupt gzip
	f.Add(idxBytes(idxImages, []uint32{0, 28, 28}, nil), lbl)                 // empty
	f.Add(idxBytes(idxImages, []uint32{1 << 30, 1 << 30, 8}, []byte{1}), lbl) // huge
	f.Add([]byte{}, []byte{})
	f.Add([]byte{0x1f, 0x8b}, lbl)
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		s, err := ParseIDX("images.idx", images, "labels.idx", labels, 10)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "images.idx") && !strings.Contains(msg, "labels.idx") {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("invalid set: %v", err)
		}
	})
}

// FuzzCIFAR checks that ParseCIFAR never panics, names the file in every
// error and returns only valid sets.
func FuzzCIFAR(f *testing.F) {
	c10, c100 := cifarFile(CIFAR10, 0, 2), cifarFile(CIFAR100, 1, 2)
	set := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	f.Add(c10, false)
	f.Add(c100, true)
	f.Add(c10[:3073], false)
	f.Add(c10[:len(c10)-1], false)      // truncated
	f.Add(c100, false)                  // wrong record size
	f.Add(set(c10, 3073, 10), false)    // label out of range
	f.Add(set(c100, 0, 20), true)       // coarse label out of range
	f.Add(set(c100, 3074+1, 255), true) // fine label out of range
	f.Add([]byte{}, true)
	f.Add([]byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, data []byte, hundred bool) {
		format := CIFAR10
		if hundred {
			format = CIFAR100
		}
		s, err := ParseCIFAR(format, "batch.bin", data)
		if err != nil {
			if !strings.Contains(err.Error(), "batch.bin") {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("invalid set: %v", err)
		}
		if hundred && len(s.Coarse) != s.Len() {
			t.Fatalf("%d coarse labels for %d examples", len(s.Coarse), s.Len())
		}
	})
}
