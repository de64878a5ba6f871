package page

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// FolderColumn is a column of the runs folder's table: its header, and
// the key that sorts by it ("" for a column that does not sort).
type FolderColumn struct{ Header, Key string }

// FolderColumns are the columns of the runs folder's table.
var FolderColumns = []FolderColumn{
	{"Run", "run"}, {"Date", "date"}, {"Seed", "seed"}, {"Settings that differ", ""}, {"Status", "status"},
	{"Epochs", "epochs"}, {"Test accuracy", "accuracy"}, {"ECE", "ece"}, {"Files", ""},
}

// FolderSort is the order of the runs folder's table: by the column of
// Key (as the server lists them, newest first, for ""), descending with
// Desc.
type FolderSort struct {
	Key  string
	Desc bool
}

// Toggle returns the order after a click on the header of column key:
// by it, ascending, or the other way round when it already sorts.
func (o FolderSort) Toggle(key string) FolderSort {
	if o.Key == key {
		return FolderSort{key, !o.Desc}
	}
	return FolderSort{key, false}
}

// SortFolders returns list in order o (a stable sort; runs that tie keep
// the server's order).
func SortFolders(list []protocol.RunFolder, o FolderSort) []protocol.RunFolder {
	out := slices.Clone(list)
	cmpKey := func(a, b protocol.RunFolder) int {
		switch o.Key {
		case "run":
			return strings.Compare(a.Label, b.Label)
		case "date":
			return strings.Compare(a.Date, b.Date)
		case "seed":
			x, _ := strconv.ParseUint(a.Settings["seed"], 10, 64)
			y, _ := strconv.ParseUint(b.Settings["seed"], 10, 64)
			return cmp.Compare(x, y)
		case "status":
			return strings.Compare(a.Status, b.Status)
		case "epochs":
			return cmp.Compare(a.Trained, b.Trained)
		case "accuracy":
			return cmp.Compare(a.TestAccuracy, b.TestAccuracy)
		case "ece":
			return cmp.Compare(a.TestECE, b.TestECE)
		}
		return 0
	}
	slices.SortStableFunc(out, func(a, b protocol.RunFolder) int {
		if o.Desc {
			return cmpKey(b, a)
		}
		return cmpKey(a, b)
	})
	return out
}

// alike are the settings that tell no runs apart in the table: those of
// its own columns, and where the files are.
var alike = map[string]bool{"seed": true, "epochs": true, "datadir": true, "out": true}

// Differing returns, for each run of list, its settings that differ among
// the runs of its kind (toy or images) as "name=value", by name: what
// tells runs of the same label apart.
func Differing(list []protocol.RunFolder) [][]string {
	kinds := map[string][]int{}
	for i, r := range list {
		if r.Settings != nil {
			kinds[r.Kind] = append(kinds[r.Kind], i)
		}
	}
	out := make([][]string, len(list))
	for _, runs := range kinds {
		keys := map[string]bool{}
		for _, i := range runs {
			for k, v := range list[i].Settings {
				if !alike[k] && v != list[runs[0]].Settings[k] {
					keys[k] = true
				}
			}
			for k := range list[runs[0]].Settings {
				if _, ok := list[i].Settings[k]; !ok && !alike[k] {
					keys[k] = true
				}
			}
		}
		names := slices.Sorted(maps.Keys(keys))
		for _, i := range runs {
			for _, k := range names {
				out[i] = append(out[i], k+"="+list[i].Settings[k])
			}
		}
	}
	return out
}

// FoldersTable is the table of the runs of deeplda ui's runs folder
// (runs/index.json) in order o, as text: each run's label, date, seed, the
// settings that tell it apart, its status, epochs, test accuracy and ECE,
// and the files it has (report.json and its figures).
func FoldersTable(list []protocol.RunFolder, o FolderSort) *Table {
	return foldersTable(SortFolders(list, o))
}

