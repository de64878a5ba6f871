//go:build js && wasm

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
)

// This file gives the images demo its data: the data sets this site hosts
// (site/data/<name>/, listed in site/data/index.json by the build) or the
// files the user chooses or drops (IDX files of Fashion-MNIST and MNIST,
// gzipped or raw, and CIFAR binary batches). Files are parsed by package
// images, whose messages name the file and the problem.

// dataSource holds the loaded data sets and the data panel's elements.
type dataSource struct {
	a       *app
	hosted  map[string][]string // data set -> its files on this site; nil: none
	probed  bool                // index.json was read (or found missing)
	probing bool
	loaded  map[string]experiment.ImageData
	// picked is the data set read from the user's files ("" when none).
	picked     string
	pickedFrom string // a description of the files
	busy       bool   // reading files
	loading    string // the hosted data set being downloaded

	box, status, msg dom.HTMLElement
	input            dom.HTMLElement
}

func newDataSource(a *app) *dataSource {
	d := &dataSource{a: a, loaded: map[string]experiment.ImageData{},
		box: byID("data-box"), status: byID("data-status"), msg: byID("e-files"), input: byID("f-files")}
	a.on(d.input, "change", func(dom.Event) {
		files := d.input.Underlying().Get("files")
		go d.readFiles(files)
	})
	a.on(d.box, "dragover", func(ev dom.Event) {
		ev.PreventDefault()
		d.box.Class().Add("drop")
	})
	a.on(d.box, "dragleave", func(dom.Event) { d.box.Class().Remove("drop") })
	a.on(d.box, "drop", func(ev dom.Event) {
		ev.PreventDefault()
		d.box.Class().Remove("drop")
		if state() == "training" {
			return
		}
		files := ev.Underlying().Get("dataTransfer").Get("files")
		go d.readFiles(files)
	})
	return d
}

// probe reads site/data/index.json once: the data sets the site hosts.
func (d *dataSource) probe() {
	if d.probed || d.probing {
		return
	}
	d.probing = true
	defer func() { d.probed, d.probing = true, false }()
	b, err := fetchBytes("site/data/index.json")
	if err != nil {
		return // no data on this site
	}
	var idx map[string][]string
	if json.Unmarshal(b, &idx) == nil && len(idx) > 0 {
		d.hosted = idx
	}
}

// describe updates the panel's line on where the chosen data set comes
// from.
func (d *dataSource) describe() {
	name := d.a.form.raw()["data"]
	var names []string
	for n := range d.hosted {
		names = append(names, n)
	}
	sort.Strings(names)
	var s string
	switch {
	case d.busy:
		s = "Reading the files…"
	case d.loading != "":
		s = fmt.Sprintf("Downloading %s from this site (%s)…", d.loading, d.hostedSize(d.loading))
	case !d.probed && d.picked == "":
		s = "Looking for the data sets this site hosts…"
	case d.picked != "" && d.picked == name:
		s = "Using your files: " + d.pickedFrom + "."
	case d.hosted[name] != nil && d.loaded[name].Train != nil:
		s = fmt.Sprintf("Using %s as hosted by this site (loaded).", name)
	case d.hosted[name] != nil:
		s = fmt.Sprintf("This site hosts %s: Train downloads it (%s) once.", name, d.hostedSize(name))
	case len(names) > 0:
		s = fmt.Sprintf("This site hosts only %s, not %s: choose its files below, or drop them here.", strings.Join(names, " and "), name)
	default:
		s = "This site hosts no image data: choose the data set's files below, or drop them here (nothing leaves this page)."
	}
	if d.picked != "" && d.picked != name {
		s += fmt.Sprintf(" (Your files hold %s.)", d.picked)
	}
	d.status.SetTextContent(s)
	if d.probed {
		d.box.SetAttribute("data-hosted", fmt.Sprint(len(names) > 0))
	}
}

// hostedSize guesses the download size of a hosted data set.
func (d *dataSource) hostedSize(name string) string {
	switch name {
	case "fashion-mnist":
		return "about 30 MB"
	case "mnist":
		return "about 11 MB"
	case "cifar10":
		return "about 160 MB"
	case "cifar100":
		return "about 160 MB"
	}
	return "a few files"
}

