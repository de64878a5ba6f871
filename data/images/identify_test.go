package images

import (
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

func TestIdentify(t *testing.T) {
	for _, tc := range []struct {
		files       []string
		format      Format
		names       []string
		train, test []int
	}{
		{[]string{"t10k-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-images-idx3-ubyte", "dir/Train-Labels-idx1-ubyte.gz"},
			IDX, []string{"fashion-mnist", "mnist"}, []int{1, 3}, []int{2, 0}},
		{[]string{"test-images-idx3-ubyte", "test-labels-idx1-ubyte"}, IDX, []string{"fashion-mnist", "mnist"}, nil, []int{0, 1}},
		{[]string{"test_batch.bin", "data_batch_2.bin", "data_batch_1.bin"}, CIFAR10, []string{"cifar10"}, []int{2, 1}, []int{0}},
		{[]string{"train.bin", "test.bin"}, CIFAR100, []string{"cifar100"}, []int{0}, []int{1}},
	} {
		d, err := Identify(tc.files)
		if err != nil {
			t.Errorf("%v: %v", tc.files, err)
			continue
		}
		if d.Format != tc.format || !slices.Equal(d.Names, tc.names) || !slices.Equal(d.Train, tc.train) || !slices.Equal(d.Test, tc.test) {
			t.Errorf("%v: got %+v, want %v %v train %v test %v", tc.files, d, tc.format, tc.names, tc.train, tc.test)
		}
	}
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, "no data file chosen"},
		{[]string{"notes.txt"}, "notes.txt: not a file of a data set"},
		{[]string{"train-images-idx3-ubyte.gz", "x/train-images-idx3-ubyte"}, "are both training images"},
		{[]string{"t10k-labels-idx1-ubyte.gz"}, "has no images file beside it (t10k-images-idx3-ubyte.gz)"},
		{[]string{"train-images-idx3-ubyte.gz"}, "has no labels file beside it (train-labels-idx1-ubyte.gz)"},
		{[]string{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "test_batch.bin"}, "IDX and CIFAR files together"},
		{[]string{"test_batch.bin", "train.bin"}, "the others of cifar10"},
		{[]string{"test_batch.bin"}, "cifar10: no training batch (data_batch_1.bin"},
		{[]string{"train.bin"}, "cifar100: no test batch (test.bin)"},
	} {
		if _, err := Identify(tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.files, err, tc.want)
		}
	}
}

// TestWrongSet reads the published Fashion-MNIST files as MNIST: the
// hashes say which data set they are.
func TestWrongSet(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	_, _, err := Load("mnist", dir)
	var wrong *WrongSetError
	if !errors.As(err, &wrong) || wrong.Have != "fashion-mnist" || wrong.Want != "mnist" {
		t.Fatalf("got %v, want a WrongSetError (fashion-mnist, not mnist)", err)
	}
	if !strings.Contains(err.Error(), "holds fashion-mnist data, not mnist") {
		t.Errorf("message %q", err)
	}
}

func TestMissingError(t *testing.T) {
	_, _, err := Load("mnist", t.TempDir())
	var miss *MissingError
	if !errors.As(err, &miss) || miss.Set != "mnist" || miss.File != "train-images-idx3-ubyte.gz" || !strings.HasPrefix(miss.URL, "https://") {
		t.Errorf("got %#v", err)
	}
}

func TestFacts(t *testing.T) {
	if got := Hosted(); !slices.Equal(got, []string{"fashion-mnist", "mnist"}) {
		t.Errorf("hosted %v", got)
	}
	for _, n := range Names() {
		s, _ := Lookup(n)
		if s.ClassNames != nil && len(s.ClassNames) != s.Classes {
			t.Errorf("%s: %d class names for %d classes", n, len(s.ClassNames), s.Classes)
		}
		if s.Download < 1e6 {
			t.Errorf("%s: download size %d", n, s.Download)
		}
	}
	s, _ := Lookup("fashion-mnist")
	if got := s.DownloadText(); got != "about 31 MB" {
		t.Errorf("fashion-mnist download %q", got)
	}
}

// TestNoModel checks that the data reader imports neither the trainer nor
// the model: only the standard library and package data.
func TestNoModel(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(p, ".") && p != "github.com/deeplda/deeplda/data" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