// foldersTable is FoldersTable of a list in its order.
func foldersTable(list []protocol.RunFolder) *Table {
	t := &Table{ID: TableFolders, File: "runs.csv"}
	for _, c := range FolderColumns {
		t.Header = append(t.Header, c.Header)
	}
	differ := Differing(list)
	for i, r := range list {
		epochs, acc, ece := "", "", ""
		if r.Epochs > 0 {
			epochs = fmt.Sprintf("%d / %d", r.Trained, r.Epochs)
		}
		if r.Report && r.Trained > 0 {
			acc, ece = fmt.Sprintf("%.2f%%", 100*r.TestAccuracy), fmt.Sprintf("%.2f%%", 100*r.TestECE)
		}
		t.Rows = append(t.Rows, []string{r.Label, r.Date, r.Settings["seed"], strings.Join(differ[i], ", "), r.Status,
			epochs, acc, ece, strings.Join(folderFiles(r), " ")})
	}
	return t
}

// folderFiles returns the files of a listed run that the page offers:
// its report.json and its figures, none before its report.
func folderFiles(r protocol.RunFolder) []string {
	if !r.Report {
		return nil
	}
	return append([]string{"report.json"}, r.Figures...)
}

// FoldersHTML is the runs folder's table (FoldersTable) under a line with
// its CSV button (data-csv), its headers buttons that sort it
// (data-sort): a run with a report has a button (data-folder) that shows
// it and a checkbox (data-pick, ticked when picked names it) that picks
// it for the side-by-side view, where the runs go in the order of picked,
// the i-th in experiment.RunColor(i), the colour of its row's marker
// (runMark) while it is picked; each row has buttons (data-file) that
// download its report.json and figures (files of the runs folder are
// never opened in the page's origin), and a resumable run (stopped,
// killed, crashed) a button (data-resume) that resumes it.
func FoldersHTML(list []protocol.RunFolder, picked []string, o FolderSort) string {
	if len(list) == 0 {
		return `<p class="muted">No runs yet: each run trained on this machine is a folder here.</p>`
	}
	list = SortFolders(list, o)
	t := foldersTable(list)
	var b strings.Builder
	writeTableHead(&b, t)
	b.WriteString(`<table class="summary folders" id="` + t.ID + `"><thead><tr>`)
	for _, c := range FolderColumns {
		if c.Key == "" {
			b.WriteString("<th>" + escaper.Replace(c.Header) + "</th>")
			continue
		}
		sort := "none"
		if o.Key == c.Key {
			sort = "ascending"
			if o.Desc {
				sort = "descending"
			}
		}
		b.WriteString(`<th aria-sort="` + sort + `"><button type="button" class="link" data-sort="` + c.Key + `" title="sort by this column">` + escaper.Replace(c.Header) + `</button></th>`)
	}
	b.WriteString("</tr></thead><tbody>")
	for i, r := range list {
		row := t.Rows[i]
		name := escaper.Replace(r.Label)
		if r.Report {
			tick, at := "", slices.Index(picked, r.Name)
			if at >= 0 {
				tick = " checked"
			}
			name = `<input type="checkbox" data-pick="` + escaper.Replace(r.Name) + `" title="pick for the side-by-side view"` + tick + `> ` + runMark(at) + `<button type="button" class="link" data-folder="` + escaper.Replace(r.Name) + `" title="show this run's figures and report">` + name + `</button>`
		}
		b.WriteString(`<tr><td>` + name + `</td>`)
		for _, cell := range row[1 : len(row)-1] {
			b.WriteString("<td>" + escaper.Replace(cell) + "</td>")
		}
		b.WriteString("<td>")
		for _, f := range folderFiles(r) {
			b.WriteString(` <button type="button" class="link" data-file="` + escaper.Replace(r.Path) + escaper.Replace(f) + `" title="download">` + escaper.Replace(f) + `</button>`)
		}
		if r.Resumable {
			b.WriteString(` <button type="button" class="link" data-resume="` + escaper.Replace(r.Name) + `" title="train this run on from its last whole epoch">Resume</button>`)
		}
		b.WriteString("</td></tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// MaxSideBySide is the most runs of the runs folder shown side by side.
const MaxSideBySide = 4

// Folder is a run of the runs folder as the page read it: its entry in the
// list, its report.json and its figures (SVG by file name).
type Folder struct {
	protocol.RunFolder
	ReportJSON []byte
	Figs       map[string]string
}

// FolderSession is a session that shows runs of the runs folder (one, or
// up to MaxSideBySide of one kind side by side), each as an opened run:
// its report and its figures. Side by side, the overview draws the runs'
// curves (experiment.CurveFigures) and the form shows the first run's
// settings. A run goes by the label of its settings, and by its folder's
// name too where another shown run has the same.
func FolderSession(id int, folders []Folder) (*Session, error) {
	if len(folders) == 0 || len(folders) > MaxSideBySide {
		return nil, fmt.Errorf("pick 1 to %d runs to show, not %d", MaxSideBySide, len(folders))
	}
	var s *Session
	var curves []experiment.Curves
	for i, f := range folders {
		job, settings, err := folderJob(id, f)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			if s, err = NewSession(id, settings); err != nil {
				return nil, err
			}
			s.Jobs, s.Runs = nil, nil
		} else if (job.Image == nil) != (s.Jobs[0].Image == nil) {
			return nil, fmt.Errorf("run %s is not of the kind of %s: toy runs and image runs are not shown side by side", f.Name, folders[0].Name)
		}
		var r Report
		if err := json.Unmarshal(f.ReportJSON, &r); err != nil {
			return nil, fmt.Errorf("run %s: report.json: %w", f.Name, err)
		}
		s.Jobs = append(s.Jobs, job)
		figs := map[string]string{}
		for name, svg := range f.Figs {
			// The folder's files are anyone's: drawn, never run.
			figs[name] = SafeSVG(svg)
		}
		s.Runs = append(s.Runs, &Run{Label: job.Label, Status: f.Status, Opened: true, Report: f.ReportJSON, Rep: &r, Figs: figs})
		curves = append(curves, experiment.Curves{History: r.History, Reliability: r.Test.Reliability, ECE: r.Test.ECE})
	}
	labels := map[string]int{}
	for _, r := range s.Runs {
		labels[r.Label]++
	}
	for i, r := range s.Runs {
		if labels[r.Label] > 1 {
			// Runs of the same settings go by their folders.
			r.Label += " (" + folders[i].Name + ")"
		}
		s.Jobs[i].Label, curves[i].Label = r.Label, r.Label
	}
	if len(folders) > 1 {
		s.Folders = true
		for name, svg := range experiment.CurveFigures(curves) {
			s.Overview[name] = string(svg)
		}
	}
	return s, nil
}

// folderJob returns the run of folder f (from its report's kind and
// configuration) and the settings that show it.
func folderJob(id int, f Folder) (config.Job, config.Settings, error) {
	var rep struct {
		Kind   string          `json:"kind"`
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(f.ReportJSON, &rep); err != nil {
		return config.Job{}, config.Settings{}, fmt.Errorf("run %s: report.json: %w", f.Name, err)
	}
	job := protocol.Job{Label: f.Label}
	var err error
	switch rep.Kind {
	case experiment.ReportSynth:
		err = json.Unmarshal(rep.Config, &job.Synth)
	case experiment.ReportTrain:
		err = json.Unmarshal(rep.Config, &job.Image)
	default:
		err = fmt.Errorf("a %q run cannot be shown here", rep.Kind)
	}
	if err != nil {
		return config.Job{}, config.Settings{}, fmt.Errorf("run %s: %w", f.Name, err)
	}
	settings, err := adopted(protocol.Event{Session: id, Start: &protocol.Start{Jobs: []protocol.Job{job}, Density: true}})
	if err != nil {
		return config.Job{}, config.Settings{}, err
	}
	settings.Compare = false
	jobs, err := settings.Jobs()
	if err != nil {
		return config.Job{}, config.Settings{}, err
	}
	if len(jobs) != 1 {
		return config.Job{}, config.Settings{}, fmt.Errorf("run %s: planned as %d runs", f.Name, len(jobs))
	}
	return jobs[0], settings, nil
}
