package page

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// FoldersHeader heads the table of deeplda ui's runs folder.
var FoldersHeader = []string{"Run", "Status", "Epochs", "Test accuracy", "ECE"}

// FoldersHTML is the table of the runs of deeplda ui's runs folder
// (runs/index.json): a run with a report has a button (data-folder) that
// shows it, a checkbox (data-pick, ticked when picked names it) that picks
// it for the side-by-side view, a resumable run (stopped, killed, crashed)
// a button (data-resume) that resumes it, and buttons (data-file) that
// download its
// report.json and figures: files of the runs folder are never opened in
// the page's origin.
func FoldersHTML(list []protocol.RunFolder, picked map[string]bool) string {
	if len(list) == 0 {
		return `<p class="muted">No runs yet: each run trained on this machine is a folder here.</p>`
	}
	var b strings.Builder
	rows := make([][]string, len(list))
	for i, r := range list {
		epochs := ""
		if r.Epochs > 0 {
			epochs = fmt.Sprintf("%d / %d", r.Trained, r.Epochs)
		}
		acc, ece := "", ""
		if r.Report && r.Trained > 0 {
			acc, ece = fmt.Sprintf("%.2f%%", 100*r.TestAccuracy), fmt.Sprintf("%.2f%%", 100*r.TestECE)
		}
		rows[i] = []string{r.Status, epochs, acc, ece}
	}
	writeTable(&b, "summary folders", "folders-table", FoldersHeader, rows, func(i int) (string, string) {
		r := list[i]
		name := escaper.Replace(r.Label)
		if r.Report {
			tick := ""
			if picked[r.Name] {
				tick = " checked"
			}
			name = `<input type="checkbox" data-pick="` + escaper.Replace(r.Name) + `" title="pick for the side-by-side view"` + tick + `> <button type="button" class="link" data-folder="` + escaper.Replace(r.Name) + `" title="show this run's figures and report">` + name + `</button>`
		}
		if r.Resumable {
			name += ` <button type="button" class="link" data-resume="` + escaper.Replace(r.Name) + `" title="train this run on from its last whole epoch">Resume</button>`
		}
		return "", name
	})
	// The files: a last column would be escaped as text, so the buttons
	// follow the table.
	b.WriteString(`<ul class="folder-files">`)
	for _, r := range list {
		if !r.Report {
			continue
		}
		base := escaper.Replace(r.Path)
		b.WriteString(`<li>` + escaper.Replace(r.Name) + `:`)
		for _, f := range append([]string{"report.json"}, r.Figures...) {
			b.WriteString(` <button type="button" class="link" data-file="` + base + escaper.Replace(f) + `" title="download">` + escaper.Replace(f) + `</button>`)
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ul>`)
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
	case experiment.CmdSynth:
		err = json.Unmarshal(rep.Config, &job.Synth)
	case experiment.CmdTrain:
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
