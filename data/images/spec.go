package images

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// File is one published file of a data set.
type File struct {
	Name string // file name as published

	// SHA256 is the hex SHA-256 of the file's uncompressed content (for a
	// gzipped IDX file, of the IDX data inside), or "" when none is
	// recorded: the file is then checked for structure only.
	SHA256 string
}

// Spec describes a published data set: its geometry, its normalisation
// constants and its files.
type Spec struct {
	Name    string
	Format  Format
	Shape   [3]int // C, H, W of one example
	Classes int

	// Mean and Std are the per-channel constants of the paper's
	// normalisation, on pixels scaled to [0,1].
	Mean, Std []float32

	// BaseURL is where the files are published: an IDX file's URL is
	// BaseURL + its name, a CIFAR archive's is BaseURL + Archive.
	BaseURL string
	// Archive is the gzipped tar archive of a CIFAR data set; "" for IDX.
	Archive string
	// Folder is the folder the CIFAR archive extracts to; "" for IDX.
	Folder string
	// ArchiveMD5 is the MD5 (hex) of the CIFAR archive as its publisher
	// gives it, checked by FetchSpec when not empty; "" for IDX.
	ArchiveMD5 string
	// MaxFile is the size in bytes beyond which decompressing a file of
	// the set stops with an error (a gzip bomb): for IDX, the size of its
	// largest published file, uncompressed; for CIFAR, a bound on its
	// archive's (whose members weigh about 184.4 MB).
	MaxFile int64

	// Train and Test are the files of each split. For IDX, the image file
	// then the label file; for CIFAR, the batch files in order.
	Train, Test []File

	// ClassNames names the classes for the figures' legends; nil when
	// they do not fit a legend (CIFAR-100's 100 classes).
	ClassNames []string
	// Download is about how many bytes the published files weigh.
	Download int64
	// Hosted says that the static site carries the data set's published
	// files (see Hosted): the small IDX sets.
	Hosted bool
}

