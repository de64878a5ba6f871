package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// meanSD returns the mean and the sample standard deviation (n-1) of v;
// the deviation is NaN for fewer than two values.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, math.NaN()
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// plusMinus writes values as "mean ± k sd", each number by format (the
// deviation left out for one value); "-" for none.
func plusMinus(values []float64, k float64, format func(float64) string) string {
	if len(values) == 0 {
		return "-"
	}
	m, sd := meanSD(values)
	if math.IsNaN(sd) {
		return format(m)
	}
	return fmt.Sprintf("%s ± %s", format(m), format(k*sd))
}

// welchTest is Welch's two-sample t-test of the difference of two means:
// the difference, the statistic, its degrees of freedom, the two-sided
// p-value, and the 95% confidence interval of the difference [lo, hi].
type welchTest struct {
	diff, t, df, p, lo, hi float64
}

// welch is Welch's test of mean(a) - mean(b); ok is false when either
// sample has fewer than two values or neither varies.
func welch(a, b []float64) (w welchTest, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return w, false
	}
	ma, sa := meanSD(a)
	mb, sb := meanSD(b)
	va, vb := sa*sa/float64(len(a)), sb*sb/float64(len(b))
	if va+vb == 0 {
		return w, false
	}
	se := math.Sqrt(va + vb)
	w.diff = ma - mb
	w.t = w.diff / se
	w.df = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.df}
	w.p = 2 * dist.Survival(math.Abs(w.t))
	half := dist.Quantile(0.975) * se
	w.lo, w.hi = w.diff-half, w.diff+half
	return w, true
}

// headLabel names a run's head and loss as Table 1 does ("LDA spherical
// + DNLL", "softmax + CE"), with "frozen head" for -freeze-head.
func (r *runReport) headLabel() string {
	c := r.Config
	label := "softmax + CE"
	if c.Head != "softmax" {
		cov := c.Cov
		if cov == "" {
			cov = "spherical"
		}
		label = fmt.Sprintf("LDA %s + %s", cov, strings.ToUpper(c.Loss))
	}
	if c.FreezeHead {
		label += ", frozen head"
	}
	return label
}

// finals are a run's test figures from its history: accuracy and ECE
// with the trained BatchNorm statistics and, for a run with -bn-history
// (recalibrated true), with the recalibrated ones; after the last epoch,
// or averaged over the last half of the epochs (which evens out the
// swings from one epoch to the next).
type finals struct {
	acc, ece, accRe, eceRe float64
	recalibrated           bool
}

// last returns the figures of r's last epoch, and their means over the
// last half of its epochs; ok is false for a run with no epoch.
func (r *runReport) last() (f, half finals, ok bool) {
	n := len(r.History)
	if n == 0 {
		return f, half, false
	}
	half.recalibrated = true
	for i := n - 1; i >= n/2; i-- {
		h := r.History[i]
		g := finals{acc: float64(h.TestAccuracy), ece: float64(h.TestECE)}
		if h.TestAccuracyRecalibrated != nil && h.TestECERecalibrated != nil {
			g.accRe, g.eceRe, g.recalibrated = float64(*h.TestAccuracyRecalibrated), float64(*h.TestECERecalibrated), true
		}
		if i == n-1 {
			f = g
		}
		k := float64(n - n/2)
		half.acc, half.ece, half.accRe, half.eceRe = half.acc+g.acc/k, half.ece+g.ece/k, half.accRe+g.accRe/k, half.eceRe+g.eceRe/k
		half.recalibrated = half.recalibrated && g.recalibrated
	}
	return f, half, true
}

// group is the runs of one head (headLabel) by one implementation.
type group struct {
	head, impl string
	runs       []*runReport
}

