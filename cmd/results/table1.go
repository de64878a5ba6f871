package main

import (
	"bytes"
	"fmt"
	"math"
)

// paperRow is a row of the paper's Table 1 on one data set: the test
// accuracy and the ECE (10 bins) in percent, the mean over 3 seeds, with
// twice the standard deviation where it is recorded here (NaN where not;
// the ECE is NaN too for the heads whose ECE the paper does not give).
type paperRow struct {
	data, head        string
	acc, acc2sd, ece  float64
	available, hasECE bool
}

// nan marks a figure of the paper that is not recorded here.
var nan = math.NaN()

// paperTable1 is the paper's Table 1: its means and ECEs, and the 2 sd of
// the diagonal and full heads on Fashion-MNIST (the others' are not
// recorded here). CIFAR-10 and CIFAR-100 have no data source that these
// machines reach (available false).
var paperTable1 = []paperRow{
	{data: "fashion-mnist", head: "softmax + CE", acc: 93.61, acc2sd: nan, ece: 5.05, hasECE: true, available: true},
	{data: "fashion-mnist", head: "LDA spherical + DNLL", acc: 92.82, acc2sd: nan, ece: 2.98, hasECE: true, available: true},
	{data: "fashion-mnist", head: "LDA diag + DNLL", acc: 92.84, acc2sd: 0.52, available: true},
	{data: "fashion-mnist", head: "LDA full + DNLL", acc: 93.00, acc2sd: 0.46, available: true},
	{data: "cifar10", head: "softmax + CE", acc: 89.07, acc2sd: nan, ece: 7.73, hasECE: true},
	{data: "cifar10", head: "LDA spherical + DNLL", acc: 90.33, acc2sd: nan, ece: 3.08, hasECE: true},
	{data: "cifar10", head: "LDA diag + DNLL", acc: 90.09, acc2sd: nan},
	{data: "cifar10", head: "LDA full + DNLL", acc: 90.24, acc2sd: nan},
	{data: "cifar100", head: "softmax + CE", acc: 64.67, acc2sd: nan, ece: 26.6, hasECE: true},
	{data: "cifar100", head: "LDA spherical + DNLL", acc: 66.09, acc2sd: nan, ece: 4.2, hasECE: true},
	{data: "cifar100", head: "LDA diag + DNLL", acc: 65.95, acc2sd: nan},
	{data: "cifar100", head: "LDA full + DNLL", acc: 65.51, acc2sd: nan},
}

// dataLabels are the data sets' names in Table 1.
var dataLabels = map[string]string{"fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10", "cifar100": "CIFAR-100", "mnist": "MNIST"}

// protocol says how a run was trained: its epochs and training images.
func (r *runReport) protocol() string {
	return fmt.Sprintf("%d epochs, %d images", r.Config.Epochs, r.Train.Examples)
}

// table1 is the paper's Table 1 beside this project's runs and the
// PyTorch twin's: for each data set and head, the paper's row (mean of 3
// seeds, ± 2 sd where recorded here), then one row per implementation
// and protocol of the runs with that head on that data set (n seeds, mean
// ± 2 sd of the last epoch's test accuracy and ECE, with the trained
// BatchNorm statistics, and a second row with the recalibrated ones where
// the runs recorded them with -bn-history). Runs of other heads (a frozen
// head) follow their data set's rows.
func table1(runs []*runReport) string {
	type key struct{ data, head, impl, protocol string }
	var order []key
	byKey := map[key][]*runReport{}
	for _, r := range runs {
		k := key{r.Config.Data, r.headLabel(), r.implementation(), r.protocol()}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	var b bytes.Buffer
	b.WriteString("| data set | head | source | protocol | n | test accuracy | ECE (10 bins) | BatchNorm |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	ours := func(data, head string) {
		for _, k := range order {
			if k.data != data || k.head != head {
				continue
			}
			g := &group{head: head, impl: k.impl, runs: byKey[k]}
			acc, ece, accRe, eceRe := g.series(false)
			source := "this project"
			if k.impl == "PyTorch" {
				source = "PyTorch twin"
			}
			fmt.Fprintf(&b, "| | | %s | %s | %d | %s | %s | trained |\n", source, k.protocol, len(acc), plusMinus(acc, 2, pct), plusMinus(ece, 2, pct))
			if len(accRe) > 0 {
				fmt.Fprintf(&b, "| | | %s | %s | %d | %s | %s | recalibrated |\n", source, k.protocol, len(accRe), plusMinus(accRe, 2, pct), plusMinus(eceRe, 2, pct))
			}
		}
	}
	known := map[[2]string]bool{}
	for i, p := range paperTable1 {
		known[[2]string{p.data, p.head}] = true
		acc := fmt.Sprintf("%.2f", p.acc)
		if !math.IsNaN(p.acc2sd) {
			acc += fmt.Sprintf(" ± %.2f", p.acc2sd)
		}
		ece := "-"
		if p.hasECE {
			ece = fmt.Sprintf("%.2f", p.ece)
		}
		fmt.Fprintf(&b, "| %s | %s | paper | 100 epochs | 3 | %s | %s | trained |\n", dataLabels[p.data], p.head, acc, ece)
		if !p.available {
			b.WriteString("| | | this project | no data source reachable here | | | | |\n")
			continue
		}
		ours(p.data, p.head)
		if i+1 == len(paperTable1) || paperTable1[i+1].data != p.data {
			for _, k := range order {
				if k.data == p.data && !known[[2]string{k.data, k.head}] {
					known[[2]string{k.data, k.head}] = true
					fmt.Fprintf(&b, "| %s | %s | not in the paper | | | | | |\n", dataLabels[k.data], k.head)
					ours(k.data, k.head)
				}
			}
		}
	}
	return b.String()
}