// get returns the data set name: the user's files when they hold it, else
// the site's copy (downloaded and parsed once).
func (d *dataSource) get(name string) (experiment.ImageData, error) {
	if data, ok := d.loaded[name]; ok {
		return data, nil
	}
	d.probe()
	files := d.hosted[name]
	if files == nil {
		return experiment.ImageData{}, fmt.Errorf("no %s data: this site does not host it; choose its files under Data files", name)
	}
	d.a.setProgressText(fmt.Sprintf("Downloading %s (%s)…", name, d.hostedSize(name)))
	d.loading = name
	d.describe()
	defer func() {
		d.loading = ""
		d.describe()
	}()
	var named []namedFile
	for _, f := range files {
		if f != path.Base(f) {
			return experiment.ImageData{}, fmt.Errorf("site/data/index.json: bad file name %q", f)
		}
		b, err := fetchBytes("site/data/" + name + "/" + f)
		if err != nil {
			return experiment.ImageData{}, err
		}
		named = append(named, namedFile{f, b})
	}
	d.a.setProgressText(fmt.Sprintf("Reading %s…", name))
	got, data, _, err := d.parse(named, name)
	if err != nil {
		return experiment.ImageData{}, err
	}
	if got != name {
		return experiment.ImageData{}, fmt.Errorf("site/data/%s holds %s files", name, got)
	}
	d.loaded[name] = data
	return data, nil
}

// preload loads a hosted data set before the page says it is ready (the
// images demo opened with autostart): parsing the 47 MB of training images
// holds the thread for a few hundred milliseconds, which belongs to the
// page's loading rather than to training. A problem is shown next to the
// data controls.
func (d *dataSource) preload(name string) {
	d.probe()
	if d.hosted[name] == nil || d.picked == name {
		return
	}
	if _, err := d.get(name); err != nil {
		d.msg.SetTextContent(err.Error())
	}
}

// namedFile is a file's name and content.
type namedFile struct {
	name string
	data []byte
}

// readFiles reads the files the user chose or dropped (a FileList), parses
// them and keeps the data set; a problem is shown next to the control.
func (d *dataSource) readFiles(list js.Value) {
	defer d.a.guard()
	n := list.Get("length").Int()
	if n == 0 {
		return
	}
	d.busy = true
	d.msg.SetTextContent("")
	d.describe()
	defer func() {
		d.busy = false
		d.describe()
	}()
	var files []namedFile
	for i := range n {
		f := list.Call("item", i)
		name := f.Get("name").String()
		buf, err := await(f.Call("arrayBuffer"))
		if err != nil {
			d.msg.SetTextContent(fmt.Sprintf("%s: cannot read the file: %v", name, err))
			return
		}
		files = append(files, namedFile{name, jsBytes(buf)})
	}
	want := d.a.form.raw()["data"]
	name, data, from, err := d.parse(files, want)
	if err != nil {
		d.msg.SetTextContent(err.Error())
		return
	}
	if d.picked != "" {
		delete(d.loaded, d.picked)
	}
	d.loaded[name], d.picked, d.pickedFrom = data, name, from
	if want != name {
		// The files say which data set they are: show it.
		d.a.form.value("data").Set("value", name)
		d.a.edited()
	}
}

// Roles of the IDX files.
const (
	trainImages = iota
	trainLabels
	testImages
	testLabels
)

// idxRole returns the role of an IDX file by its published name
// (train-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte, …), or -1.
func idxRole(name string) int {
	n := strings.ToLower(path.Base(name))
	train := strings.HasPrefix(n, "train-")
	test := strings.HasPrefix(n, "t10k-") || strings.HasPrefix(n, "test-")
	switch {
	case train && strings.Contains(n, "-images"):
		return trainImages
	case train && strings.Contains(n, "-labels"):
		return trainLabels
	case test && strings.Contains(n, "-images"):
		return testImages
	case test && strings.Contains(n, "-labels"):
		return testLabels
	}
	return -1
}

