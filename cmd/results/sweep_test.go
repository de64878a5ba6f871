package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/report"
)

// writeSweep writes a sweep of two lambdas and two seeds into dir, as
// deeplda sweep writes one: sweep.json and each run's report.json.
func writeSweep(t *testing.T, dir string) {
	t.Helper()
	c := experiment.SweepConfig{Base: experiment.DefaultImages(), Lambdas: []float64{0.01, 1}, Seeds: 2}
	c.Base.LimitTrain, c.Base.Epochs = 6000, 2
	s := experiment.NewSweepResult(c, kernels.Info{Name: "cpu"})
	for i, l := range c.Lambdas {
		for seed := uint64(1); seed <= 2; seed++ {
			sigma := report.Float(float64(i+1) + 0.1*float64(seed))
			s.AddPoint(experiment.SweepPoint{Lambda: l, Seed: seed, Accuracy: report.Float(0.8 + 0.01*float64(seed)), ECE: 0.02, Sigma: &sigma})
			writeRun(t, filepath.Join(dir, "runs"), fmt.Sprintf("lambda-%g-seed-%d", l, seed), `{"commit":"abc"}`)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSweepBlock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reduced")
	writeSweep(t, dir)
	md := "<!-- results: sweep " + dir + " -->\n<!-- end results -->\n"
	got, n, files, err := Regenerate([]byte(md), "def")
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{
		"fashion-mnist, lda head (spherical covariance), dnll; the first 6000 training images, 2 epochs, batch 256, learning rate 0.001, seeds 1-2 for each lambda; evaluated on all test images; cpu backend.",
		"| lambda | runs | test accuracy (%) | test ECE (%, 10 bins) | learned sigma |",
		"| 0.01 | 2 | 81.50 (81.00-82.00) | 2.00 | 1.15 (1.1-1.2) |",
		"| 1 | 2 | 81.50 (81.00-82.00) | 2.00 | 2.15 (2.1-2.2) |",
		"![Learned sigma against lambda](figures/sweep-reduced/sweep_sigma.svg)",
		"from report.json files written at abc.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the sweep block lacks %q:\n%s", want, s)
		}
	}
	if n != 1 || len(files) != 3 || !strings.HasPrefix(string(files[filepath.Join("figures", "sweep-reduced", "sweep_sigma.svg")]), "<svg") {
		t.Errorf("%d blocks, figures %v; want 1 and the three figures", n, len(files))
	}
	if _, _, _, err := Regenerate([]byte("<!-- results: sweep "+t.TempDir()+" -->\n<!-- end results -->\n"), "def"); err == nil || !strings.Contains(err.Error(), "sweep.json") {
		t.Errorf("a folder without sweep.json: %v", err)
	}
}
