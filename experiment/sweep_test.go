package experiment

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/report"
)

func TestSweep(t *testing.T) {
	c := SweepConfig{Base: DefaultImages(), Lambdas: []float64{0.01, 1}, Seeds: 2}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	runs := c.Runs()
	if len(runs) != 4 || runs[1].Lambda != 0.01 || runs[1].Seed != 2 || runs[2].Lambda != 1 || runs[2].Seed != 1 {
		t.Fatalf("runs %+v", runs)
	}
	for _, tc := range []struct {
		edit       func(*SweepConfig)
		name, want string
	}{
		{func(c *SweepConfig) { c.Lambdas = nil }, "lambdas", "lambdas is empty"},
		{func(c *SweepConfig) { c.Lambdas = []float64{0.1, 0} }, "lambdas", "every lambda must be a finite number > 0"},
		{func(c *SweepConfig) { c.Lambdas = []float64{0.1, 1, 0.1} }, "lambdas", "lambdas lists 0.1 twice; each lambda is trained once"},
		{func(c *SweepConfig) { c.Seeds = 0 }, "seeds", "seeds must be at least 1"},
		{func(c *SweepConfig) { c.Base.Head, c.Base.Loss = "softmax", "ce" }, "head", "the lambda sweep trains the LDA head"},
		{func(c *SweepConfig) { c.Base.Loss = "ce" }, "loss", "the lambda sweep trains with dnll"},
	} {
		bad := SweepConfig{Base: DefaultImages(), Lambdas: []float64{0.01}, Seeds: 1}
		tc.edit(&bad)
		checkSettingError(t, bad.Validate(), tc.name, tc.want)
	}
	res := NewSweepResult(c, kernels.Info{Name: "cpu"})
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	res.AddPoint(SweepPoint{Lambda: 1, Seed: 1, Accuracy: 0.8, ECE: 0.02, Sigma: f(3)})
	res.AddPoint(SweepPoint{Lambda: 0.01, Seed: 1, Accuracy: 0.9, ECE: 0.03, Sigma: f(1)})
	res.AddPoint(SweepPoint{Lambda: 0.01, Seed: 2, Accuracy: 0.7, ECE: 0.05, Sigma: f(2)})
	if len(res.Summary) != 2 || res.Summary[0].Lambda != 0.01 || res.Summary[0].Runs != 2 {
		t.Fatalf("summary %+v", res.Summary)
	}
	s := res.Summary[0]
	if math.Abs(float64(s.Accuracy.Mean)-0.8) > 1e-12 || math.Abs(float64(s.Accuracy.Std)-math.Sqrt(0.02)) > 1e-12 ||
		s.Accuracy.Min != 0.7 || s.Accuracy.Max != 0.9 || float64(s.Sigma.Mean) != 1.5 {
		t.Errorf("lambda 0.01: %+v, sigma %+v", s, *s.Sigma)
	}
	if one := res.Summary[1]; one.Accuracy.Std != 0 || one.Runs != 1 {
		t.Errorf("one seed: %+v", one)
	}
	figs := res.Figures()
	for _, name := range []string{"sweep_accuracy.svg", "sweep_ece.svg", "sweep_sigma.svg"} {
		if !strings.HasPrefix(string(figs[name]), "<svg") {
			t.Errorf("%s missing", name)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}
