package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeRun writes DIR/NAME/report.json with body and returns the folder.
func writeRun(t *testing.T, dir, name, body string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "report.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRegenerate(t *testing.T) {
	dir := t.TempDir()
	lda := writeRun(t, dir, "lda", `{"config":{"head":"lda","loss":"dnll"},"train":{"examples":100},
		"test":{"accuracy":0.9,"ece":0.03},"head":{"sigma":1.5},"seconds":12,
		"history":[{"epoch":1,"test_accuracy":0.8,"test_ece":0.1},{"epoch":2,"test_accuracy":0.9,"test_ece":0.03}],
		"batchnorm":{"running_stats":{"accuracy":0.85,"ece":0.05},"recalibrated":{"accuracy":0.9,"ece":0.03}},
		"ood":{"dataset":"mnist","max_softmax":{"auroc":0.8,"aupr":0.7,"fpr_at_95_tpr":0.6},"density":{"auroc":0.95,"aupr":0.9,"fpr_at_95_tpr":0.2}},
		"version":"v0.0.0","commit":"abc"}`)
	sm := writeRun(t, dir, "softmax", `{"config":{"head":"softmax","loss":"ce"},"train":{"examples":100},
		"test":{"accuracy":0.91,"ece":0.05},"seconds":10,"history":[{"epoch":1,"test_accuracy":0.82,"test_ece":0.02}],
		"temperature_scaling":{"temperature":1.2,"test_ece_after":0.01}}`)
	md := "# R\n\n<!-- results: summary " + lda + " " + sm + " -->\nold\n<!-- end results -->\n\ntext\n\n" +
		"<!-- results: epochs " + lda + " " + sm + " -->\n<!-- end results -->\n<!-- results: ood " + lda + " " + sm + " -->\n<!-- end results -->\n"
	got, n, files, err := Regenerate([]byte(md), "def")
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{
		"| lda | lda | dnll | 2 | 100 | 85.00 | 5.00 | 90.00 | 3.00 | - | - | 1.5 | 12 |",
		"| softmax | softmax | ce | 1 | 100 | 91.00 | 5.00 | - | - | 1.2 | 1.00 | - | 10 |",
		"| 2 | 90.00 | 3.00 | | |",
		"| lda | mnist | density | 95.00 | 90.00 | 20.00 |",
		"| softmax | not measured |",
		"at commit def from report.json files written at abc, an unrecorded commit.",
		"\ntext\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("regenerated file lacks %q:\n%s", want, s)
		}
	}
	if n != 3 || strings.Contains(s, "old\n") || len(files) != 0 {
		t.Errorf("%d tables regenerated (want 3), old table left: %v, %d figures (want none)", n, strings.Contains(s, "old\n"), len(files))
	}
	again, _, _, err := Regenerate(got, "later")
	if err != nil || string(stripStamps(again)) != string(stripStamps(got)) {
		t.Errorf("regenerating again changed more than the stamp (err %v)", err)
	}
}

func TestSeedsTable(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	for i, r := range []struct{ backend, head string }{{"cpu", "lda"}, {"pytorch", "lda"}, {"cpu", "lda"}, {"cpu", "softmax"}} {
		runs = append(runs, writeRun(t, dir, fmt.Sprint(i), fmt.Sprintf(`{"config":{"head":%q,"loss":"l","epochs":2,"seed":%d},
			"backend":{"name":%q},"train":{"examples":100},"test":{"accuracy":0.9,"ece":0.1},"head":{"sigma":%g},"seconds":%d,
			"batchnorm":{"running_stats":{"accuracy":%g,"ece":0.2},"recalibrated":{"accuracy":0.9,"ece":0.1}}}`,
			r.head, i+1, r.backend, 1+0.5*float64(i), 10*(i+1), 0.5+0.1*float64(i))))
	}
	got, _, _, err := Regenerate([]byte("<!-- results: seeds "+strings.Join(runs, " ")+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Seeds 1 and 3 of ours: accuracy 50 and 70 (sd 14.14), sigma 1
		// and 2 (sd 0.707), 200/10 and 200/30 images/s (sd 9.43).
		"| lda | l | ours | 2 | 1, 3 | 60.00 ± 28.28 | 20.00 ± 0.00 | 90.00 ± 0.00 | 10.00 ± 0.00 | 1.500 ± 1.414 | 13 ± 19 |",
		"| lda | l | PyTorch | 1 | 2 | 60.00 | 20.00 |",
		"| softmax | l | ours | 1 | 4 | 80.00 |",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("seeds table lacks %q:\n%s", want, got)
		}
	}
}

