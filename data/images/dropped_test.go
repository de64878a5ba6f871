package images

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// checkDropped checks what every data set ParseDropped returns holds: its
// name, and valid splits of its shape named after it with the
// normalisation constants of its Spec.
func checkDropped(t *testing.T, p Parsed, name string) {
	t.Helper()
	if p.Name != name {
		t.Fatalf("read as %q, want %q", p.Name, name)
	}
	spec, _ := Lookup(name)
	for _, s := range []*Set{p.Train, p.Test} {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		if s.Shape != spec.Shape || s.Classes != spec.Classes {
			t.Errorf("%s: shape %v, %d classes", s.Name, s.Shape, s.Classes)
		}
		if !slices.Equal(s.Mean, spec.Mean) || !slices.Equal(s.Std, spec.Std) {
			t.Errorf("%s: mean %v std %v, want %v %v", s.Name, s.Mean, s.Std, spec.Mean, spec.Std)
		}
	}
	if p.Train.Name != name+" train" || p.Test.Name != name+" test" {
		t.Errorf("splits named %q and %q", p.Train.Name, p.Test.Name)
	}
}

// idxPair returns the image and label files of a split of n synthetic
// 28x28 images (see tinyIDX) under their published names, gzipped or raw.
func idxPair(split string, n int, gz bool) (img, lbl NamedFile) {
	i, l := tinyIDX(n, 28, 28)
	img = NamedFile{split + "-images-idx3-ubyte", i}
	lbl = NamedFile{split + "-labels-idx1-ubyte", l}
	if gz {
		img = NamedFile{img.Name + ".gz", gzipBytes(i)}
		lbl = NamedFile{lbl.Name + ".gz", gzipBytes(l)}
	}
	return img, lbl
}

// TestParseDroppedIDX reads both splits of a synthetic set, gzipped and
// raw, given in any order: their labels are neither Fashion-MNIST's nor
// MNIST's, so want decides when it is one of the two.
func TestParseDroppedIDX(t *testing.T) {
	trImg, trLbl := tinyIDX(12, 28, 28)
	teImg, teLbl := tinyIDX(6, 28, 28)
	for _, gz := range []bool{true, false} {
		ti, tl := idxPair("train", 12, gz)
		ei, el := idxPair("t10k", 6, gz)
		files := []NamedFile{el, ti, ei, tl}
		for _, tc := range []struct{ want, name string }{
			{"mnist", "mnist"},
			{"fashion-mnist", "fashion-mnist"},
			{"cifar10", "fashion-mnist"},
			{"", "fashion-mnist"},
		} {
			p, err := ParseDropped(files, tc.want)
			if err != nil {
				t.Fatalf("gzip %v, want %q: %v", gz, tc.want, err)
			}
			checkDropped(t, p, tc.name)
			if want := "12 training and 6 test images (IDX, read as " + tc.name + ")"; p.From != want {
				t.Errorf("from %q, want %q", p.From, want)
			}
			if !bytes.Equal(p.Train.Pixels, trImg[16:]) || !bytes.Equal(p.Train.Labels, trLbl[8:]) ||
				!bytes.Equal(p.Test.Pixels, teImg[16:]) || !bytes.Equal(p.Test.Labels, teLbl[8:]) {
				t.Errorf("gzip %v: the splits' pixels or labels differ from the files'", gz)
			}
		}
	}
}

// TestParseDroppedOnePair reads a single pair of IDX files: its first five
// sixths train, the rest test.
func TestParseDroppedOnePair(t *testing.T) {
	for _, tc := range []struct {
		split, dir string
		n, train   int
		gz         bool
		from       string
	}{
		{"t10k", "some/dir/", 30, 25, true,
			"one pair of files (t10k-images-idx3-ubyte.gz), split into 25 training and 5 test images (IDX, read as mnist)"},
		{"train", "", 7, 6, false,
			"one pair of files (train-images-idx3-ubyte), split into 6 training and 1 test images (IDX, read as mnist)"},
	} {
		img, lbl := idxPair(tc.split, tc.n, tc.gz)
		img.Name, lbl.Name = tc.dir+img.Name, tc.dir+lbl.Name
		p, err := ParseDropped([]NamedFile{lbl, img}, "mnist")
		if err != nil {
			t.Fatal(err)
		}
		checkDropped(t, p, "mnist")
		if p.From != tc.from {
			t.Errorf("from %q\nwant %q", p.From, tc.from)
		}
		rawImg, rawLbl := tinyIDX(tc.n, 28, 28)
		pix, lab, k := rawImg[16:], rawLbl[8:], tc.train
		if p.Train.Len() != k || p.Test.Len() != tc.n-k {
			t.Fatalf("%d training and %d test images, want %d and %d", p.Train.Len(), p.Test.Len(), k, tc.n-k)
		}
		if !bytes.Equal(p.Train.Pixels, pix[:k*784]) || !bytes.Equal(p.Train.Labels, lab[:k]) ||
			!bytes.Equal(p.Test.Pixels, pix[k*784:]) || !bytes.Equal(p.Test.Labels, lab[k:]) {
			t.Errorf("%s: the splits are not the first %d images and the rest", tc.split, k)
		}
	}
}

