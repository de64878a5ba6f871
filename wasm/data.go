//go:build js && wasm

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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

// hostedSize says about how much a hosted data set weighs.
func (d *dataSource) hostedSize(name string) string {
	s, err := images.Lookup(name)
	if err != nil {
		return "a few files"
	}
	return s.DownloadText()
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

// oodSet returns the test images of the data set that this site hosts and
// that a model of c.Data can score as out-of-distribution (the other of
// MNIST and Fashion-MNIST), c.LimitTest of them; nil when there is none or
// it fails to load (the run then goes without the scores).
func (d *dataSource) oodSet(c *experiment.ImageConfig) *experiment.OODSet {
	name := d.oodPartner(c.Data)
	if name == "" {
		return nil
	}
	data, err := d.get(name)
	if err != nil {
		return nil
	}
	set, err := experiment.NewOODSet(name, data.Test, c.Data, c.LimitTest)
	if err != nil {
		return nil
	}
	return set
}

// oodPartner returns the data set this site hosts that a model of the
// data set in can score as out-of-distribution, or "".
func (d *dataSource) oodPartner(in string) string {
	d.probe()
	return experiment.OODPartner(in, slices.Sorted(maps.Keys(d.hosted)))
}

// preload loads a hosted data set, and the hosted one its run scores as
// out-of-distribution, before the page says it is ready (the images demo
// opened with autostart): parsing the 47 MB of training images holds the
// thread for a few hundred milliseconds, which belongs to the page's
// loading rather than to training. A problem with name is shown next to
// the data controls (the run goes without the out-of-distribution scores
// when their data fail).
func (d *dataSource) preload(name string) {
	d.probe()
	if d.hosted[name] == nil || d.picked == name {
		return
	}
	if _, err := d.get(name); err != nil {
		d.msg.SetTextContent(err.Error())
		return
	}
	if ood := d.oodPartner(name); ood != "" {
		d.get(ood)
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
	if f := list.Call("item", 0); n == 1 && isCheckpoint(f.Get("name").String()) {
		d.a.models.openFile(f)
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

// parse reads a data set from files (recognised by images.Identify): the
// IDX files of Fashion-MNIST or MNIST, told apart by the SHA-256 of their
// labels (unknown files are read as want when it is one of the two,
// else as the first), or CIFAR binary batches. It returns the data set's
// name, its splits and a description of where they came from.
func (d *dataSource) parse(files []namedFile, want string) (string, experiment.ImageData, string, error) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	id, err := images.Identify(names)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	if id.Format != images.IDX {
		return d.parseCIFAR(files, id)
	}
	return d.parseIDX(files, id, want)
}

// parseIDX reads the IDX files that Identify recognised.
func (d *dataSource) parseIDX(files []namedFile, id images.Dropped, want string) (string, experiment.ImageData, string, error) {
	var raw [2][2][]byte // split, images or labels: the uncompressed data
	name := ""
	for k, pair := range [][]int{id.Train, id.Test} {
		if pair == nil {
			continue
		}
		// Damaged gzip data comes back from gunzip as it is: the parser's
		// message then names the problem.
		for i := range 2 {
			f := files[pair[i]]
			out, err := d.gunzip(id, f.name, f.data)
			if err != nil {
				return "", experiment.ImageData{}, "", err
			}
			raw[k][i] = out
		}
		sum := sha256.Sum256(raw[k][1])
		if n := images.Which(hex.EncodeToString(sum[:])); n != "" {
			name = n
		}
	}
	if name == "" {
		name = id.Names[0]
		if slices.Contains(id.Names, want) {
			name = want
		}
	}
	spec, _ := images.Lookup(name)
	sets := [2]*images.Set{}
	for k, pair := range [][]int{id.Train, id.Test} {
		if pair == nil {
			continue
		}
		img, lbl := files[pair[0]].name, files[pair[1]].name
		s, err := images.ParseIDX(img, raw[k][0], lbl, raw[k][1], spec.Classes)
		if err != nil {
			return "", experiment.ImageData{}, "", err
		}
		if s.Shape != spec.Shape {
			return "", experiment.ImageData{}, "", fmt.Errorf("%s: images are %dx%d, %s has %dx%d", img, s.Shape[1], s.Shape[2], name, spec.Shape[1], spec.Shape[2])
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
		tr, te = split(one)
		from = fmt.Sprintf("one pair of files (%s), split into %d training and %d test images (IDX, read as %s)", path.Base(one.Name), tr.Len(), te.Len(), name)
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

// parseCIFAR reads the CIFAR binary batches that Identify recognised: the
// training batches in order and the test batch.
func (d *dataSource) parseCIFAR(files []namedFile, id images.Dropped) (string, experiment.ImageData, string, error) {
	name := id.Names[0]
	spec, _ := images.Lookup(name)
	read := func(split string, which []int) (*images.Set, error) {
		var all *images.Set
		for _, i := range which {
			s, err := images.ParseCIFAR(id.Format, files[i].name, files[i].data)
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
	tr, err := read("train", id.Train)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	te, err := read("test", id.Test)
	if err != nil {
		return "", experiment.ImageData{}, "", err
	}
	from := fmt.Sprintf("%d training and %d test images (%d CIFAR batches)", tr.Len(), te.Len(), len(id.Train)+len(id.Test))
	return name, experiment.ImageData{Train: tr, Test: te}, from, nil
}

// gunzip decompresses the file name, one of those id describes, in chunks
// (images.Dropped.Gunzip), yielding to the browser between them (a 26 MB
// file takes seconds in WebAssembly); data that is not gzip, or damaged,
// comes back as it is, for the parser to judge. Its error is a file that
// decompresses past the size of the data set's largest file.
func (d *dataSource) gunzip(id images.Dropped, name string, data []byte) ([]byte, error) {
	g := id.Gunzip(name, data)
	for g.Next() {
		d.a.yield.maybe()
	}
	return g.Result()
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