// TestFigures checks the figures kind: the ECE and accuracy per epoch of
// an LDA run and a softmax run, one line per head, linked from the
// Markdown and written under FiguresDir.
func TestFigures(t *testing.T) {
	dir := t.TempDir()
	lda := writeRun(t, dir, "lda", `{"config":{"head":"lda","loss":"dnll","lambda":0.01},"status":"done",
		"history":[{"epoch":1,"test_accuracy":0.8,"test_ece":0.1234},{"epoch":2,"test_accuracy":0.9,"test_ece":0.03}]}`)
	sm := writeRun(t, dir, "softmax", `{"config":{"head":"softmax","loss":"ce"},"status":"done",
		"history":[{"epoch":1,"test_accuracy":0.82,"test_ece":0.02},{"epoch":2,"test_accuracy":0.85,"test_ece":0.04}]}`)
	got, n, files, err := Regenerate([]byte("<!-- results: figures "+lda+" "+sm+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	ece, acc := filepath.Join(FiguresDir, "lda-vs-softmax", "compare_ece.svg"), filepath.Join(FiguresDir, "lda-vs-softmax", "compare_accuracy.svg")
	if n != 1 || len(files) != 2 || !strings.Contains(string(got), "![Test ECE per epoch of both heads]("+filepath.ToSlash(ece)+")") {
		t.Fatalf("%d blocks, figures %v, Markdown:\n%s", n, slices.Collect(maps.Keys(files)), got)
	}
	for _, want := range []string{"LDA head, DNLL (λ = 0.01)", "softmax head, CE", "Test ECE per epoch"} {
		if !strings.Contains(string(files[ece]), want) {
			t.Errorf("%s lacks %q", ece, want)
		}
	}
	if !strings.Contains(string(files[acc]), "Test accuracy per epoch") {
		t.Errorf("%s is not the accuracy figure", acc)
	}
	if _, _, _, err := Regenerate([]byte("<!-- results: figures "+sm+" "+lda+" -->\n<!-- end results -->\n"), "c"); err == nil || !strings.Contains(err.Error(), "an LDA head's then a softmax head's") {
		t.Errorf("the runs in the wrong order: error %v", err)
	}
}

// TestCurves checks the curves kind: one line per run with the trained
// BatchNorm statistics and a dashed one per run trained with -bn-history.
func TestCurves(t *testing.T) {
	dir := t.TempDir()
	ours := writeRun(t, dir, "ours", `{"config":{"head":"lda"},"history":[
		{"epoch":1,"test_accuracy":0.7,"test_ece":0.2,"test_accuracy_recalibrated":0.9,"test_ece_recalibrated":0.03},
		{"epoch":2,"test_accuracy":0.8,"test_ece":0.1,"test_accuracy_recalibrated":0.91,"test_ece_recalibrated":0.02}]}`)
	theirs := writeRun(t, dir, "theirs", `{"config":{"head":"lda"},"history":[{"epoch":1,"test_accuracy":0.6,"test_ece":0.3}]}`)
	got, n, files, err := Regenerate([]byte("<!-- results: curves "+ours+" "+theirs+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	acc := filepath.Join(FiguresDir, "ours-vs-theirs", "compare_accuracy.svg")
	if n != 1 || len(files) != 2 || !strings.Contains(string(got), "![Test accuracy per epoch of each run]("+filepath.ToSlash(acc)+")") {
		t.Fatalf("%d blocks, figures %v, Markdown:\n%s", n, slices.Collect(maps.Keys(files)), got)
	}
	svg := string(files[acc])
	for _, want := range []string{"ours, recalibrated BN", ">ours<", ">theirs<", "stroke-dasharray"} {
		if !strings.Contains(svg, want) {
			t.Errorf("%s lacks %q", acc, want)
		}
	}
	if strings.Contains(svg, "theirs, recalibrated BN") {
		t.Errorf("%s has a recalibrated line for a run without -bn-history", acc)
	}
	if strings.Count(svg, "stroke-dasharray") != 2 {
		t.Errorf("%s: %d dashed paths, want 2 (the recalibrated line and its legend swatch)", acc, strings.Count(svg, "stroke-dasharray"))
	}
}

// TestRunFigures checks that run writes the figures beside the Markdown
// file and that -check fails when one differs from what the runs give.
func TestRunFigures(t *testing.T) {
	dir := t.TempDir()
	lda := writeRun(t, dir, "lda", `{"config":{"head":"lda","loss":"dnll"},"history":[{"epoch":1,"test_accuracy":0.8,"test_ece":0.1}]}`)
	sm := writeRun(t, dir, "softmax", `{"config":{"head":"softmax","loss":"ce"},"history":[{"epoch":1,"test_accuracy":0.8,"test_ece":0.1}]}`)
	md := filepath.Join(dir, "R.md")
	if err := os.WriteFile(md, []byte("<!-- results: figures "+lda+" "+sm+" -->\n<!-- end results -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(md, false, &out); err != nil {
		t.Fatal(err)
	}
	fig := filepath.Join(dir, FiguresDir, "lda-vs-softmax", "compare_ece.svg")
	if _, err := os.Stat(fig); err != nil || !strings.Contains(out.String(), "regenerated 1 tables and 2 figures") {
		t.Fatalf("after run: %v; output %q", err, out.String())
	}
	if err := run(md, true, &out); err != nil {
		t.Errorf("-check right after regenerating: %v", err)
	}
	if err := os.WriteFile(fig, []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(md, true, &out); err == nil || !strings.Contains(err.Error(), "compare_ece.svg is missing or out of date") {
		t.Errorf("-check with a changed figure: %v", err)
	}
}

func TestRegenerateErrors(t *testing.T) {
	dir := t.TempDir()
	run := writeRun(t, dir, "r", `{}`)
	bad := writeRun(t, dir, "bad", `{"history": 3}`)
	for _, c := range []struct{ md, want string }{
		{"<!-- results: nope " + run + " -->\n<!-- end results -->\n", "unknown table kind"},
		{"<!-- results: summary " + run + " -->\n", "no \"<!-- end results -->\""},
		{"<!-- results: summary " + run + " -->\n<!-- end results -->\n_stamp_\n<!-- end results -->\n", "without a marker before it"},
		{"<!-- results: summary " + filepath.Join(dir, "missing") + " -->\n<!-- end results -->\n", "no such file"},
		{"<!-- results: summary " + bad + " -->\n<!-- end results -->\n", "bad/report.json"},
	} {
		if _, _, _, err := Regenerate([]byte(c.md), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.md, err, c.want)
		}
	}
}

// TestEpochsRecalibrated checks the epochs table of a run trained with
// -bn-history: beside the trained statistics' columns, those with the
// statistics recomputed after each epoch; a run without them keeps two.
func TestEpochsRecalibrated(t *testing.T) {
	dir := t.TempDir()
	on := writeRun(t, dir, "ours", `{"config":{"head":"lda"},"history":[
		{"epoch":1,"test_accuracy":0.7,"test_ece":0.2,"test_accuracy_recalibrated":0.9,"test_ece_recalibrated":0.03},
		{"epoch":2,"test_accuracy":0.8,"test_ece":0.1,"test_accuracy_recalibrated":0.91,"test_ece_recalibrated":0.02}]}`)
	off := writeRun(t, dir, "theirs", `{"config":{"head":"lda"},"history":[{"epoch":1,"test_accuracy":0.6,"test_ece":0.3}]}`)
	got, _, _, err := Regenerate([]byte("<!-- results: epochs "+on+" "+off+" -->\n<!-- end results -->\n"), "def")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| epoch | ours accuracy | ours ECE (10 bins) | ours accuracy, recalibrated BN | ours ECE, recalibrated BN | theirs accuracy | theirs ECE (10 bins) |",
		"| 1 | 70.00 | 20.00 | 90.00 | 3.00 | 60.00 | 30.00 |",
		"| 2 | 80.00 | 10.00 | 91.00 | 2.00 | | |",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the epochs table lacks %q:\n%s", want, got)
		}
	}
}
