package page

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"maps"
	"path"
	"slices"
	"time"

	"github.com/deeplda/deeplda/experiment"
)

// The tables' ids: each is its element's id on the page and what its CSV
// button's data-csv names.
const (
	TableSummary    = "summary-table" // the session's runs
	TableExtras     = "extras"        // the shown run's test evaluations
	TableOOD        = "ood"           // the shown run's out-of-distribution scores
	TableCompareOOD = "compare-ood"   // both heads' out-of-distribution scores
	TableFolders    = "folders-table" // deeplda ui's runs folder
)

// CSV returns the table as CSV (as encoding/csv writes it: RFC 4180,
// UTF-8): its header, then its rows, the cells as the page shows them.
func (t *Table) CSV() []byte {
	var b bytes.Buffer
	_ = csv.NewWriter(&b).WriteAll(append([][]string{t.Header}, t.Rows...)) // writing to memory does not fail
	return b.Bytes()
}

// summaryTable is the summary's table of runs: each run's label and its
// SummaryCells.
func summaryTable(runs []*Run) *Table {
	t := &Table{Header: SummaryHeader, ID: TableSummary, File: "summary.csv"}
	for _, jr := range runs {
		t.Rows = append(t.Rows, append([]string{jr.Label}, SummaryCells(jr)...))
	}
	return t
}

// SessionTables returns the tables of session s's summary box, in page
// order: its runs, the shown run's test evaluations (Extras) and
// out-of-distribution scores (OOD), and for two heads side by side, once
// both are done (Gap), both heads' scores (OODComparison).
func SessionTables(s *Session) []*Table {
	tables := []*Table{summaryTable(s.Runs)}
	if rep := s.Runs[s.Shown()].Rep; rep != nil {
		tables = appendTables(tables, Extras(rep), OOD(rep))
	}
	if Gap(s) != "" {
		tables = appendTables(tables, OODComparison(s))
	}
	return tables
}

// appendTables appends the tables of more that are not nil.
func appendTables(tables []*Table, more ...*Table) []*Table {
	for _, t := range more {
		if t != nil {
			tables = append(tables, t)
		}
	}
	return tables
}

// SessionTable returns the table of session s's summary box whose id is
// id, and whether it is the shown run's own (its file then goes by the
// run: FileName); nil when there is none.
func SessionTable(s *Session, id string) (t *Table, perRun bool) {
	for _, t := range SessionTables(s) {
		if t.ID == id {
			return t, id == TableExtras || id == TableOOD
		}
	}
	return nil, false
}

// FileName returns the download name of run i's file name: the plain name
// in a session of one run, prefixed by the run's label (Slug) when there
// are several.
func (s *Session) FileName(i int, name string) string {
	if len(s.Runs) > 1 {
		return Slug(s.Runs[i].Label) + "-" + name
	}
	return name
}

// File is a file that the page offers: its name and its bytes.
type File struct {
	Name string
	Data []byte
}

// RunFiles returns the files of run i that Download all puts in its zip:
// its report.json, its figures (SVG, the live loss curve among them), its
// tables (CSV: its row of the summary, its test evaluations and
// out-of-distribution scores) and, when ckpt holds one, its checkpoint.
func (s *Session) RunFiles(i int, ckpt []byte) []File {
	jr := s.Runs[i]
	var files []File
	if jr.Report != nil {
		files = append(files, File{"report.json", jr.Report})
	}
	for _, name := range slices.Sorted(maps.Keys(jr.Figs)) {
		if jr.Figs[name] != "" {
			files = append(files, File{name, []byte(jr.Figs[name])})
		}
	}
	tables := []*Table{summaryTable(s.Runs[i : i+1])}
	if jr.Rep != nil {
		tables = appendTables(tables, Extras(jr.Rep), OOD(jr.Rep))
	}
	for _, t := range tables {
		files = append(files, File{t.File, t.CSV()})
	}
	if len(ckpt) > 0 {
		files = append(files, File{experiment.CheckpointFile, ckpt})
	}
	return files
}

// RunZip returns Download all's zip of run i (its RunFiles, with ckpt its
// checkpoint or nil), modified at t, and its name: the run's label
// (Slug), which also names the folder that holds the files in it.
func (s *Session) RunZip(i int, ckpt []byte, t time.Time) (name string, data []byte, err error) {
	folder := Slug(s.Runs[i].Label)
	if folder == "" {
		folder = "run"
	}
	data, err = Zip(folder, s.RunFiles(i, ckpt), t)
	return folder + ".zip", data, err
}

// Zip returns files as a zip archive, in folder, modified at t: the text
// files (JSON, SVG, CSV) compressed, the others (a checkpoint, whose
// floats hardly compress) stored as they are.
func Zip(folder string, files []File, t time.Time) ([]byte, error) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, f := range files {
		h := &zip.FileHeader{Name: folder + "/" + f.Name, Method: zip.Store, Modified: t}
		switch path.Ext(f.Name) {
		case ".json", ".svg", ".csv":
			h.Method = zip.Deflate
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