// groupRuns groups runs by head and implementation, in the order of their
// first runs.
func groupRuns(runs []*runReport) []*group {
	var groups []*group
	for _, r := range runs {
		head, impl := r.headLabel(), r.implementation()
		var g *group
		for _, h := range groups {
			if h.head == head && h.impl == impl {
				g = h
			}
		}
		if g == nil {
			g = &group{head: head, impl: impl}
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
	}
	return groups
}

// series are a group's final figures, one value a run: accuracy and ECE
// with trained, then recalibrated BatchNorm statistics; with half, their
// means over the last half of each run's epochs.
func (g *group) series(half bool) (acc, ece, accRe, eceRe []float64) {
	for _, r := range g.runs {
		f, h, ok := r.last()
		if !ok {
			continue
		}
		if half {
			f = h
		}
		acc, ece = append(acc, f.acc), append(ece, f.ece)
		if f.recalibrated {
			accRe, eceRe = append(accRe, f.accRe), append(eceRe, f.eceRe)
		}
	}
	return acc, ece, accRe, eceRe
}

// pairedTable is the paired study of the two implementations: one row per
// head and implementation with the final test figures' mean ± sd over the
// seeds of its runs, then, for every head that both implementations
// trained, the difference of the means (ours minus PyTorch) and Welch's
// t-test of it, for the last epoch's figures and for their means over the
// last half of the epochs.
func pairedTable(runs []*runReport) string {
	groups := groupRuns(runs)
	var b bytes.Buffer
	b.WriteString("| head | implementation | n | epochs | test accuracy, trained BN | ECE (10 bins), trained BN | test accuracy, recalibrated BN | ECE (10 bins), recalibrated BN |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, g := range groups {
		acc, ece, accRe, eceRe := g.series(false)
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", g.head, g.impl, len(acc), epochSpan(g.runs),
			plusMinus(acc, 1, pct), plusMinus(ece, 1, pct), plusMinus(accRe, 1, pct), plusMinus(eceRe, 1, pct))
	}
	b.WriteString("\n| head | figure | ours - PyTorch (points) | 95% interval (points) | Welch's t | df | p (two-sided) |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, ours := range groups {
		if ours.impl != "ours" {
			continue
		}
		for _, theirs := range groups {
			if theirs.impl != "PyTorch" || theirs.head != ours.head {
				continue
			}
			for _, half := range []bool{false, true} {
				var a, c [4][]float64
				a[0], a[1], a[2], a[3] = ours.series(half)
				c[0], c[1], c[2], c[3] = theirs.series(half)
				for i, name := range []string{"test accuracy, trained BN", "ECE, trained BN", "test accuracy, recalibrated BN", "ECE, recalibrated BN"} {
					if half {
						name += ", mean of the last half of the epochs"
					}
					w, ok := welch(a[i], c[i])
					if !ok {
						fmt.Fprintf(&b, "| %s | %s | - | - | - | - | - |\n", ours.head, name)
						continue
					}
					fmt.Fprintf(&b, "| %s | %s | %+.2f | [%+.2f, %+.2f] | %.2f | %.1f | %.3f |\n",
						ours.head, name, 100*w.diff, 100*w.lo, 100*w.hi, w.t, w.df, w.p)
				}
			}
		}
	}
	b.WriteString(crossEvaluation(runs))
	return b.String()
}

// crossEvaluation is the table of the twin's runs whose final checkpoint
// deeplda eval evaluated (RUN/deeplda-eval/report.json, written by
// bench/paired_study.sh): the twin's last-epoch test figures with the
// trained BatchNorm statistics beside deeplda eval's on the same
// checkpoint, and their largest difference; "" when there is none. Equal
// figures put any difference between the engines in what they train, not
// in how they measure it.
func crossEvaluation(runs []*runReport) string {
	var b bytes.Buffer
	for _, r := range runs {
		if r.implementation() != "PyTorch" || len(r.History) == 0 {
			continue
		}
		e, err := loadRun(filepath.Join(r.dir, "deeplda-eval"))
		if err != nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nThe twin's final checkpoints evaluated by `deeplda eval` (the checkpoint's BatchNorm statistics):\n\n")
			b.WriteString("| run | test accuracy, the twin | test accuracy, deeplda eval | ECE (10 bins), the twin | ECE (10 bins), deeplda eval | largest difference (points) |\n")
			b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
		}
		h := r.History[len(r.History)-1]
		diff := 100 * max(math.Abs(float64(h.TestAccuracy-e.Test.Accuracy)), math.Abs(float64(h.TestECE-e.Test.ECE)))
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.4f |\n", r.name(), pct(float64(h.TestAccuracy)), pct(float64(e.Test.Accuracy)),
			pct(float64(h.TestECE)), pct(float64(e.Test.ECE)), diff)
	}
	return b.String()
}

// epochSpan is the number of epochs of runs' histories: one number, or
// the range where they differ.
func epochSpan(runs []*runReport) string {
	lo, hi := math.MaxInt, 0
	for _, r := range runs {
		lo, hi = min(lo, len(r.History)), max(hi, len(r.History))
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