// specs are the known data sets, in the order of Names. The SHA-256 values are those of the
// uncompressed IDX data of the published files; the largest IDX file is
// the training images, 60,000 of 28x28 after a 16-byte header, and a CIFAR
// archive holds 60,000 records of 3,073 or 3,074 bytes. No hash is
// recorded for the CIFAR files themselves: they are checked for structure,
// and their archives for the MD5 sums that
// https://www.cs.toronto.edu/~kriz/cifar.html publishes for the binary
// versions.
var specs = []Spec{
	{
		Name: "fashion-mnist", Format: IDX, Shape: [3]int{1, 28, 28}, Classes: 10,
		Mean: []float32{0.2860}, Std: []float32{0.3530},
		ClassNames: []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"},
		Download:   30_878_645, Hosted: true, MaxFile: 47_040_016,
		BaseURL: "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
		Train: []File{
			{"train-images-idx3-ubyte.gz", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"},
			{"train-labels-idx1-ubyte.gz", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"},
		},
		Test: []File{
			{"t10k-images-idx3-ubyte.gz", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"},
			{"t10k-labels-idx1-ubyte.gz", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"},
		},
	},
	{
		Name: "mnist", Format: IDX, Shape: [3]int{1, 28, 28}, Classes: 10,
		Mean: []float32{0.1307}, Std: []float32{0.3081},
		ClassNames: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Download:   11_594_722, Hosted: true, MaxFile: 47_040_016,
		BaseURL: "https://ossci-datasets.s3.amazonaws.com/mnist/",
		Train: []File{
			{"train-images-idx3-ubyte.gz", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"},
			{"train-labels-idx1-ubyte.gz", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"},
		},
		Test: []File{
			{"t10k-images-idx3-ubyte.gz", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"},
			{"t10k-labels-idx1-ubyte.gz", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"},
		},
	},
	{
		Name: "cifar10", Format: CIFAR10, Shape: [3]int{3, 32, 32}, Classes: 10,
		Mean:       []float32{0.4914, 0.4822, 0.4465},
		Std:        []float32{0.2470, 0.2435, 0.2616},
		ClassNames: []string{"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"},
		Download:   170_052_171,
		BaseURL:    "https://www.cs.toronto.edu/~kriz/",
		Archive:    "cifar-10-binary.tar.gz",
		ArchiveMD5: "c32a1d4ab5d03f1284b67883e8d87530",
		MaxFile:    400_000_000,
		Folder:     "cifar-10-batches-bin",
		Train: []File{
			{Name: "data_batch_1.bin"}, {Name: "data_batch_2.bin"}, {Name: "data_batch_3.bin"},
			{Name: "data_batch_4.bin"}, {Name: "data_batch_5.bin"},
		},
		Test: []File{{Name: "test_batch.bin"}},
	},
	{
		Name: "cifar100", Format: CIFAR100, Shape: [3]int{3, 32, 32}, Classes: 100,
		Mean:       []float32{0.5071, 0.4867, 0.4408},
		Std:        []float32{0.2675, 0.2565, 0.2761},
		Download:   168_513_733,
		BaseURL:    "https://www.cs.toronto.edu/~kriz/",
		Archive:    "cifar-100-binary.tar.gz",
		ArchiveMD5: "03b5dce01913d631647c71ecec9e9cb8",
		MaxFile:    400_000_000,
		Folder:     "cifar-100-binary",
		Train:      []File{{Name: "train.bin"}},
		Test:       []File{{Name: "test.bin"}},
	},
}

// Names returns the names of the known data sets: fashion-mnist, mnist,
// cifar10, cifar100.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// spec returns the description of a known data set (shared: not to be
// modified), or false.
func spec(name string) (Spec, bool) {
	i := slices.IndexFunc(specs, func(s Spec) bool { return s.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	return specs[i], true
}

// Lookup returns (a copy of) the description of a known data set.
func Lookup(name string) (Spec, error) {
	s, ok := spec(name)
	if !ok {
		return Spec{}, fmt.Errorf("unknown data set %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	s.Mean, s.Std = slices.Clone(s.Mean), slices.Clone(s.Std)
	s.Train, s.Test = slices.Clone(s.Train), slices.Clone(s.Test)
	s.ClassNames = slices.Clone(s.ClassNames)
	return s, nil
}

// Hosted returns the names of the data sets the static site carries
// (Spec.Hosted), in the order of Names.
func Hosted() []string {
	var out []string
	for _, s := range specs {
		if s.Hosted {
			out = append(out, s.Name)
		}
	}
	return out
}

// Files returns the names of the published files of both splits, in
// order (the training files first).
func (s Spec) Files() []string {
	return fileNames(slices.Concat(s.Train, s.Test))
}

// DownloadText says about how much the published files weigh:
// "about 30 MB".
func (s Spec) DownloadText() string {
	return fmt.Sprintf("about %d MB", (s.Download+500_000)/1_000_000)
}

// check panics on a description that cannot be used.
func (s *Spec) check(fn string) {
	bad := func(format string, a ...any) {
		panic(fmt.Sprintf("images: %s: spec %q: ", fn, s.Name) + fmt.Sprintf(format, a...))
	}
	switch s.Format {
	case IDX:
		if s.Shape[0] != 1 {
			bad("IDX images have 1 channel, not %d", s.Shape[0])
		}
		if len(s.Train) != 2 || len(s.Test) != 2 {
			bad("an IDX split has an image file and a label file")
		}
	case CIFAR10, CIFAR100:
		if s.Shape != [3]int{3, 32, 32} {
			bad("CIFAR images have shape [3 32 32], not %v", s.Shape)
		}
		if _, classes := cifarLayout(fn, s.Format); s.Classes != classes {
			bad("%v has %d classes, not %d", s.Format, classes, s.Classes)
		}
		if len(s.Train) == 0 || len(s.Test) == 0 || s.Archive == "" || s.Folder == "" {
			bad("a CIFAR spec needs files for both splits, an archive and a folder")
		}
	default:
		bad("unknown format %v", s.Format)
	}
	if s.Shape[1] < 1 || s.Shape[2] < 1 {
		bad("bad shape %v", s.Shape)
	}
	if s.Classes < 1 || s.Classes > 256 {
		bad("%d classes, want 1 to 256", s.Classes)
	}
	if s.MaxFile < 1 {
		bad("no cap on decompression (MaxFile)")
	}
	if s.Mean == nil || s.Std == nil {
		bad("no normalisation constants")
	}
	if err := checkNorm(s.Shape[0], s.Mean, s.Std); err != nil {
		bad("%v", err)
	}
	for _, f := range slices.Concat(s.Train, s.Test) {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || !filepath.IsLocal(f.Name) {
			bad("bad file name %q", f.Name)
		}
	}
}

// Load reads a known data set (see Names) from the folder dir and returns
// its training and test sets, with the normalisation constants of the
// paper. See LoadSpec.
func Load(name, dir string) (train, test *Set, err error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	return LoadSpec(s, dir)
}

// LoadSpec reads the data set that s describes from the folder dir, where
// the files lie as published: the IDX files, gzipped (or not, without the
// .gz suffix), or for CIFAR the .bin files, in the extracted archive folder
// (s.Folder, e.g. cifar-10-batches-bin) or directly in dir. It verifies the
// SHA-256 of every file that has one recorded, the structure of every file
// and that the images have the shape of s. It panics if s is unusable.
func LoadSpec(s Spec, dir string) (train, test *Set, err error) {
	s.check("LoadSpec")
	if s.Format == IDX {
		return loadIDX(&s, dir)
	}
	return loadCIFAR(&s, dir)
}

// locate returns the path of a published file in dir.
func locate(s *Spec, dir string, f File) (string, error) {
	var tries []string
	if s.Format == IDX {
		tries = append(tries, filepath.Join(dir, f.Name))
		if raw := strings.TrimSuffix(f.Name, ".gz"); raw != f.Name {
			tries = append(tries, filepath.Join(dir, raw))
		}
	} else {
		tries = append(tries, filepath.Join(dir, s.Folder, f.Name), filepath.Join(dir, f.Name))
	}
	for _, p := range tries {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	where := s.BaseURL + f.Name
	if s.Archive != "" {
		where = s.BaseURL + s.Archive
	}
	return "", &MissingError{Set: s.Name, File: f.Name, Tried: tries, URL: where}
}

// loadIDX reads the four IDX files of s concurrently.
func loadIDX(s *Spec, dir string) (train, test *Set, err error) {
	files := []File{s.Train[0], s.Train[1], s.Test[0], s.Test[1]}
	magics := []uint32{idxImages, idxLabels, idxImages, idxLabels}
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = locate(s, dir, f); err != nil {
			return nil, nil, err
		}
	}
	dec := make([]*idxFile, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i := range files {
		wg.Go(func() { dec[i], errs[i] = readIDXFile(paths[i], magics[i], files[i].SHA256, s.fileCap()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	sets := [2]*Set{}
	for k, split := range []string{"train", "test"} {
		img, lbl := dec[2*k], dec[2*k+1]
		set, err := makeIDXSet(paths[2*k], img, paths[2*k+1], lbl, s.Classes)
		if err != nil {
			return nil, nil, err
		}
		if set.Shape != s.Shape {
			return nil, nil, fmt.Errorf("%s: images are %dx%d, %s has %dx%d",
				paths[2*k], set.Shape[1], set.Shape[2], s.Name, s.Shape[1], s.Shape[2])
		}
		set.Name = s.Name + " " + split
		set.Mean, set.Std = slices.Clone(s.Mean), slices.Clone(s.Std)
		sets[k] = set
	}
	return sets[0], sets[1], nil
}

// loadCIFAR reads the CIFAR batch files of s.
func loadCIFAR(s *Spec, dir string) (train, test *Set, err error) {
	sets := [2]*Set{}
	for k, split := range [][]File{s.Train, s.Test} {
		parts := make([]cifarPart, len(split))
		for i, f := range split {
			if parts[i].path, err = locate(s, dir, f); err != nil {
				return nil, nil, err
			}
			parts[i].sha = f.SHA256
		}
		set, err := readCIFARFiles(s.Name+" "+[]string{"train", "test"}[k], s.Format, parts)
		if err != nil {
			return nil, nil, err
		}
		set.Mean, set.Std = slices.Clone(s.Mean), slices.Clone(s.Std)
		sets[k] = set
	}
	return sets[0], sets[1], nil
}
