package page

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// readCSV parses CSV text, failing the test when it is not CSV.
func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b)
	}
	return rows
}

// TestTableCSV checks that a table's CSV is its header and rows, cell for
// cell, however the cells are written (commas, quotes, line breaks, λ).
func TestTableCSV(t *testing.T) {
	tab := &Table{Header: []string{"Run", "Test acc."}, Rows: [][]string{{`DNLL, λ = 0.01`, "93.20%"}, {`a "quoted"` + "\nlabel", "–"}}}
	if got, want := readCSV(t, tab.CSV()), append([][]string{tab.Header}, tab.Rows...); !reflect.DeepEqual(got, want) {
		t.Errorf("CSV read back as %q, want %q", got, want)
	}
	if !bytes.HasPrefix(tab.CSV(), []byte("Run,Test acc.\n\"DNLL, λ = 0.01\",93.20%\n")) {
		t.Errorf("CSV %q", tab.CSV())
	}
}

// exportSession is a session of two image runs, the first with a report
// (that of TestTablesInPercent), figures and a live loss curve.
func exportSession(t *testing.T) *Session {
	t.Helper()
	raw := []byte(`{"kind": "train", "status": "done", "test": {"examples": 64, "accuracy": 0.5, "ece": 0.0982, "nll": 1.25},
		"ood": {"dataset": "mnist", "n_in": 64, "n_out": 64, "density": {"auroc": 0.8125, "aupr": 0.8, "fpr_at_95_tpr": 0.5}}}`)
	var rep Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(1, config.Defaults(config.Images))
	if err != nil {
		t.Fatal(err)
	}
	s.Runs = append(s.Runs, &Run{Label: "softmax head, CE", Status: "waiting", Figs: map[string]string{}})
	r := s.Runs[0]
	r.Label, r.Status, r.Report, r.Rep = "LDA head, DNLL (λ = 0.01)", "done", raw, &rep
	r.Figs["embedding.svg"] = "<svg>embedding</svg>"
	r.Figs["curves.svg"] = ""
	s.Apply(protocol.Event{Kind: protocol.EvProgress, Session: 1, Progress: &protocol.Progress{Progress: tick(1, 10, 2)}})
	return s
}

// TestSessionTables checks the summary box's tables: their ids, their CSV
// buttons, which are the shown run's, and their file names.
func TestSessionTables(t *testing.T) {
	s := exportSession(t)
	var ids []string
	for _, tab := range SessionTables(s) {
		ids = append(ids, tab.ID)
	}
	if want := []string{TableSummary, TableExtras, TableOOD}; !reflect.DeepEqual(ids, want) {
		t.Errorf("tables %v, want %v", ids, want)
	}
	html := SummaryHTML(s)
	for _, id := range ids {
		if !strings.Contains(html, `data-csv="`+id+`"`) || !strings.Contains(html, `id="`+id+`"`) {
			t.Errorf("the summary has no table %s with its CSV button:\n%s", id, html)
		}
	}
	sum, perRun := SessionTable(s, TableSummary)
	if sum == nil || perRun || len(sum.Rows) != 2 || sum.Rows[1][0] != "softmax head, CE" || sum.Rows[0][3] != "50.00%" {
		t.Errorf("summary table %+v (the shown run's: %v)", sum, perRun)
	}
	if ood, perRun := SessionTable(s, TableOOD); ood == nil || !perRun || ood.Rows[0][1] != "81.25%" {
		t.Errorf("ood table %+v (the shown run's: %v)", ood, perRun)
	}
	if none, _ := SessionTable(s, TableCompareOOD); none != nil {
		t.Errorf("a comparison's table before both heads are done: %+v", none)
	}
	if got := s.FileName(0, "ood.csv"); got != "lda-head-dnll-lambda-0.01-ood.csv" {
		t.Errorf("FileName = %q", got)
	}
	s.Runs = s.Runs[:1]
	if got := s.FileName(0, "ood.csv"); got != "ood.csv" {
		t.Errorf("FileName of a session of one run = %q", got)
	}
}

// TestRunZip checks Download all's zip of a run: in a folder of the run's
// name, its report.json, its figures (the live loss curve too, no empty
// one), its tables as CSV and its checkpoint, the text compressed and the
// checkpoint stored.
func TestRunZip(t *testing.T) {
	s := exportSession(t)
	ckpt := []byte("checkpoint bytes")
	when := time.Date(2026, 11, 28, 10, 30, 0, 0, time.UTC)
	name, data, err := s.RunZip(0, ckpt, when)
	if err != nil || name != "lda-head-dnll-lambda-0.01.zip" {
		t.Fatalf("RunZip: %q, %v", name, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		name := strings.TrimPrefix(f.Name, "lda-head-dnll-lambda-0.01/")
		names, got[name] = append(names, name), b
		want := zip.Deflate
		if name == "checkpoint.safetensors" {
			want = zip.Store
		}
		if f.Method != want || !f.Modified.Equal(when) {
			t.Errorf("%s: method %d, modified %v; want %d and %v", f.Name, f.Method, f.Modified, want, when)
		}
	}
	wantNames := []string{"report.json", "embedding.svg", LossStepsFigure, "summary.csv", "test-evaluation.csv", "ood.csv", "checkpoint.safetensors"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("the zip holds %v, want %v", names, wantNames)
	}
	if !bytes.Equal(got["report.json"], s.Runs[0].Report) || string(got["embedding.svg"]) != "<svg>embedding</svg>" ||
		!bytes.Equal(got["checkpoint.safetensors"], ckpt) || string(got[LossStepsFigure]) != s.Runs[0].Figs[LossStepsFigure] {
		t.Error("the zip's report, figures or checkpoint differ from the run's")
	}
	if rows := readCSV(t, got["summary.csv"]); len(rows) != 2 || !reflect.DeepEqual(rows[0], SummaryHeader) || rows[1][0] != "LDA head, DNLL (λ = 0.01)" {
		t.Errorf("summary.csv: %q, want the header and the run's row", rows)
	}
	if rows := readCSV(t, got["ood.csv"]); !reflect.DeepEqual(rows, [][]string{{"Score", "AUROC", "AUPR", "FPR at 95% TPR"}, {"density", "81.25%", "80.00%", "50.00%"}}) {
		t.Errorf("ood.csv: %q", rows)
	}
	if rows := readCSV(t, got["test-evaluation.csv"]); len(rows) != 2 || rows[1][0] != "Test set" || rows[1][1] != "50.00%" {
		t.Errorf("test-evaluation.csv: %q", rows)
	}
	// A run without a report or checkpoint: its row of the summary alone.
	name, data, err = s.RunZip(1, nil, when)
	if err != nil || name != "softmax-head-ce.zip" {
		t.Fatalf("RunZip of the waiting run: %q, %v", name, err)
	}
	if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err != nil || len(zr.File) != 1 || zr.File[0].Name != "softmax-head-ce/summary.csv" {
		t.Errorf("the waiting run's zip: %v", err)
	}
}
