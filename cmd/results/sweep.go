package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// sweepFigures are the figures of a sweep block, in the order shown, with
// their alternative texts.
var sweepFigures = []struct{ name, alt string }{
	{"sweep_sigma.svg", "Learned sigma against lambda"},
	{"sweep_accuracy.svg", "Test accuracy against lambda"},
	{"sweep_ece.svg", "Test ECE against lambda"},
}

// sweepBlock is the sweep kind of a marker: the lambda sweep that deeplda
// sweep wrote into dir (its sweep.json, read as experiment.SweepResult,
// and runs/*/report.json for the commits): its settings in a line, one
// row per lambda (the test accuracy, the test ECE with 10 bins and the
// learned sigma, the mean over seeds and their range), and its figures,
// drawn as deeplda sweep draws them into FiguresDir/sweep-<dir's name>/.
// It returns the Markdown, the figures by path and the commits that wrote
// the runs' reports.
func sweepBlock(dir string) (string, map[string][]byte, []string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		return "", nil, nil, err
	}
	var s experiment.SweepResult
	if err := json.Unmarshal(b, &s); err != nil {
		return "", nil, nil, fmt.Errorf("%s: %w", filepath.Join(dir, "sweep.json"), err)
	}
	if s.Kind != "sweep" || len(s.Summary) == 0 {
		return "", nil, nil, fmt.Errorf("%s: not a sweep with finished runs", filepath.Join(dir, "sweep.json"))
	}
	var commits []string
	for _, p := range s.Points {
		r, err := loadRun(filepath.Join(dir, "runs", fmt.Sprintf("lambda-%g-seed-%d", p.Lambda, p.Seed)))
		if err != nil {
			return "", nil, nil, err
		}
		commits = append(commits, r.commit())
	}
	c := s.Config.Base.Resolved()
	seeds := fmt.Sprintf("seed %d", c.Seed)
	if s.Config.Seeds > 1 {
		seeds = fmt.Sprintf("seeds %d-%d", c.Seed, c.Seed+uint64(s.Config.Seeds)-1)
	}
	var md strings.Builder
	train := "all training images"
	if c.LimitTrain > 0 {
		train = fmt.Sprintf("the first %d training images", c.LimitTrain)
	}
	test := "all test images"
	if c.LimitTest > 0 {
		test = fmt.Sprintf("the first %d test images", c.LimitTest)
	}
	fmt.Fprintf(&md, "%s, %s head (%s covariance), %s; %s, %d epochs, batch %d, learning rate %g, %s for each lambda; evaluated on %s; %s backend.\n\n",
		c.Data, c.Head, c.Cov, c.Loss, train, c.Epochs, c.Batch, c.LR, seeds, test, s.Backend.Name)
	md.WriteString("| lambda | runs | test accuracy (%) | test ECE (%, 10 bins) | learned sigma |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range s.Summary {
		sigma := "-"
		if r.Sigma != nil {
			sigma = stat(*r.Sigma, 1, "%.4g")
		}
		fmt.Fprintf(&md, "| %g | %d | %s | %s | %s |\n", r.Lambda, r.Runs, stat(r.Accuracy, 100, "%.2f"), stat(r.ECE, 100, "%.2f"), sigma)
	}
	md.WriteString("\n")
	drawn := s.Figures()
	files := map[string][]byte{}
	figDir := filepath.Join(FiguresDir, "sweep-"+filepath.Base(filepath.Clean(dir)))
	for _, f := range sweepFigures {
		if svg, ok := drawn[f.name]; ok {
			p := filepath.Join(figDir, f.name)
			files[p] = svg
			fmt.Fprintf(&md, "![%s](%s)\n", f.alt, filepath.ToSlash(p))
		}
	}
	return md.String(), files, commits, nil
}

// stat writes a figure over seeds, scaled: its mean, and its range when
// there are several runs.
func stat(s experiment.Stat, scale float64, format string) string {
	mean := fmt.Sprintf(format, float64(s.Mean)*scale)
	if s.Min == s.Max {
		return mean
	}
	return fmt.Sprintf("%s ("+format+"-"+format+")", mean, float64(s.Min)*scale, float64(s.Max)*scale)
}
