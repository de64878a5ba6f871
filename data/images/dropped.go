package images

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
)

// NamedFile is a file the user dropped or chose, with its bytes.
type NamedFile struct {
	Name string
	Data []byte
}

// Parsed is a data set read from a user's files by ParseDropped.
type Parsed struct {
	Name        string // the data set (see Names)
	Train, Test *Set
	// From describes where the splits came from, e.g. "60000 training and
	// 10000 test images (IDX, read as fashion-mnist)".
	From string
}

// ParseDropped reads a data set from files held in memory, recognised by
// their names (see Identify): the IDX files of Fashion-MNIST or MNIST,
// gzipped or raw, told apart by the SHA-256 of their labels (files of
// neither are read as want when it is one of the two, else as the first),
// or CIFAR binary batches. A single pair of IDX files is split into a
// training set (its first five sixths) and a test set (the rest). The sets
// carry the data set's normalisation constants. Its errors name the file
// and the problem.
func ParseDropped(files []NamedFile, want string) (Parsed, error) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	id, err := Identify(names)
	if err != nil {
		return Parsed{}, err
	}
	if id.Format != IDX {
		return parseDroppedCIFAR(files, id)
	}
	return parseDroppedIDX(files, id, want)
}

// parseDroppedIDX reads the IDX files that Identify recognised as id.
func parseDroppedIDX(files []NamedFile, id Dropped, want string) (Parsed, error) {
	var raw [2][2][]byte // split, images or labels: the uncompressed data
	name := ""
	for k, pair := range [][]int{id.Train, id.Test} {
		if pair == nil {
			continue
		}
		// Damaged gzip data comes back from Gunzip as it is: the parser's
		// message then names the problem.
		for i := range 2 {
			f := files[pair[i]]
			g := id.Gunzip(f.Name, f.Data)
			for g.Next() {
			}
			out, err := g.Result()
			if err != nil {
				return Parsed{}, err
			}
			raw[k][i] = out
		}
		sum := sha256.Sum256(raw[k][1])
		if n := Which(hex.EncodeToString(sum[:])); n != "" {
			name = n
		}
	}
	if name == "" {
		name = id.Names[0]
		if slices.Contains(id.Names, want) {
			name = want
		}
	}
	spec, _ := Lookup(name)
	var sets [2]*Set
	for k, pair := range [][]int{id.Train, id.Test} {
		if pair == nil {
			continue
		}
		img, lbl := files[pair[0]].Name, files[pair[1]].Name
		s, err := ParseIDX(img, raw[k][0], lbl, raw[k][1], spec.Classes)
		if err != nil {
			return Parsed{}, err
		}
		if s.Shape != spec.Shape {
			return Parsed{}, fmt.Errorf("%s: images are %dx%d, %s has %dx%d", img, s.Shape[1], s.Shape[2], name, spec.Shape[1], spec.Shape[2])
		}
		s.Mean, s.Std = slices.Clone(spec.Mean), slices.Clone(spec.Std)
		sets[k] = s
	}
	tr, te := sets[0], sets[1]
	var from string
	if tr != nil && te != nil {
		from = fmt.Sprintf("%d training and %d test images (IDX, read as %s)", tr.Len(), te.Len(), name)
	} else {
		one := tr
		if one == nil {
			one = te
		}
		tr, te = splitSixths(one)
		from = fmt.Sprintf("one pair of files (%s), split into %d training and %d test images (IDX, read as %s)", path.Base(one.Name), tr.Len(), te.Len(), name)
	}
	tr.Name, te.Name = name+" train", name+" test"
	return Parsed{Name: name, Train: tr, Test: te, From: from}, nil
}

// splitSixths divides one set into a training set (the first five sixths)
// and a test set (the rest), both sharing its memory.
func splitSixths(s *Set) (train, test *Set) {
	k := s.Len() - s.Len()/6
	rest := *s
	rest.Pixels, rest.Labels = s.Pixels[k*s.Size():], s.Labels[k:]
	return s.Subset(k), &rest
}

// parseDroppedCIFAR reads the CIFAR binary batches that Identify
// recognised as id: the training batches in order, and the test batch.
func parseDroppedCIFAR(files []NamedFile, id Dropped) (Parsed, error) {
	name := id.Names[0]
	spec, _ := Lookup(name)
	var sets [2]*Set
	for k, batches := range [][]int{id.Train, id.Test} {
		for _, i := range batches {
			s, err := ParseCIFAR(id.Format, files[i].Name, files[i].Data)
			if err != nil {
				return Parsed{}, err
			}
			all := sets[k]
			if all == nil {
				sets[k] = s
				continue
			}
			all.Pixels = append(all.Pixels, s.Pixels...)
			all.Labels = append(all.Labels, s.Labels...)
			if s.Coarse != nil {
				all.Coarse = append(all.Coarse, s.Coarse...)
			}
		}
		sets[k].Name = name + " " + []string{"train", "test"}[k]
		sets[k].Mean, sets[k].Std = slices.Clone(spec.Mean), slices.Clone(spec.Std)
	}
	tr, te := sets[0], sets[1]
	from := fmt.Sprintf("%d training and %d test images (%d CIFAR batches)", tr.Len(), te.Len(), len(id.Train)+len(id.Test))
	return Parsed{Name: name, Train: tr, Test: te, From: from}, nil
}
