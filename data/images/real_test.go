package images

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// TestRealIDX loads the published Fashion-MNIST and MNIST files from
// ../shared/datasets, verifying their hashes.
func TestRealIDX(t *testing.T) {
	root := sharedtest.Dir(t, "datasets")
	for _, tc := range []struct {
		name                  string
		trainLabels, testLabs []uint8
		mean, std             float64 // of the training pixels in [0,1]
	}{
		{"fashion-mnist", []uint8{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}, []uint8{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}, 0.2860, 0.3530},
		{"mnist", []uint8{5, 0, 4, 1, 9, 2, 1, 3, 1, 4}, []uint8{7, 2, 1, 0, 4, 1, 4, 9, 5, 9}, 0.1307, 0.3081},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, te, err := Load(tc.name, filepath.Join(root, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Set{tr, te} {
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				if s.Shape != [3]int{1, 28, 28} || s.Classes != 10 {
					t.Errorf("%s: shape %v, %d classes", s.Name, s.Shape, s.Classes)
				}
			}
			if tr.Len() != 60000 || te.Len() != 10000 {
				t.Errorf("%d train and %d test examples, want 60000 and 10000", tr.Len(), te.Len())
			}
			if got := tr.Labels[:10]; !slices.Equal(got, tc.trainLabels) {
				t.Errorf("first train labels %v, want %v", got, tc.trainLabels)
			}
			if got := te.Labels[:10]; !slices.Equal(got, tc.testLabs) {
				t.Errorf("first test labels %v, want %v", got, tc.testLabs)
			}
			counts := make([]int, 10)
			for _, y := range tr.Labels {
				counts[y]++
			}
			if tc.name == "fashion-mnist" && !slices.Equal(counts, slices.Repeat([]int{6000}, 10)) {
				t.Errorf("class counts %v, want 6000 each", counts)
			}

			// The constants match the training pixels to their 4 digits.
			mean, std := tr.Stats()
			t.Logf("train pixels: mean %.5f std %.5f", mean[0], std[0])
			if math.Abs(mean[0]-tc.mean) > 1e-4 || math.Abs(std[0]-tc.std) > 1e-4 {
				t.Errorf("train pixels: mean %.5f std %.5f, want %.4f %.4f", mean[0], std[0], tc.mean, tc.std)
			}

			// Normalised, the training pixels have mean ~0 and std ~1.
			x := make([]float32, tr.Size())
			var sum, sq float64
			for i := range tr.Len() {
				tr.Normalize(x, i)
				for _, v := range x {
					sum += float64(v)
					sq += float64(v) * float64(v)
				}
			}
			n := float64(tr.Len() * tr.Size())
			m := sum / n
			sd := math.Sqrt(sq/n - m*m)
			t.Logf("normalised: mean %.5f std %.5f", m, sd)
			if math.Abs(m) > 1e-3 || math.Abs(sd-1) > 1e-3 {
				t.Errorf("normalised train pixels: mean %.5f std %.5f, want 0 and 1", m, sd)
			}

			d := te.Dataset(100)
			if err := d.Validate(); err != nil || d.Len() != 100 || d.Y[0] != int32(tc.testLabs[0]) {
				t.Errorf("Dataset(100): %v, %d examples", err, d.Len())
			}
		})
	}
}
