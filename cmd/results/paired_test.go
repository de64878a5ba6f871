package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestWelch checks Welch's test against values computed by hand: a = 1,
// 2, 3, 4 (mean 2.5, variance 5/3), b = 2, 4, 6 (mean 4, variance 4):
// t = -1.5/sqrt(5/12 + 4/3) = -1.1339, df = 1.75^2 / ((5/12)^2/3 +
// (4/3)^2/2) = 3.2347, and p = 0.3338 (Student's t density integrated
// numerically beyond |t|). With equal sizes and variances, a = 1, 2, 3
// and b = 2, 3, 4, df = 4 and the 95% interval of the difference -1 is
// -1 ± 2.776445 sqrt(2/3) (Student's t table: t(0.975, 4) = 2.776445).
func TestWelch(t *testing.T) {
	w, ok := welch([]float64{1, 2, 3, 4}, []float64{2, 4, 6})
	if !ok || math.Abs(w.t+1.1339) > 1e-4 || math.Abs(w.df-3.2347) > 1e-4 || math.Abs(w.p-0.3338) > 1e-4 {
		t.Errorf("welch = %+v, %v; want t -1.1339, df 3.2347, p 0.3338", w, ok)
	}
	w, ok = welch([]float64{1, 2, 3}, []float64{2, 3, 4})
	half := 2.776445 * math.Sqrt(2.0/3)
	if !ok || math.Abs(w.df-4) > 1e-9 || math.Abs(w.lo-(-1-half)) > 1e-5 || math.Abs(w.hi-(-1+half)) > 1e-5 {
		t.Errorf("welch = %+v, %v; want df 4, interval [%.5f, %.5f]", w, ok, -1-half, -1+half)
	}
	if _, ok := welch([]float64{1}, []float64{2, 3}); ok {
		t.Error("welch of one value: ok")
	}
}