// TestParseDroppedReal reads the published test files of Fashion-MNIST and
// MNIST, each while the page asks for the other: their labels say which
// data set they are.
func TestParseDroppedReal(t *testing.T) {
	root := sharedtest.Dir(t, "datasets")
	for _, tc := range []struct {
		name, want string
		first      []uint8 // the first test labels
	}{
		{"fashion-mnist", "mnist", []uint8{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}},
		{"mnist", "fashion-mnist", []uint8{7, 2, 1, 0, 4, 1, 4, 9, 5, 9}},
	} {
		var files []NamedFile
		for _, f := range []string{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"} {
			b, err := os.ReadFile(filepath.Join(root, tc.name, f))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, NamedFile{f, b})
		}
		p, err := ParseDropped(files, tc.want)
		if err != nil {
			t.Fatal(err)
		}
		checkDropped(t, p, tc.name)
		want := "one pair of files (t10k-images-idx3-ubyte.gz), split into 8334 training and 1666 test images (IDX, read as " + tc.name + ")"
		if p.From != want {
			t.Errorf("from %q\nwant %q", p.From, want)
		}
		if !slices.Equal(p.Train.Labels[:10], tc.first) {
			t.Errorf("%s: first labels %v, want %v", tc.name, p.Train.Labels[:10], tc.first)
		}
	}
}

// TestParseDroppedCIFAR reads synthetic CIFAR batches given in any order:
// the training batches are joined in their published order, and want
// plays no part.
func TestParseDroppedCIFAR(t *testing.T) {
	s, _ := Lookup("cifar10")
	var files []NamedFile
	for b, f := range slices.Concat(s.Train, s.Test) {
		files = append(files, NamedFile{f.Name, cifarFile(CIFAR10, b, 2)})
	}
	slices.Reverse(files)
	files[1], files[3] = files[3], files[1]
	p, err := ParseDropped(files, "mnist")
	if err != nil {
		t.Fatal(err)
	}
	checkDropped(t, p, "cifar10")
	checkCIFARSet(t, p.Train, CIFAR10, 0, 5, 2)
	checkCIFARSet(t, p.Test, CIFAR10, 5, 1, 2)
	if want := "10 training and 2 test images (6 CIFAR batches)"; p.From != want {
		t.Errorf("from %q, want %q", p.From, want)
	}

	p, err = ParseDropped([]NamedFile{{"test.bin", cifarFile(CIFAR100, 1, 3)}, {"train.bin", cifarFile(CIFAR100, 0, 4)}}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkDropped(t, p, "cifar100")
	checkCIFARSet(t, p.Train, CIFAR100, 0, 1, 4)
	checkCIFARSet(t, p.Test, CIFAR100, 1, 1, 3)
	if want := "4 training and 3 test images (2 CIFAR batches)"; p.From != want {
		t.Errorf("from %q, want %q", p.From, want)
	}
}

func TestParseDroppedErrors(t *testing.T) {
	img, lbl := idxPair("train", 3, false)
	small, _ := tinyIDX(3, 2, 4)
	gzImg, gzLbl := idxPair("train", 3, true)
	badLbl := NamedFile{lbl.Name, idxBytes(idxLabels, []uint32{3}, []byte{1, 10, 2})}
	// 46 MiB of zeros, in 48 kB: past the 47,040,016 bytes of the largest
	// file of Fashion-MNIST and MNIST.
	bomb := NamedFile{gzImg.Name, gzipBomb(nil, 46)}
	if len(bomb.Data) > 100_000 {
		t.Fatalf("the bomb is %d bytes", len(bomb.Data))
	}
	s, _ := Lookup("cifar10")
	var cifar []NamedFile
	for b, f := range slices.Concat(s.Train, s.Test) {
		cifar = append(cifar, NamedFile{f.Name, cifarFile(CIFAR10, b, 2)})
	}
	cifar[2].Data = cifar[2].Data[:100]
	for _, tc := range []struct {
		what  string
		files []NamedFile
		want  string // the message, or its start
	}{
		{"no file", nil, "no data file chosen"},
		{"unknown name", []NamedFile{img, lbl, {"notes.txt", nil}}, "notes.txt: not a file of a data set this page reads: choose the IDX files"},
		{"wrong shape", []NamedFile{{img.Name, small}, lbl}, "train-images-idx3-ubyte: images are 2x4, mnist has 28x28"},
		{"gzip bomb", []NamedFile{bomb, gzLbl},
			"train-images-idx3-ubyte.gz: decompresses to more than 47040016 bytes, the size of the largest fashion-mnist or mnist file"},
		{"damaged gzip", []NamedFile{{gzImg.Name, gzImg.Data[:len(gzImg.Data)/2]}, gzLbl}, "train-images-idx3-ubyte.gz: truncated: header says 3 images"},
		{"label out of range", []NamedFile{img, badLbl}, "train-labels-idx1-ubyte: label 10 of example 1 is outside [0, 10)"},
		{"CIFAR batch", cifar, "data_batch_3.bin: 100 bytes is not a whole number of 3073-byte cifar10 records"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			p, err := ParseDropped(tc.files, "mnist")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, %v\nwant the error %s", p.Name, err, tc.want)
			}
			if p != (Parsed{}) {
				t.Errorf("an error with a data set: %+v", p)
			}
			t.Log(err)
		})
	}
}
