package page

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/protocol"
)

// FoldersHeader heads the table of deeplda ui's runs folder.
var FoldersHeader = []string{"Run", "Status", "Epochs", "Test accuracy", "ECE"}

// FoldersHTML is the table of the runs of deeplda ui's runs folder
// (runs/index.json): a run with a report has a button (data-folder) that
// shows it, and links to its report.json and figures.
func FoldersHTML(list []protocol.RunFolder) string {
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
			name = `<button type="button" class="link" data-folder="` + escaper.Replace(r.Name) + `" title="show this run's figures and report">` + name + `</button>`
		}
		return "", name
	})
	// The files: a last column would be escaped as text, so the links
	// follow the table.
	b.WriteString(`<ul class="folder-files">`)
	for _, r := range list {
		if !r.Report {
			continue
		}
		base := escaper.Replace(r.Path)
		b.WriteString(`<li>` + escaper.Replace(r.Name) + `: <a href="` + base + `report.json" target="_blank">report.json</a>`)
		for _, f := range r.Figures {
			b.WriteString(` <a href="` + base + escaper.Replace(f) + `" target="_blank">` + escaper.Replace(f) + `</a>`)
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// FolderSession is a session that shows one run of the runs folder: its
// report.json and its figures (SVG by file name), as an opened run.
func FolderSession(id int, f protocol.RunFolder, reportJSON []byte, figs map[string]string) (*Session, error) {
	var rep struct {
		Kind   string          `json:"kind"`
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(reportJSON, &rep); err != nil {
		return nil, fmt.Errorf("run %s: report.json: %w", f.Name, err)
	}
	job := protocol.Job{Label: f.Label}
	var err error
	switch rep.Kind {
	case "synth":
		err = json.Unmarshal(rep.Config, &job.Synth)
	case "train":
		err = json.Unmarshal(rep.Config, &job.Image)
	default:
		err = fmt.Errorf("a %q run cannot be shown here", rep.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", f.Name, err)
	}
	settings, err := adopted(protocol.Event{Session: id, Start: &protocol.Start{Jobs: []protocol.Job{job}, Density: true}})
	if err != nil {
		return nil, err
	}
	settings.Compare = false
	s, err := NewSession(id, settings)
	if err != nil {
		return nil, err
	}
	if len(s.Runs) != 1 {
		return nil, fmt.Errorf("run %s: planned as %d runs", f.Name, len(s.Runs))
	}
	var r Report
	if err := json.Unmarshal(reportJSON, &r); err != nil {
		return nil, fmt.Errorf("run %s: report.json: %w", f.Name, err)
	}
	run := s.Runs[0]
	run.Label, run.Status, run.Opened, run.Report, run.Rep, run.Figs = f.Label, f.Status, true, reportJSON, &r, figs
	return s, nil
}