// parse reads a data set from files: the IDX files of (Fashion-)MNIST
// (want names which of the two when it is one of them; fashion-mnist
// otherwise) or CIFAR binary batches. It returns the data set's name, its
// splits and a description of where they came from.
func (d *dataSource) parse(files []namedFile, want string) (string, experiment.ImageData, string, error) {
	var idx [4]*namedFile
	var cifarTrain, cifarTest []namedFile
	cifar100 := false
	for i := range files {
		f := &files[i]
		n := strings.ToLower(path.Base(f.name))
		if r := idxRole(n); r >= 0 {
			if idx[r] != nil {
				return "", experiment.ImageData{}, "", fmt.Errorf("%s and %s are both %s: choose one", idx[r].name, f.name, []string{"training images", "training labels", "test images", "test labels"}[r])
			}
			idx[r] = f
			continue
		}
		switch {
		case n == "test_batch.bin":
			cifarTest = append(cifarTest, *f)
		case strings.HasPrefix(n, "data_batch_") && strings.HasSuffix(n, ".bin"):
			cifarTrain = append(cifarTrain, *f)
		case n == "train.bin":
			cifarTrain, cifar100 = append(cifarTrain, *f), true
		case n == "test.bin":
			cifarTest, cifar100 = append(cifarTest, *f), true
		default:
			return "", experiment.ImageData{}, "", fmt.Errorf("%s: not a file of a data set this page reads: choose the IDX files of Fashion-MNIST or MNIST "+
				"(train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz; gzipped or not) "+
				"or CIFAR binary batches (data_batch_1.bin … test_batch.bin, or train.bin and test.bin of CIFAR-100)", f.name)
		}
	}
	hasIDX := slices.ContainsFunc(idx[:], func(f *namedFile) bool { return f != nil })
	hasCIFAR := len(cifarTrain)+len(cifarTest) > 0
	switch {
	case hasIDX && hasCIFAR:
		return "", experiment.ImageData{}, "", errors.New("these are IDX and CIFAR files together: choose the files of one data set")
	case hasCIFAR:
		return d.parseCIFAR(cifarTrain, cifarTest, cifar100)
	}
	name := want
	if name != "fashion-mnist" && name != "mnist" {
		name = "fashion-mnist"
	}
	spec, _ := images.Lookup(name)
	pair := func(img, lbl int) (*images.Set, error) {
		switch {
		case idx[img] == nil && idx[lbl] == nil:
			return nil, nil
		case idx[img] == nil:
			return nil, fmt.Errorf("%s has no images file beside it (%s)", idx[lbl].name, strings.Replace(path.Base(idx[lbl].name), "labels-idx1", "images-idx3", 1))
		case idx[lbl] == nil:
			return nil, fmt.Errorf("%s has no labels file beside it (%s)", idx[img].name, strings.Replace(path.Base(idx[img].name), "images-idx3", "labels-idx1", 1))
		}
		// Damaged gzip data comes back from gunzip as it is: the parser's
		// message then names the problem.
		s, err := images.ParseIDX(idx[img].name, d.gunzip(idx[img].data), idx[lbl].name, d.gunzip(idx[lbl].data), spec.Classes)
		if err != nil {
			return nil, err
		}
		if s.Shape != spec.Shape {
			return nil, fmt.Errorf("%s: images are %dx%d, %s has %dx%d", idx[img].name, s.Shape[1], s.Shape[2], name, spec.Shape[1], spec.Shape[2])
		}
		s.Mean, s.Std = slices.Clone(spec.Mean), slices.Clone(spec.Std)
		return s, nil
	}
	tr, err := pair(trainImages, trainLabels)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	te, err := pair(testImages, testLabels)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	var from string
	switch {
	case tr != nil && te != nil:
		from = fmt.Sprintf("%d training and %d test images (IDX, read as %s)", tr.Len(), te.Len(), name)
	case tr != nil || te != nil:
		one := tr
		if one == nil {
			one = te
		}
		tr, te = split(one)
		from = fmt.Sprintf("one pair of files (%s), split into %d training and %d test images (IDX, read as %s)", path.Base(one.Name), tr.Len(), te.Len(), name)
	default:
		return "", experiment.ImageData{}, "", errors.New("no data file chosen")
	}
	tr.Name, te.Name = name+" train", name+" test"
	return name, experiment.ImageData{Train: tr, Test: te}, from, nil
}

