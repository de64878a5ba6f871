package images

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// writeCIFAR10 writes the six CIFAR-10 batch files of n records each under
// dir/sub.
func writeCIFAR10(t *testing.T, dir, sub string, n int) {
	s, _ := Lookup("cifar10")
	for b, f := range append(s.Train, s.Test...) {
		writeFile(t, dir, filepath.Join(sub, f.Name), cifarFile(CIFAR10, b, n))
	}
}

// checkCIFARSet checks the records of batches first.. of a set made by
// cifarFile with n records per batch.
func checkCIFARSet(t *testing.T, s *Set, f Format, first, batches, n int) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Len() != batches*n || s.Shape != [3]int{3, 32, 32} {
		t.Fatalf("%s: %d examples of %v, want %d of [3 32 32]", s.Name, s.Len(), s.Shape, batches*n)
	}
	for b := range batches {
		for r := range n {
			i := b*n + r
			fine, coarse := cifarLabels(f, first+b, r)
			if s.Labels[i] != fine {
				t.Errorf("%s: example %d has label %d, want %d", s.Name, i, s.Labels[i], fine)
			}
			if f == CIFAR100 && s.Coarse[i] != coarse {
				t.Errorf("%s: example %d has coarse label %d, want %d", s.Name, i, s.Coarse[i], coarse)
			}
			for _, k := range []int{0, 1, 31, 32, 1023, 1024, 2047, 2048, 3071} {
				if got, want := s.Pixels[i*cifarPixels+k], byte((first+b)*7+r*13+k); got != want {
					t.Errorf("%s: example %d pixel %d is %d, want %d", s.Name, i, k, got, want)
				}
			}
		}
	}
}

func TestLoadCIFAR10(t *testing.T) {
	for _, sub := range []string{"cifar-10-batches-bin", ""} {
		t.Run(fmt.Sprintf("folder %q", sub), func(t *testing.T) {
			dir := t.TempDir()
			writeCIFAR10(t, dir, sub, 3)
			tr, te, err := Load("cifar10", dir)
			if err != nil {
				t.Fatal(err)
			}
			checkCIFARSet(t, tr, CIFAR10, 0, 5, 3)
			checkCIFARSet(t, te, CIFAR10, 5, 1, 3)
			if tr.Name != "cifar10 train" || te.Name != "cifar10 test" || tr.Classes != 10 || tr.Coarse != nil {
				t.Errorf("names %q %q, %d classes", tr.Name, te.Name, tr.Classes)
			}
			if fmt.Sprint(tr.Mean, tr.Std) != "[0.4914 0.4822 0.4465] [0.247 0.2435 0.2616]" {
				t.Errorf("mean %v std %v", tr.Mean, tr.Std)
			}
			// Planes are R, G, B: pixel 1024+k of an example is channel 1.
			x := make([]float32, tr.Size())
			tr.Normalize(x, 4)
			p := tr.Pixels[4*cifarPixels+1024+5]
			if want := (float32(p)/255 - 0.4822) / 0.2435; x[1024+5] != want {
				t.Errorf("normalised green pixel %v, want %v", x[1024+5], want)
			}
		})
	}
}

func TestLoadCIFAR100(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "cifar-100-binary/train.bin", cifarFile(CIFAR100, 0, 4))
	writeFile(t, dir, "cifar-100-binary/test.bin", cifarFile(CIFAR100, 1, 3))
	tr, te, err := Load("cifar100", dir)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARSet(t, tr, CIFAR100, 0, 1, 4)
	checkCIFARSet(t, te, CIFAR100, 1, 1, 3)
	if tr.Classes != 100 || len(tr.Coarse) != 4 {
		t.Errorf("%d classes, %d coarse labels", tr.Classes, len(tr.Coarse))
	}
	// The coarse label comes first in a record, the fine label second.
	rec := []byte{7, 42}
	rec = append(rec, make([]byte, cifarPixels)...)
	s, err := ParseCIFAR(CIFAR100, "one.bin", rec)
	if err != nil {
		t.Fatal(err)
	}
	if s.Labels[0] != 42 || s.Coarse[0] != 7 {
		t.Errorf("fine %d coarse %d, want 42 and 7", s.Labels[0], s.Coarse[0])
	}
}

