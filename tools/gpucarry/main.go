// Command gpucarry makes the smaller copies of the shared reference files
// that bench/gpu.sh carries to the GPU machine, where the whole working
// tree that travels is limited in size.
//
//	gpucarry images [-set fashion-mnist] -train N -test N SRC DST
//
// writes the first images of an IDX data set (MNIST, Fashion-MNIST), read
// and verified from its published files in SRC, as the same files in DST
// (gzipped IDX, the counts in their headers cut to match): the PyTorch
// trajectory reads only the first 1920 training and 512 test images. The
// smaller files no longer match the published SHA-256; the trajectory test
// reads them unverified when DEEPLDA_SHARED points at them
// (train/traintest).
//
//	gpucarry golden -drop REGEXP SRC DST
//
// copies the safetensors file SRC to DST without the tensors whose names
// match REGEXP (the trajectory test reads no "final" parameters).
package main

import (
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/safetensors"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError); os.Args[1] {
	case "images":
		name := fs.String("set", "fashion-mnist", "the IDX data set")
		train := fs.Int("train", 0, "training images to keep")
		test := fs.Int("test", 0, "test images to keep")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 2 || *train < 1 || *test < 1 {
			usage()
		}
		err = imagePrefix(*name, fs.Arg(0), fs.Arg(1), *train, *test)
	case "golden":
		drop := fs.String("drop", "", "regular expression of the tensor names to leave out")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 2 || *drop == "" {
			usage()
		}
		err = golden(*drop, fs.Arg(0), fs.Arg(1))
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpucarry:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gpucarry images [-set NAME] -train N -test N SRC DST\n       gpucarry golden -drop REGEXP SRC DST")
	os.Exit(2)
}

// golden copies the safetensors file src to dst without the tensors whose
// names match drop.
func golden(drop, src, dst string) error {
	re, err := regexp.Compile(drop)
	if err != nil {
		return err
	}
	f, err := safetensors.ReadFile(src)
	if err != nil {
		return err
	}
	for name := range f.Tensors {
		if re.MatchString(name) {
			delete(f.Tensors, name)
		}
	}
	return safetensors.WriteFile(dst, f)
}

// imagePrefix writes the first nTrain and nTest examples of the set in src to dst.
func imagePrefix(name, src, dst string, nTrain, nTest int) error {
	spec, err := images.Lookup(name)
	if err != nil {
		return err
	}
	if spec.Format != images.IDX {
		return fmt.Errorf("%s is not an IDX data set", name)
	}
	train, test, err := images.LoadSpec(spec, src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, part := range []struct {
		set   *images.Set
		files []images.File
		n     int
	}{{train, spec.Train, nTrain}, {test, spec.Test, nTest}} {
		if part.n > part.set.Len() {
			return fmt.Errorf("%s has %d examples, fewer than %d", part.files[0].Name, part.set.Len(), part.n)
		}
		per := part.set.Shape[1] * part.set.Shape[2]
		if err := write(filepath.Join(dst, part.files[0].Name), 0x803, []int{part.n, part.set.Shape[1], part.set.Shape[2]}, part.set.Pixels[:part.n*per]); err != nil {
			return err
		}
		if err := write(filepath.Join(dst, part.files[1].Name), 0x801, []int{part.n}, part.set.Labels[:part.n]); err != nil {
			return err
		}
	}
	return nil
}

// write writes one gzipped IDX file: magic, dimensions, data.
func write(path string, magic uint32, dims []int, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	head := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		head = binary.BigEndian.AppendUint32(head, uint32(d))
	}
	_, err = zw.Write(append(head, data...))
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