// TestPairedTable writes three LDA runs of each implementation and one
// softmax run of ours, with and without -bn-history, and finds the
// means ± sd, n, the test of the difference, and deeplda eval's figures
// for the one twin run that has them, in the table.
func TestPairedTable(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	// ours: ECE 2, 3, 4 (mean 3, sd 1); PyTorch: ECE 4, 5, 6 (mean 5, sd 1).
	for i := range 3 {
		for _, impl := range []struct {
			name, backend string
			base          float64
		}{{"ours", "cpu", 0.02}, {"pytorch", "pytorch", 0.04}} {
			// Epoch 2's ECE is 4, 5, 6 in both: the means over epochs 2
			// and 3 are 3, 4, 5 for ours and 4, 5, 6 for PyTorch.
			ece := impl.base + 0.01*float64(i)
			runs = append(runs, writeRun(t, dir, fmt.Sprintf("%s-lda-s%d", impl.name, i+1), fmt.Sprintf(`{"config":{"head":"lda","cov":"spherical","loss":"dnll","seed":%d},
				"backend":{"name":%q},"history":[{"epoch":1,"test_accuracy":0.5,"test_ece":0.5},
				{"epoch":2,"test_accuracy":0.9,"test_ece":%g,"test_accuracy_recalibrated":0.91,"test_ece_recalibrated":0.5},
				{"epoch":3,"test_accuracy":0.9,"test_ece":%g,"test_accuracy_recalibrated":0.91,"test_ece_recalibrated":%g}]}`,
				i+1, impl.backend, 0.04+0.01*float64(i), ece, ece/2)))
		}
	}
	// deeplda eval of the first twin run's checkpoint: ECE 4.01 against
	// the twin's 4.
	writeRun(t, dir, "pytorch-lda-s1/deeplda-eval", `{"test":{"accuracy":0.9,"ece":0.0401}}`)
	runs = append(runs, writeRun(t, dir, "ours-softmax-frozen", `{"config":{"head":"softmax","loss":"ce","freeze_head":true},
		"backend":{"name":"cpu"},"history":[{"epoch":1,"test_accuracy":0.8,"test_ece":0.1}]}`))
	got, _, _, err := Regenerate([]byte("<!-- results: paired "+strings.Join(runs, " ")+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| LDA spherical + DNLL | ours | 3 | 3 | 90.00 ± 0.00 | 3.00 ± 1.00 | 91.00 ± 0.00 | 1.50 ± 0.50 |",
		"| LDA spherical + DNLL | PyTorch | 3 | 3 | 90.00 ± 0.00 | 5.00 ± 1.00 | 91.00 ± 0.00 | 2.50 ± 0.50 |",
		"| softmax + CE, frozen head | ours | 1 | 1 | 80.00 | 10.00 | - | - |",
		// t = -2 / sqrt(2/3) = -2.449, df = 4, p = 0.0705.
		// The 95% interval: -2 ± 2.776445 sqrt(2/3) = -2 ± 2.27.
		"| LDA spherical + DNLL | ECE, trained BN | -2.00 | [-4.27, +0.27] | -2.45 | 4.0 | 0.070 |",
		"| LDA spherical + DNLL | test accuracy, trained BN | - | - | - | - | - |",
		// t = -1 / sqrt(2/3) = -1.225, df = 4, p = 0.288.
		"| LDA spherical + DNLL | ECE, trained BN, mean of the last half of the epochs | -1.00 | [-3.27, +1.27] | -1.22 | 4.0 | 0.288 |",
		"| pytorch-lda-s1 | 90.00 | 90.00 | 4.00 | 4.01 | 0.0100 |\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

// TestTable1 writes two LDA runs of ours with -bn-history, one softmax
// run of the twin and one frozen-head run, and finds the paper's rows, the
// runs' rows under theirs, the CIFAR rows marked, and the frozen head
// after the Fashion-MNIST rows.
func TestTable1(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	for i, ece := range []float64{0.02, 0.04} {
		runs = append(runs, writeRun(t, dir, fmt.Sprintf("lda-s%d", i+1), fmt.Sprintf(`{"config":{"data":"fashion-mnist","head":"lda","cov":"spherical","loss":"dnll","epochs":10,"seed":%d},
			"backend":{"name":"cpu"},"train":{"examples":10000},"history":[{"epoch":10,"test_accuracy":0.9,"test_ece":%g,"test_accuracy_recalibrated":0.92,"test_ece_recalibrated":0.01}]}`, i+1, ece)))
	}
	runs = append(runs, writeRun(t, dir, "twin-softmax", `{"config":{"data":"fashion-mnist","head":"softmax","loss":"ce","epochs":100},
		"backend":{"name":"pytorch"},"train":{"examples":60000},"history":[{"epoch":100,"test_accuracy":0.93,"test_ece":0.05}]}`))
	runs = append(runs, writeRun(t, dir, "frozen", `{"config":{"data":"fashion-mnist","head":"lda","cov":"spherical","loss":"dnll","epochs":10,"freeze_head":true},
		"backend":{"name":"cpu"},"train":{"examples":10000},"history":[{"epoch":10,"test_accuracy":0.8,"test_ece":0.03}]}`))
	got, _, _, err := Regenerate([]byte("<!-- results: table1 "+strings.Join(runs, " ")+" -->\n<!-- end results -->\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{
		"| Fashion-MNIST | softmax + CE | paper | 100 epochs | 3 | 93.61 | 5.05 | trained |\n| | | PyTorch twin | 100 epochs, 60000 images | 1 | 93.00 | 5.00 | trained |\n",
		// ECE 2 and 4: sd 1.414, 2 sd 2.83.
		"| Fashion-MNIST | LDA spherical + DNLL | paper | 100 epochs | 3 | 92.82 | 2.98 | trained |\n| | | this project | 10 epochs, 10000 images | 2 | 90.00 ± 0.00 | 3.00 ± 2.83 | trained |\n| | | this project | 10 epochs, 10000 images | 2 | 92.00 ± 0.00 | 1.00 ± 0.00 | recalibrated |\n",
		"| Fashion-MNIST | LDA diag + DNLL | paper | 100 epochs | 3 | 92.84 ± 0.52 | - | trained |\n",
		"| Fashion-MNIST | LDA spherical + DNLL, frozen head | not in the paper | | | | | |\n| | | this project | 10 epochs, 10000 images | 1 | 80.00 | 3.00 | trained |\n| CIFAR-10 | softmax + CE |",
		"| CIFAR-100 | LDA full + DNLL | paper | 100 epochs | 3 | 65.51 | - | trained |\n| | | this project | no data source reachable here | | | | |\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
}
