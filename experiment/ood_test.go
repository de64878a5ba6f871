package experiment

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/metrics"
	"github.com/deeplda/deeplda/model"
	"github.com/deeplda/deeplda/train"
)

// TestOODCheck checks the refusals of -ood: unknown sets, the model's own
// and sets of another image shape, each with one line naming the setting.
func TestOODCheck(t *testing.T) {
	if err := (OODConfig{}).Check("fashion-mnist"); err != nil {
		t.Errorf("no -ood: %v", err)
	}
	if err := (OODConfig{Data: "mnist"}).Check("fashion-mnist"); err != nil {
		t.Errorf("mnist against fashion-mnist: %v", err)
	}
	for _, tc := range []struct{ ood, in, want string }{
		{"svhn", "mnist", `ood must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{"mnist", "mnist", "another data set than the model's own, mnist"},
		{"cifar10", "fashion-mnist", "ood cifar10 has 3x32x32 images and a model of fashion-mnist takes 1x28x28"},
	} {
		err := OODConfig{Data: tc.ood}.Check(tc.in)
		checkSettingError(t, err, "ood", tc.want)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: more than one line", err)
		}
	}
	for in, want := range map[string]string{"fashion-mnist": "mnist", "mnist": "fashion-mnist", "cifar10": "cifar100"} {
		if got := OODPartner(in, images.Names()); got != want {
			t.Errorf("partner of %s: %q, want %q", in, got, want)
		}
	}
	if got := OODPartner("cifar10", images.Hosted()); got != "" {
		t.Errorf("partner of cifar10 among the hosted sets: %q, want none", got)
	}
	c := EvalConfig{Checkpoint: "x", Data: "mnist", EvalBatch: 1, Batch: 1, OODConfig: OODConfig{Data: "cifar100"}}
	checkSettingError(t, c.Validate(), "ood", "only data sets of one image shape pair up")
}

// TestNewOODSet checks that the out-of-distribution images are normalised
// with the model's data set's constants, not their own, and that the limit
// applies.
func TestNewOODSet(t *testing.T) {
	out := fakeImages(1, 10, 7).Test
	out.Name = "mnist test"
	mnist, _ := images.Lookup("mnist")
	out.Mean, out.Std = mnist.Mean, mnist.Std
	s, err := NewOODSet("mnist", out, "fashion-mnist", 4)
	if err != nil {
		t.Fatal(err)
	}
	fm, _ := images.Lookup("fashion-mnist")
	want := (float32(out.Pixels[5])/255 - fm.Mean[0]) / fm.Std[0]
	first := s.Set.Rows(make([]float32, s.Set.Size()), 0, 1)
	if s.Name != "mnist" || s.Set.Len() != 4 || first[5] != want {
		t.Errorf("set %s of %d images, x[5] = %v; want mnist, 4 images, x[5] = %v (Fashion-MNIST's normalisation)", s.Name, s.Set.Len(), first[5], want)
	}
	if _, err := NewOODSet("cifar10", out, "fashion-mnist", 0); err == nil {
		t.Error("a CIFAR-10 set was taken for a Fashion-MNIST model")
	}
}

// TestImageRunOOD trains tiny LDA and softmax models for one epoch with 64
// in-distribution and 64 out-of-distribution test images, and checks the
// report's ood part (keys, sizes, value ranges; the LDA head's six scores
// and the softmax head's three, in the list's order; the density's figures
// equal to the detection of the log densities recomputed from the two sets'
// outputs, and the scores named twice for the LDA head equal) and the
// figures.
func TestImageRunOOD(t *testing.T) {
	for _, head := range []model.HeadKind{model.HeadLDA, model.HeadSoftmax} {
		t.Run(head.String(), func(t *testing.T) {
			c := DefaultImages()
			c.Head, c.Loss = head.String(), ""
			c.Epochs, c.Batch, c.LimitTrain, c.Val, c.EvalBatch, c.BNRecalibrate = 1, 32, 64, 0, 64, 0
			data := fakeImages(64, 64, 1)
			r, err := NewImagesFrom(cpu.New(), c, data)
			if err != nil {
				t.Fatal(err)
			}
			other := fakeImages(1, 80, 2).Test
			for i := range other.Pixels {
				other.Pixels[i] = 255 - other.Pixels[i] // unlike the training images
			}
			if r.OOD, err = NewOODSet("mnist", other, c.Data, 64); err != nil {
				t.Fatal(err)
			}
			if err := (Driver{}).Drive(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				OOD map[string]json.RawMessage `json:"ood"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			want := map[model.HeadKind][]string{
				model.HeadLDA:     {"max_softmax", "max_logit", "energy", "density", "max_delta", "mahalanobis"},
				model.HeadSoftmax: {"max_softmax", "max_logit", "energy"},
			}[head]
			for _, k := range append([]string{"dataset", "n_in", "n_out"}, want...) {
				if rep.OOD[k] == nil {
					t.Errorf("ood lacks %q", k)
				}
			}
			if len(rep.OOD) != 3+len(want) {
				t.Errorf("ood has %d keys, want %d: %s", len(rep.OOD), 3+len(want), b)
			}
			o := r.Extras.OOD
			if o.Dataset != "mnist" || o.NIn != 64 || o.NOut != 64 {
				t.Errorf("ood %s, %d in, %d out; want mnist, 64, 64", o.Dataset, o.NIn, o.NOut)
			}
			var names []string
			for _, d := range o.Detections {
				names = append(names, d.Key)
				for _, v := range []float64{d.Value.AUROC, d.Value.AUPR, d.Value.FPRAt95TPR} {
					if !(v >= 0 && v <= 1) {
						t.Errorf("detection %s %+v outside [0,1]", d.Key, d.Value)
					}
				}
			}
			if !slices.Equal(names, want) {
				t.Errorf("scores %v, want %v in the list's order", names, want)
			}
			var back struct {
				OOD *OODReport `json:"ood"`
			}
			if err := json.Unmarshal(b, &back); err != nil || back.OOD.Dataset != o.Dataset || back.OOD.NOut != o.NOut || !slices.Equal(back.OOD.Detections, o.Detections) {
				t.Errorf("ood read back as %s: %v (%v), want %v", back.OOD.Dataset, back.OOD.Detections, err, o.Detections)
			}
			if head == model.HeadLDA {
				outOut, err := train.Evaluate(r.Model, r.OOD.Set, 64, nil)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := metrics.Detect(metrics.LogDensity(r.TestOut.Scores, 10), metrics.LogDensity(outOut.Scores, 10))
				density, _ := o.Detection("density")
				if math.Abs(density.AUROC-want.AUROC) > 1e-12 || math.Abs(density.FPRAt95TPR-want.FPRAt95TPR) > 1e-12 {
					t.Errorf("density %+v, want %+v (test images in, the other set's out)", density, want)
				}
				// The LDA head's scores named twice are one score.
				for a, b := range map[string]string{"energy": "density", "max_logit": "max_delta"} {
					da, _ := o.Detection(a)
					if db, _ := o.Detection(b); da != db {
						t.Errorf("%s %+v differs from %s %+v", a, da, b, db)
					}
				}
			}
			figs := r.Figures()
			for _, f := range []string{"ood_scores.svg", "ood_roc.svg"} {
				for _, name := range want {
					if !strings.Contains(string(figs[f]), name) {
						t.Errorf("%s lacks the %s score", f, name)
					}
				}
			}
			if got := strings.Contains(string(figs["ood_roc.svg"]), "mahalanobis"); got != (head == model.HeadLDA) {
				t.Errorf("ood_roc.svg has a mahalanobis curve: %v, head %s", got, head)
			}
		})
	}
}

// TestEmbeddingDensity checks that the toy run's embedding.svg is shaded by
// the LDA head's log density, with its legend, and that the density is
// the head's: largest near a class mean, not at a far corner.
func TestEmbeddingDensity(t *testing.T) {
	c := DefaultSynth()
	c.Epochs, c.Train, c.Test = 2, 512, 256
	r := runSynth(t, c)
	svg := string(r.Figures()["embedding.svg"])
	for _, want := range []string{`class="density"`, ">log density<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("embedding.svg lacks %s", want)
		}
	}
	mu := r.Report.Head.Mu[0]
	d := r.logDensity([]float64{float64(mu[0]), 1e3}, []float64{float64(mu[1]), 1e3})
	if len(d) != 2 || !(d[0] > d[1]) {
		t.Errorf("log density %v at the first mean and far away, want the mean's higher", d)
	}
	r.HideDensity = true
	if strings.Contains(string(r.Figures()["embedding.svg"]), `class="density"`) {
		t.Error("HideDensity: embedding.svg is still shaded")
	}
}
