package images

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Dropped is a set of files recognised by Identify: which data sets they
// can be, and which file plays which part.
type Dropped struct {
	// Format is IDX for the files of Fashion-MNIST or MNIST, or CIFAR10 or
	// CIFAR100.
	Format Format
	// Names are the data sets the files can be: for IDX files, whose
	// published names are the same for Fashion-MNIST and MNIST, both
	// (the content tells them apart, see Which); for CIFAR, the one.
	Names []string
	// Train and Test are the indices of the files of each split in the
	// list given to Identify. For IDX, [images, labels] with -1 where a
	// file is missing; for CIFAR, the batches in published order.
	Train, Test []int
}

// MissingError is a published file of a data set that is not in the folder
// it should be read from.
type MissingError struct {
	Set, File string
	Tried     []string // the paths looked at
	URL       string   // where the file (or its archive) is published
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s: %s not found (tried %s); it is published at %s", e.Set, e.File, strings.Join(e.Tried, ", "), e.URL)
}

// WrongSetError is a file of another known data set given for this one:
// its SHA-256 is that of a published file of Have.
type WrongSetError struct {
	Path, Have, Want string
}

func (e *WrongSetError) Error() string {
	return fmt.Sprintf("%s holds %s data, not %s", e.Path, e.Have, e.Want)
}

// Which returns the known data set one of whose published files has the
// SHA-256 sha (hex, of its uncompressed content), or "" for none: it tells
// Fashion-MNIST's IDX files from MNIST's.
func Which(sha string) string {
	for _, s := range specs {
		for _, f := range slices.Concat(s.Train, s.Test) {
			if f.SHA256 != "" && f.SHA256 == sha {
				return s.Name
			}
		}
	}
	return ""
}

// idxRole returns the part an IDX file plays by its published name
// (train-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte, …): its split
// (0 training, 1 test) and 0 for images, 1 for labels; ok is false for
// another name.
func idxRole(name string) (split, kind int, ok bool) {
	n := strings.ToLower(path.Base(name))
	switch {
	case strings.HasPrefix(n, "train-"):
		split = 0
	case strings.HasPrefix(n, "t10k-"), strings.HasPrefix(n, "test-"):
		split = 1
	default:
		return 0, 0, false
	}
	switch {
	case strings.Contains(n, "-images"):
		return split, 0, true
	case strings.Contains(n, "-labels"):
		return split, 1, true
	}
	return 0, 0, false
}

// cifarSet returns the CIFAR data set one of whose batch files is named
// name, and the file's index in the published order of its split.
func cifarSet(name string) (set string, test bool, index int, ok bool) {
	n := strings.ToLower(path.Base(name))
	for _, sp := range specs {
		if sp.Format == IDX {
			continue
		}
		if i := slices.IndexFunc(sp.Train, func(f File) bool { return f.Name == n }); i >= 0 {
			return sp.Name, false, i, true
		}
		if i := slices.IndexFunc(sp.Test, func(f File) bool { return f.Name == n }); i >= 0 {
			return sp.Name, true, i, true
		}
	}
	return "", false, 0, false
}

// Identify recognises a set of files (a user's pick, by their names) as
// the files of one data set: the IDX files of Fashion-MNIST or MNIST,
// gzipped or not, or the binary batches of CIFAR-10 or CIFAR-100. Its
// errors name the file at fault.
func Identify(names []string) (Dropped, error) {
	if len(names) == 0 {
		return Dropped{}, errors.New("no data file chosen")
	}
	var d Dropped
	idx := [2][2]int{{-1, -1}, {-1, -1}}
	cifar := ""
	for i, name := range names {
		if split, kind, ok := idxRole(name); ok {
			if j := idx[split][kind]; j >= 0 {
				return Dropped{}, fmt.Errorf("%s and %s are both %s %s: choose one", names[j], name, []string{"training", "test"}[split], []string{"images", "labels"}[kind])
			}
			idx[split][kind] = i
			continue
		}
		set, test, _, ok := cifarSet(name)
		if !ok {
			return Dropped{}, fmt.Errorf("%s: not a file of a data set this page reads: choose the IDX files of Fashion-MNIST or MNIST "+
				"(%s; gzipped or not) or CIFAR binary batches (data_batch_1.bin … test_batch.bin, or train.bin and test.bin of CIFAR-100)",
				name, strings.Join(idxNames(), ", "))
		}
		if cifar != "" && cifar != set {
			return Dropped{}, fmt.Errorf("%s is a file of %s, the others of %s: choose the files of one data set", name, set, cifar)
		}
		cifar = set
		if test {
			d.Test = append(d.Test, i)
		} else {
			d.Train = append(d.Train, i)
		}
	}
	hasIDX := idx != [2][2]int{{-1, -1}, {-1, -1}}
	switch {
	case hasIDX && cifar != "":
		return Dropped{}, errors.New("these are IDX and CIFAR files together: choose the files of one data set")
	case cifar != "":
		sp, _ := spec(cifar)
		order := func(list []int, files []File) {
			slices.SortFunc(list, func(a, b int) int {
				ia := slices.IndexFunc(files, func(f File) bool { return f.Name == strings.ToLower(path.Base(names[a])) })
				ib := slices.IndexFunc(files, func(f File) bool { return f.Name == strings.ToLower(path.Base(names[b])) })
				return ia - ib
			})
		}
		order(d.Train, sp.Train)
		order(d.Test, sp.Test)
		switch {
		case len(d.Train) == 0:
			return Dropped{}, fmt.Errorf("%s: no training batch (%s) among the files", cifar, strings.Join(fileNames(sp.Train), ", "))
		case len(d.Test) == 0:
			return Dropped{}, fmt.Errorf("%s: no test batch (%s) among the files", cifar, strings.Join(fileNames(sp.Test), ", "))
		}
		d.Format, d.Names = sp.Format, []string{cifar}
		return d, nil
	}
	for split := range idx {
		img, lbl := idx[split][0], idx[split][1]
		switch {
		case img < 0 && lbl >= 0:
			return Dropped{}, fmt.Errorf("%s has no images file beside it (%s)", names[lbl], strings.Replace(path.Base(names[lbl]), "labels-idx1", "images-idx3", 1))
		case lbl < 0 && img >= 0:
			return Dropped{}, fmt.Errorf("%s has no labels file beside it (%s)", names[img], strings.Replace(path.Base(names[img]), "images-idx3", "labels-idx1", 1))
		}
	}
	d.Format = IDX
	for _, s := range specs {
		if s.Format == IDX {
			d.Names = append(d.Names, s.Name)
		}
	}
	if idx[0][0] >= 0 {
		d.Train = idx[0][:]
	}
	if idx[1][0] >= 0 {
		d.Test = idx[1][:]
	}
	return d, nil
}

// fileNames returns the names of files.
func fileNames(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}

// idxNames returns the published names of the IDX files.
func idxNames() []string {
	s, _ := spec("mnist")
	return s.Files()
}