func TestReadCIFAR(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.bin", cifarFile(CIFAR10, 0, 2))
	b := writeFile(t, dir, "b.bin", cifarFile(CIFAR10, 1, 2))
	s, err := ReadCIFAR(CIFAR10, a, b)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARSet(t, s, CIFAR10, 0, 2, 2)
	if s.Name != "cifar10" || s.Mean != nil {
		t.Errorf("name %q, mean %v", s.Name, s.Mean)
	}
	s, err = ReadCIFAR(CIFAR10, b)
	if err != nil || s.Name != "b.bin" {
		t.Fatalf("%v, name %q", err, s.Name)
	}
	_, err = ReadCIFAR(CIFAR10, a, filepath.Join(dir, "nope.bin"))
	wantErr(t, err, "nope.bin")
	wantPanic(t, "ReadCIFAR(IDX)", func() { ReadCIFAR(IDX, a) })
	wantPanic(t, "ReadCIFAR()", func() { ReadCIFAR(CIFAR10) })
	wantPanic(t, "ParseCIFAR(0)", func() { ParseCIFAR(0, "x", nil) })
}

func TestCIFARErrors(t *testing.T) {
	good10 := cifarFile(CIFAR10, 0, 3)
	good100 := cifarFile(CIFAR100, 0, 3)
	set := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	for _, tc := range []struct {
		name  string
		f     Format
		data  []byte
		parts []string
	}{
		{"empty", CIFAR10, nil, []string{"empty file"}},
		{"truncated", CIFAR10, good10[:len(good10)-1], []string{"9218 bytes is not a whole number of 3073-byte cifar10 records (2 records and 3072 bytes over)"}},
		{"cifar100 as cifar10", CIFAR10, good100, []string{"not a whole number"}},
		{"label", CIFAR10, set(good10, 3073, 10), []string{"record 1 has label 10, outside [0, 10)"}},
		{"fine label", CIFAR100, set(good100, 2*3074+1, 100), []string{"record 2 has label 100, outside [0, 100)"}},
		{"coarse label", CIFAR100, set(good100, 3074, 20), []string{"record 1 has coarse label 20, outside [0, 20)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCIFAR(tc.f, "batch.bin", tc.data)
			wantErr(t, err, append([]string{"batch.bin: "}, tc.parts...)...)
			t.Log(err)
		})
	}

	// Through Load: the error names the file.
	dir := t.TempDir()
	writeCIFAR10(t, dir, "cifar-10-batches-bin", 2)
	bad := writeFile(t, dir, "cifar-10-batches-bin/data_batch_3.bin", set(cifarFile(CIFAR10, 2, 2), 0, 99))
	_, _, err := Load("cifar10", dir)
	wantErr(t, err, bad, "label 99")
	writeFile(t, dir, "cifar-10-batches-bin/data_batch_3.bin", cifarFile(CIFAR10, 2, 2)[:100])
	_, _, err = Load("cifar10", dir)
	wantErr(t, err, bad, "not a whole number")

	// Truncation or growth between the size check and the read.
	_, err = readCIFARFiles("x", CIFAR10, nil)
	if err != nil {
		t.Errorf("no files: %v", err)
	}
	err = decodeCIFAR("short.bin", bytes.NewReader(good10[:3073]), 2, CIFAR10, nil, nil, nil, "")
	wantErr(t, err, "short.bin: truncated: expected 2 records")
	err = decodeCIFAR("long.bin", bytes.NewReader(good10), 2, CIFAR10, nil, nil, nil, "")
	wantErr(t, err, "long.bin: 3073 bytes after the expected 2 records")
	err = decodeCIFAR("hash.bin", bytes.NewReader(good10), 3, CIFAR10, nil, nil, nil, "00")
	wantErr(t, err, "hash.bin: SHA-256 is "+shaHex(good10)+", expected 00")
}
