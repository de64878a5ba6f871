package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// dataIndex is the site's list of the data sets it hosts, by data set: the
// files of each (site/data/<name>/<file>), written by the build.
const dataIndex = "site/data/index.json"

// dataSets are the image data sets of the engine: the ones the site hosts
// (downloaded and parsed once) and the one read from the user's files.
type dataSets struct {
	e      *Engine
	hosted map[string][]string // data set -> its files on the site; nil: none
	probed bool
	loaded map[string]experiment.ImageData
	// picked is the data set read from the user's files ("" when none),
	// from describes the files.
	picked, from string
	busy         bool   // reading files
	loading      string // the hosted data set being downloaded
	err          string // the last problem, shown next to the data controls
}

// state says where the data sets stand.
func (d *dataSets) state() *protocol.DataState {
	st := &protocol.DataState{Probed: d.probed, Picked: d.picked, From: d.from, Busy: d.busy, Loading: d.loading, Error: d.err}
	if len(d.hosted) > 0 {
		st.Hosted = map[string]string{}
		for name := range d.hosted {
			st.Hosted[name] = hostedSize(name)
		}
	}
	st.Loaded = slices.Sorted(maps.Keys(d.loaded))
	return st
}

// changed tells the view where the data sets stand now.
func (d *dataSets) changed() {
	d.e.emit(protocol.Event{Kind: protocol.EvData, Data: d.state()})
}

// probe reads the site's data index once.
func (d *dataSets) probe() {
	if d.probed {
		return
	}
	d.probed = true
	defer d.changed()
	b, err := d.e.host.Fetch(dataIndex)
	if err != nil {
		return // no data on this site
	}
	var idx map[string][]string
	if json.Unmarshal(b, &idx) == nil && len(idx) > 0 {
		d.hosted = idx
	}
}

// hostedSize says about how much a hosted data set weighs.
func hostedSize(name string) string {
	s, err := images.Lookup(name)
	if err != nil {
		return "a few files"
	}
	return s.DownloadText()
}

// get returns the data set name: the user's files when they hold it, else
// the site's copy (downloaded and parsed once).
func (d *dataSets) get(name string) (experiment.ImageData, error) {
	d.probe()
	if data, ok := d.loaded[name]; ok {
		return data, nil
	}
	files := d.hosted[name]
	if files == nil {
		return experiment.ImageData{}, fmt.Errorf("no %s data: this site does not host it; choose its files under Data files", name)
	}
	d.loading = name
	d.changed()
	defer func() {
		d.loading = ""
		d.changed()
	}()
	var named []images.NamedFile
	for _, f := range files {
		if f != path.Base(f) {
			return experiment.ImageData{}, fmt.Errorf("%s: bad file name %q", dataIndex, f)
		}
		b, err := d.e.host.Fetch("site/data/" + name + "/" + f)
		if err != nil {
			return experiment.ImageData{}, err
		}
		named = append(named, images.NamedFile{Name: f, Data: b})
	}
	p, err := images.ParseDropped(named, name)
	if err != nil {
		return experiment.ImageData{}, err
	}
	if p.Name != name {
		return experiment.ImageData{}, fmt.Errorf("site/data/%s holds %s files", name, p.Name)
	}
	data := experiment.ImageData{Train: p.Train, Test: p.Test}
	d.loaded[name] = data
	return data, nil
}

// oodSet returns the test images of the data set that the site hosts and
// that a model of c.Data can score as out-of-distribution (the other of
// MNIST and Fashion-MNIST), c.LimitTest of them; nil when there is none or
// it fails to load (the run then goes without the scores).
func (d *dataSets) oodSet(c *experiment.ImageConfig) *experiment.OODSet {
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

// oodPartner returns the data set the site hosts that a model of the data
// set in can score as out-of-distribution, or "".
func (d *dataSets) oodPartner(in string) string {
	d.probe()
	return experiment.OODPartner(in, slices.Sorted(maps.Keys(d.hosted)))
}

// preload loads a hosted data set, and the hosted one its run scores as
// out-of-distribution, before a run needs them. A problem with name is
// kept for the data controls (a run then goes without the
// out-of-distribution scores when their data fail).
func (d *dataSets) preload(name string) {
	d.probe()
	if d.hosted[name] == nil || d.picked == name {
		return
	}
	if _, err := d.get(name); err != nil {
		d.err = err.Error()
		d.changed()
		return
	}
	if ood := d.oodPartner(name); ood != "" {
		d.get(ood)
	}
	d.changed()
}

// isCheckpoint reports whether a file's name is a checkpoint's.
func isCheckpoint(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".safetensors")
}

// readFiles reads the files the user chose or dropped and keeps the data
// set they hold; c.Data is the data set the form names. A single
// checkpoint is opened as a trained model instead (with c.Open's
// settings).
func (d *dataSets) readFiles(c protocol.Command, files []File) {
	if len(files) == 0 {
		return
	}
	if len(files) == 1 && isCheckpoint(files[0].Name) {
		c.Kind = protocol.CmdOpen
		if c.Open == nil {
			c.Open = &protocol.Open{}
		}
		c.Open.File = files[0].Name
		d.e.models.open(c, files)
		return
	}
	d.busy, d.err = true, ""
	d.changed()
	defer func() {
		d.busy = false
		d.changed()
	}()
	var named []images.NamedFile
	for _, f := range files {
		b, err := f.Read()
		if err != nil {
			d.err = fmt.Sprintf("%s: cannot read the file: %v", f.Name, err)
			return
		}
		named = append(named, images.NamedFile{Name: f.Name, Data: b})
	}
	p, err := images.ParseDropped(named, c.Data)
	if err != nil {
		d.err = err.Error()
		return
	}
	if d.picked != "" {
		delete(d.loaded, d.picked)
	}
	d.loaded[p.Name], d.picked, d.from = experiment.ImageData{Train: p.Train, Test: p.Test}, p.Name, p.From
}
