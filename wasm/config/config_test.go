package config

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestNoQueryIsTheDNLLDemo(t *testing.T) {
	s, _, errs := FromQuery(url.Values{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s.Demo != Deep || s.Synth.Loss != "dnll" || s.Synth.Lambda != 0.01 || s.Compare || s.Autostart || s.Backend != "auto" {
		t.Errorf("default settings %+v", s)
	}
}

func TestDefaultsAreValid(t *testing.T) {
	for _, d := range Demos {
		s := Defaults(d.Demo)
		if _, errs := Parse(d.Demo, s.Raw()); len(errs) > 0 {
			t.Errorf("%s: %v", d.Demo, errs)
		}
		if q := s.Query(); len(q) != 1 || q.Get("demo") != string(d.Demo) {
			t.Errorf("%s: the defaults' query is %v", d.Demo, q)
		}
	}
}

// TestEveryFieldHasRawText checks that Fields and Settings.Raw agree.
func TestEveryFieldHasRawText(t *testing.T) {
	raw := Defaults(Deep).Raw()
	if len(raw) != len(Fields) {
		t.Errorf("%d raw values for %d fields", len(raw), len(Fields))
	}
	for _, f := range Fields {
		if _, ok := raw[f.Name]; !ok {
			t.Errorf("no raw text for %s", f.Name)
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct{ query, field, want string }{
		{"lambda=-1", "lambda", "lambda must be a finite number >= 0"},
		{"lambda=abc", "lambda", `lambda must be a number, got "abc"`},
		{"lambda=NaN", "lambda", "lambda must be a finite number"},
		{"epochs=0", "epochs", "epochs must be at least 1, got 0"},
		{"batch=2.5", "batch", `batch must be a whole number, got "2.5"`},
		{"batch=0", "batch", "batch must be at least 1"},
		{"train=1", "train", "train must be at least 2, got 1"},
		{"test=0", "test", "test must be at least 1, got 0"},
		{"train=5000000", "train", "at most 1000000 train points"},
		{"lr=0", "lr", "learning rate must be a finite number > 0"},
		{"lr=Inf", "lr", "learning rate must be a finite number > 0"},
		{"seed=-1", "seed", "seed must be a whole number >= 0"},
		{"data-seed=x", "data-seed", "data-seed must be a whole number"},
		{"loss=mse", "loss", `loss must be dnll, ce or nll, got "mse"`},
		{"cov=round", "cov", `cov must be full, diag or spherical, got "round"`},
		{"encoder=cnn", "encoder", "encoder must be mlp or none"},
		{"backend=gpu", "backend", "backend must be cpu, webgpu or auto"},
		{"compare=maybe", "compare", "compare must be 1 or 0"},
		{"demo=sweep&lambdas=0.1,abc", "lambdas", `each λ must be a number, got "abc"`},
		{"demo=sweep&lambdas=0.1,-2", "lambdas", "lambda must be a finite number >= 0"},
		{"demo=sweep&lambdas=", "lambdas", "lambdas must list 1 to 12 numbers"},
		{"demo=sweep&lambdas=0,1", "lambdas", "every λ of a sweep must be > 0"},
		{"demo=nope", "demo", `unknown demo "nope"`},
	}
	for _, c := range cases {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		_, _, errs := FromQuery(q)
		if !strings.Contains(errs[c.field], c.want) {
			t.Errorf("%s: errors %v, want %q on %s", c.query, errs, c.want, c.field)
		}
		if len(errs) != 1 {
			t.Errorf("%s: %d errors, want 1: %v", c.query, len(errs), errs)
		}
	}
}

func TestQueryRoundTrip(t *testing.T) {
	s := Defaults(Classical)
	s.Synth.Epochs, s.Synth.Lambda, s.Synth.Seed, s.Backend, s.Compare = 7, 0.5, 3, "cpu", false
	got, _, errs := FromQuery(s.Query())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip gave %+v, want %+v", got, s)
	}
	q, _ := url.ParseQuery("demo=2&loss=ce&epochs=5&train=4000&autostart=1&data-seed=9")
	got, _, errs = FromQuery(q)
	if len(errs) > 0 || got.Demo != Deep || got.Synth.Loss != "ce" || got.Synth.Epochs != 5 || got.Synth.Train != 4000 || got.Synth.DataSeed != 9 || !got.Autostart {
		t.Errorf("%v: got %+v (errors %v)", q, got, errs)
	}
}

func TestJobs(t *testing.T) {
	s := Defaults(Deep)
	jobs, _ := s.Jobs()
	if len(jobs) != 1 || jobs[0].Label != "DNLL, λ = 0.01" {
		t.Errorf("deep: %+v", jobs)
	}
	s.Compare = true
	jobs, _ = s.Jobs()
	if len(jobs) != 3 || jobs[0].Synth.Loss != "nll" || jobs[1].Synth.Loss != "ce" || jobs[2].Synth.Loss != "dnll" {
		t.Errorf("deep side by side: %+v", jobs)
	}
	jobs, _ = Defaults(Classical).Jobs()
	if len(jobs) != 2 || jobs[0].Synth.Encoder != "none" || jobs[0].Synth.Batch != 20000 {
		t.Errorf("classical: %+v", jobs)
	}
	jobs, _ = Defaults(Sweep).Jobs()
	if len(jobs) != len(DefaultLambdas) || jobs[3].Synth.Lambda != 1 || jobs[3].Synth.Loss != "dnll" || jobs[3].Synth.Cov != "spherical" {
		t.Errorf("sweep: %+v", jobs)
	}
	jobs, err := Defaults(Images).Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Image == nil || jobs[0].Image.Data != "fashion-mnist" || jobs[0].Image.Val != 0 {
		t.Errorf("images: %+v, %v", jobs, err)
	}
}

func TestImages(t *testing.T) {
	q, _ := url.ParseQuery("demo=images&data=mnist&head=softmax&loss=ce&cov=full&lambda=0.1&epochs=1&batch=32&limit-train=256&limit-test=128&seed=7&backend=cpu&autostart=1")
	s, _, errs := FromQuery(q)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	c := s.Image
	if s.Demo != Images || c.Data != "mnist" || c.Head != "softmax" || c.Loss != "ce" || c.Cov != "full" || c.Lambda != 0.1 ||
		c.Epochs != 1 || c.Batch != 32 || c.LimitTrain != 256 || c.LimitTest != 128 || c.Seed != 7 || s.Backend != "cpu" || !s.Autostart {
		t.Errorf("settings %+v", s)
	}
	if got := s.Query(); got.Get("limit-train") != "256" || got.Get("data") != "mnist" || got.Get("head") != "softmax" {
		t.Errorf("query %v", got)
	}
	jobs, _ := s.Jobs()
	if len(jobs) != 1 || jobs[0].Image.Val != 128 {
		t.Errorf("softmax jobs %+v", jobs)
	}
	cases := []struct{ query, field, want string }{
		{"data=svhn", "data", `data must be fashion-mnist, mnist, cifar10 or cifar100, got "svhn"`},
		{"head=knn", "head", "head must be lda or softmax"},
		{"head=softmax", "loss", "the softmax head trains with ce, not dnll"},
		{"limit-train=-1", "limit-train", "limit-train must be >= 0, got -1"},
		{"limit-test=x", "limit-test", "limit-test must be a whole number"},
		{"epochs=0", "epochs", "epochs must be at least 1"},
		{"lambda=-1", "lambda", "lambda must be a finite number >= 0"},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery("demo=images&" + c.query)
		_, _, errs := FromQuery(q)
		if !strings.Contains(errs[c.field], c.want) || len(errs) != 1 {
			t.Errorf("%s: errors %v, want %q on %s", c.query, errs, c.want, c.field)
		}
	}
}

func TestRawQuery(t *testing.T) {
	raw := Defaults(Sweep).Raw()
	raw["lambdas"], raw["epochs"] = "0.1, 1", " abc "
	q := RawQuery(Sweep, raw)
	if q.Encode() != "demo=sweep&epochs=abc&lambdas=0.1%2C+1" {
		t.Errorf("got %s", q.Encode())
	}
}
