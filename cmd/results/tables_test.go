package main

import (
	"fmt"
	"os"
	"path/filepath"
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
	got, n, err := Regenerate([]byte(md), "def")
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
	if n != 3 || strings.Contains(s, "old\n") {
		t.Errorf("%d tables regenerated (want 3), old table left: %v", n, strings.Contains(s, "old\n"))
	}
	again, _, err := Regenerate(got, "later")
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
	got, _, err := Regenerate([]byte("<!-- results: seeds "+strings.Join(runs, " ")+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Seeds 1 and 3 of ours: accuracy 50 and 70, sigma 1 and 2, 200/10 and 200/30 images/s.
		"| lda | l | ours | 1, 3 | 60.00 (50.00-70.00) | 20.00 (20.00-20.00) | 90.00 (90.00-90.00) | 10.00 (10.00-10.00) | 1.500 (1.000-2.000) | 13 (7-20) |",
		"| lda | l | PyTorch | 2 | 60.00 (60.00-60.00) |",
		"| softmax | l | ours | 4 | 80.00 (80.00-80.00) |",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("seeds table lacks %q:\n%s", want, got)
		}
	}
}

func TestRegenerateErrors(t *testing.T) {
	dir := t.TempDir()
	run := writeRun(t, dir, "r", `{}`)
	bad := writeRun(t, dir, "bad", `{"history": 3}`)
	for _, c := range []struct{ md, want string }{
		{"<!-- results: nope " + run + " -->\n<!-- end results -->\n", "unknown table kind"},
		{"<!-- results: summary " + run + " -->\n", "no \"<!-- end results -->\""},
		{"<!-- results: summary " + filepath.Join(dir, "missing") + " -->\n<!-- end results -->\n", "no such file"},
		{"<!-- results: summary " + bad + " -->\n<!-- end results -->\n", "bad/report.json"},
	} {
		if _, _, err := Regenerate([]byte(c.md), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.md, err, c.want)
		}
	}
}