// split divides one set into a training set (the first five sixths) and a
// test set (the rest), for a single pair of IDX files.
func split(s *images.Set) (train, test *images.Set) {
	n := s.Len()
	k := n - n/6
	size := s.Size()
	part := func(lo, hi int) *images.Set {
		c := *s
		c.Pixels, c.Labels = s.Pixels[lo*size:hi*size], s.Labels[lo:hi]
		return &c
	}
	return part(0, k), part(k, n)
}

// parseCIFAR reads CIFAR binary batches: the training batches in order
// and the test batch.
func (d *dataSource) parseCIFAR(trainFiles, testFiles []namedFile, is100 bool) (string, experiment.ImageData, string, error) {
	name, f := "cifar10", images.CIFAR10
	if is100 {
		name, f = "cifar100", images.CIFAR100
	}
	switch {
	case len(trainFiles) == 0:
		return "", experiment.ImageData{}, "", fmt.Errorf("%s: no training batch (data_batch_1.bin … or train.bin) among the files", name)
	case len(testFiles) == 0:
		return "", experiment.ImageData{}, "", fmt.Errorf("%s: no test batch (test_batch.bin or test.bin) among the files", name)
	}
	sort.Slice(trainFiles, func(i, j int) bool { return trainFiles[i].name < trainFiles[j].name })
	spec, _ := images.Lookup(name)
	read := func(split string, files []namedFile) (*images.Set, error) {
		var all *images.Set
		for _, file := range files {
			s, err := images.ParseCIFAR(f, file.name, file.data)
			if err != nil {
				return nil, err
			}
			d.a.yield.maybe()
			if all == nil {
				all = s
				continue
			}
			all.Pixels = append(all.Pixels, s.Pixels...)
			all.Labels = append(all.Labels, s.Labels...)
			if s.Coarse != nil {
				all.Coarse = append(all.Coarse, s.Coarse...)
			}
		}
		all.Name = name + " " + split
		all.Mean, all.Std = slices.Clone(spec.Mean), slices.Clone(spec.Std)
		return all, nil
	}
	tr, err := read("train", trainFiles)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	te, err := read("test", testFiles)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	from := fmt.Sprintf("%d training and %d test images (%d CIFAR batches)", tr.Len(), te.Len(), len(trainFiles)+len(testFiles))
	return name, experiment.ImageData{Train: tr, Test: te}, from, nil
}

// gunzip decompresses gzip data in chunks, yielding to the browser between
// them (a 26 MB file takes seconds in WebAssembly); data that is not gzip,
// or damaged, comes back as it is, for the parser to judge.
func (d *dataSource) gunzip(data []byte) []byte {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return data
	}
	var out bytes.Buffer
	out.Grow(4 * len(data))
	for {
		_, err := io.CopyN(&out, zr, 1<<20)
		d.a.yield.maybe()
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			return data
		}
	}
}

// fetchBytes downloads a file by a URL relative to the page.
func fetchBytes(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %v", url, err)
	}
	if !resp.Get("ok").Bool() {
		return nil, fmt.Errorf("downloading %s: HTTP %d %s", url, resp.Get("status").Int(), resp.Get("statusText").String())
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %v", url, err)
	}
	return jsBytes(buf), nil
}

// jsBytes copies an ArrayBuffer into Go memory.
func jsBytes(buf js.Value) []byte {
	arr := js.Global().Get("Uint8Array").New(buf)
	b := make([]byte, arr.Get("length").Int())
	js.CopyBytesToGo(b, arr)
	return b
}

// await blocks the calling goroutine (never an event handler) until a
// promise settles.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "failed"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", ok, fail)
	r := <-ch
	ok.Release()
	fail.Release()
	return r.v, r.err
}
