package page

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// FolderList is deeplda ui's runs folder as the page lists it: the runs,
// the ones ticked for the side-by-side view (in the order ticked) and the
// list's order.
type FolderList struct {
	List   []protocol.RunFolder
	Picked []string
	Order  FolderSort
	html   string // what the page shows (HTML)
}

// Set takes the list read from the folder's index.json; the ticked runs
// it no longer lists are dropped.
func (l *FolderList) Set(index []byte) error {
	var list []protocol.RunFolder
	if err := json.Unmarshal(index, &list); err != nil {
		return err
	}
	l.List = list
	l.Picked = slices.DeleteFunc(l.Picked, func(name string) bool { return l.find(name) == nil })
	return nil
}

// HTML returns the list as the page shows it (FoldersHTML), and whether
// that changed since the last call: unchanged, the page leaves the list
// as it is, under the pointer too.
func (l *FolderList) HTML() (html string, changed bool) {
	html = FoldersHTML(l.List, l.Picked, l.Order)
	changed, l.html = html != l.html, html
	return html, changed
}

// find returns the listed run named name, or nil.
func (l *FolderList) find(name string) *protocol.RunFolder {
	for i := range l.List {
		if l.List[i].Name == name {
			return &l.List[i]
		}
	}
	return nil
}

// Tick records a run's checkbox, ticked (on) or not.
func (l *FolderList) Tick(name string, on bool) {
	l.Picked = slices.DeleteFunc(l.Picked, func(n string) bool { return n == name })
	if on {
		l.Picked = append(l.Picked, name)
	}
}

// CanCompare reports whether the ticked runs can be shown side by side:
// 2 to MaxSideBySide of them.
func (l *FolderList) CanCompare() bool {
	return len(l.Picked) >= 2 && len(l.Picked) <= MaxSideBySide
}

// Runs returns the listed runs of names, in their order.
func (l *FolderList) Runs(names []string) []protocol.RunFolder {
	var runs []protocol.RunFolder
	for _, name := range names {
		if r := l.find(name); r != nil {
			runs = append(runs, *r)
		}
	}
	return runs
}

// ReadFolders reads runs of the folder, their reports and figures, by
// fetch (a path from the site's root).
func ReadFolders(runs []protocol.RunFolder, fetch func(path string) ([]byte, error)) ([]Folder, error) {
	var read []Folder
	for _, r := range runs {
		rep, err := fetch(r.Path + "report.json")
		if err != nil {
			return nil, fmt.Errorf("run %s: %v", r.Name, err)
		}
		figs := map[string]string{}
		for _, name := range r.Figures {
			b, err := fetch(r.Path + name)
			if err != nil {
				return nil, fmt.Errorf("run %s: %v", r.Name, err)
			}
			figs[name] = string(b)
		}
		read = append(read, Folder{RunFolder: r, ReportJSON: rep, Figs: figs})
	}
	return read, nil
}

// ResumeStart is the start of a session that resumes run name of the
// folder: the native engine trains it on with its folder's configuration.
func ResumeStart(name string) *protocol.Start {
	return &protocol.Start{Jobs: []protocol.Job{{Resume: name}}, Backend: experiment.BackendAuto, Density: true}
}
