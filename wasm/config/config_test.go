package config

import (
	"errors"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

func TestNoQueryIsTheDNLLDemo(t *testing.T) {
	s, _, errs := FromQuery(Query{})
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
		{"train=5000000", "train", "train must be at most 1000000 in the browser, got 5000000"},
		{"lr=0", "lr", "learning rate must be a finite number > 0"},
		{"lr=Inf", "lr", "learning rate must be a finite number > 0"},
		{"seed=-1", "seed", "seed must be a whole number >= 0"},
		{"data-seed=x", "data-seed", "data-seed must be a whole number"},
		{"loss=mse", "loss", `loss must be dnll, ce or nll, got "mse"`},
		{"cov=round", "cov", `cov must be full, diag or spherical, got "round"`},
		{"encoder=cnn", "encoder", "encoder must be mlp or none"},
		{"backend=gpu", "backend", `backend must be auto, webgpu or cpu, got "gpu"`},
		{"compare=maybe", "compare", "compare must be 1 or 0"},
		{"demo=sweep&lambdas=0.1,abc", "lambdas", `lambdas must be numbers: "abc" is not a number`},
		{"demo=sweep&lambdas=0.1,-2", "lambdas", "every lambda must be a finite number > 0 (the axis is logarithmic), got -2"},
		{"demo=sweep&lambdas=", "lambdas", "lambdas must list 1 to 12 numbers"},
		{"demo=sweep&lambdas=0,1", "lambdas", "every lambda must be a finite number > 0"},
		{"demo=sweep&lambdas=1,2,3,4,5,6,7,8,9,10,11,12,13", "lambdas", "lambdas must list 1 to 12 numbers, got 13"},
		{"demo=deep&head=knn", "head", `head must be lda or softmax, got "knn"`},
		{"demo=images&limit-test=2000000", "limit-test", "limit-test must be at most 1000000 in the browser"},
		{"demo=nope", "demo", `unknown demo "nope"`},
	}
	for _, c := range cases {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		_, _, errs := FromQuery(Query(q))
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
	s.Synth.Epochs, s.Synth.Lambda, s.Synth.Seed, s.Backend, s.Compare = 7, 0.5, 3, experiment.BackendCPU, false
	got, _, errs := FromQuery(s.Query())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip gave %+v, want %+v", got, s)
	}
	q, _ := url.ParseQuery("demo=2&loss=ce&epochs=5&train=4000&autostart=1&data-seed=9")
	got, _, errs = FromQuery(Query(q))
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

// TestImagesCompare checks that compare=1 in the images demo trains the
// LDA head with DNLL and the softmax head with CE on the same settings.
func TestImagesCompare(t *testing.T) {
	q, _ := url.ParseQuery("demo=images&compare=1&loss=nll&cov=diag&limit-train=128&limit-test=64&epochs=1&batch=64&seed=5")
	s, _, errs := FromQuery(Query(q))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 2 {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	l, m := jobs[0].Image, jobs[1].Image
	if l.Head != "lda" || l.Loss != "dnll" || l.Cov != "diag" || l.Val != 0 || m.Head != "softmax" || m.Loss != "ce" || m.Val != 100 {
		t.Errorf("heads %+v and %+v", l, m)
	}
	if l.Seed != 5 || m.Seed != 5 || l.LimitTrain != 128 || m.LimitTrain != 128 || m.Epochs != 1 {
		t.Errorf("the heads train on other settings: %+v and %+v", l, m)
	}
	if jobs[0].Label == jobs[1].Label {
		t.Errorf("both jobs are labelled %q", jobs[0].Label)
	}
}

func TestImages(t *testing.T) {
	q, _ := url.ParseQuery("demo=images&data=mnist&head=softmax&loss=ce&cov=full&lambda=0.1&epochs=1&batch=32&limit-train=256&limit-test=128&seed=7&backend=cpu&autostart=1")
	s, _, errs := FromQuery(Query(q))
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
		_, _, errs := FromQuery(Query(q))
		if !strings.Contains(errs[c.field], c.want) || len(errs) != 1 {
			t.Errorf("%s: errors %v, want %q on %s", c.query, errs, c.want, c.field)
		}
	}
}

func TestModelQuery(t *testing.T) {
	s, _, errs := FromQuery(Query{"model": {"fashion-mnist-lda"}, "limit-test": {"500"}})
	if len(errs) > 0 || s.Demo != Images || s.Model != "fashion-mnist-lda" || s.Image.LimitTest != 500 {
		t.Errorf("model= alone: demo %s, model %q, limit-test %d, errors %v; want the images demo", s.Demo, s.Model, s.Image.LimitTest, errs)
	}
	if got := s.Query(); got.Get("model") != "fashion-mnist-lda" || got.Get("demo") != string(Images) {
		t.Errorf("Query() = %v, want demo=images and the model", got)
	}
	if s, _, _ = FromQuery(Query{"model": {"x"}, "demo": {"sweep"}}); s.Demo != Sweep {
		t.Errorf("demo=sweep with model=: demo %s", s.Demo)
	}
}

func TestRawQuery(t *testing.T) {
	raw := Defaults(Sweep).Raw()
	raw["lambdas"], raw["epochs"] = "0.1, 1", " abc "
	q := url.Values(RawQuery(Sweep, raw))
	if q.Encode() != "demo=sweep&epochs=abc&lambdas=0.1%2C+1" {
		t.Errorf("got %s", q.Encode())
	}
}

// TestFieldsFollowTheTable walks experiment.Settings and the page's docs:
// every doc is of a setting, the page has a field for every setting that a
// demo shows, in the table's order, with a label and a hint, and each
// field's text reaches the settings of its demos and reads back.
func TestFieldsFollowTheTable(t *testing.T) {
	var want, got []string
	for _, s := range experiment.Settings {
		if pageDoc(s).Demos != nil {
			want = append(want, s.Name)
		}
	}
	for name, d := range docs {
		if !slices.ContainsFunc(experiment.Settings, func(s experiment.Setting) bool { return s.Name == name }) {
			t.Errorf("docs: %s is no setting", name)
		}
		if d.Demos != nil && d.Label == "" {
			t.Errorf("docs: %s has no label", name)
		}
	}
	for _, f := range Fields {
		got = append(got, f.Name)
		if f.Help == "" || f.Hint == f.Doc {
			t.Errorf("%s: hint %q, its own %q, the setting's %q", f.Name, f.Help, f.Hint, f.Doc)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("fields %v, the table's page settings %v", got, want)
	}
	// A valid value other than every demo's default, per field.
	other := map[string]string{
		"data": "mnist", "head": "softmax", "loss": "ce", "compare": "1", "density": "0", "lambda": "0.5", "lambdas": "0.5,2", "cov": "diag",
		"epochs": "3", "batch": "17", "limit-train": "300", "limit-test": "200", "seed": "9", "backend": "cpu", "lr": "0.02", "freeze-head": "1",
		"encoder": "none", "train": "500", "test": "100", "data-seed": "4",
	}
	for _, f := range Fields {
		v, ok := other[f.Name]
		if !ok {
			t.Errorf("no test value for %s", f.Name)
			continue
		}
		for _, d := range Demos {
			raw := Defaults(d.Demo).Raw()
			if !f.Shown(d.Demo) || raw[f.Name] == v {
				continue
			}
			raw[f.Name] = v
			if f.Name == "head" {
				raw["loss"] = "ce"
			}
			s, errs := Parse(d.Demo, raw)
			if len(errs) > 0 {
				t.Errorf("%s=%s in %s: %v", f.Name, v, d.Demo, errs)
			} else if back := s.Raw()[f.Name]; back != v {
				t.Errorf("%s=%s in %s reads back as %q", f.Name, v, d.Demo, back)
			}
			if s.Query().Get(f.Name) != v {
				t.Errorf("%s=%s in %s: query %v", f.Name, v, d.Demo, s.Query())
			}
		}
	}
}

// TestPageLeavesOutTheFetcher checks that the page's build does not link
// net/http or crypto/tls (the data sets' fetcher).
func TestPageLeavesOutTheFetcher(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command to list the page's packages")
		}
		t.Skip("SKIPPED LOUDLY: no go command to list the page's packages")
	}
	cmd := exec.Command(gobin, "list", "-deps", "github.com/deeplda/deeplda/wasm")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "net/http" || p == "crypto/tls" {
			t.Errorf("the page links %s", p)
		}
	}
}

func TestQueryMethods(t *testing.T) {
	q := Query{"a": {"1", "2"}, "empty": {""}}
	if q.Get("a") != "1" || q.Get("empty") != "" || q.Get("none") != "" {
		t.Errorf("Get: %q %q %q", q.Get("a"), q.Get("empty"), q.Get("none"))
	}
	if !q.Has("empty") || q.Has("none") {
		t.Errorf("Has(empty) = %v, Has(none) = %v", q.Has("empty"), q.Has("none"))
	}
	q.Set("a", "3")
	if len(q["a"]) != 1 || q.Get("a") != "3" {
		t.Errorf("after Set: %v", q["a"])
	}
}

// TestParseFormat reads every kind of setting from text and writes it
// back.
func TestParseFormat(t *testing.T) {
	c := experiment.DefaultSynth()
	sw := experiment.SweepConfig{Base: experiment.DefaultImages()}
	var b experiment.BackendKind
	var on bool
	for _, tc := range []struct {
		name string
		v    any
		text string
		back string
	}{
		{"loss", &c.Loss, " CE ", "ce"},
		{"epochs", &c.Epochs, "7", "7"},
		{"seed", &c.Seed, "12", "12"},
		{"lambda", &c.Lambda, "1e-3", "0.001"},
		{"compare", &on, "yes", "1"},
		{"backend", &b, "WebGPU", "webgpu"},
		{"lambdas", (*experiment.Floats)(&sw.Lambdas), "0.1, 1;10", "0.1,1,10"},
	} {
		if err := ParseValue(tc.name, tc.text, tc.v); err != nil {
			t.Errorf("%s %q: %v", tc.name, tc.text, err)
		} else if got := format(tc.v); got != tc.back {
			t.Errorf("%s %q reads back as %q, want %q", tc.name, tc.text, got, tc.back)
		}
	}
	for _, tc := range []struct {
		name string
		v    any
		text string
		want string
	}{
		{"epochs", &c.Epochs, "2.5", `epochs must be a whole number, got "2.5"`},
		{"train", &c.Train, "5000000", "train must be at most 1000000 in the browser, got 5000000"},
		{"seed", &c.Seed, "-1", `seed must be a whole number >= 0, got "-1"`},
		{"lambda", &c.Lambda, "abc", `lambda must be a number, got "abc"`},
		{"compare", &on, "maybe", `compare must be 1 or 0, got "maybe"`},
		{"backend", &b, "tpu", `backend must be auto, webgpu or cpu, got "tpu"`},
		{"lambdas", (*experiment.Floats)(&sw.Lambdas), "0.1,abc", `lambdas must be numbers: "abc" is not a number`},
		{"lambdas", (*experiment.Floats)(&sw.Lambdas), " ", "lambdas must list 1 to 12 numbers, got 0"},
	} {
		err := ParseValue(tc.name, tc.text, tc.v)
		var se *experiment.SettingError
		if !errors.As(err, &se) || se.Name != tc.name || !strings.HasPrefix(se.Msg, tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.name, tc.text, err, tc.want)
		}
	}
}

// TestNativeByDefault checks the default backend of a page that deeplda
// ui serves: native, unless the URL names one; a link's other settings
// are kept.
func TestNativeByDefault(t *testing.T) {
	q := Query{"demo": {"deep"}, "loss": {"ce"}, "epochs": {"7"}}
	s, _, errs := FromQuery(NativeByDefault(q))
	if len(errs) > 0 || !s.Native || s.Synth.Loss != "ce" || s.Synth.Epochs != 7 {
		t.Errorf("settings %+v (%v), want native with loss ce and 7 epochs", s, errs)
	}
	if q.Has("backend") {
		t.Error("NativeByDefault changed its argument")
	}
	s, _, _ = FromQuery(NativeByDefault(Query{"backend": {"cpu"}}))
	if s.Native {
		t.Error("backend=cpu became native")
	}
}

// TestFirstScreen checks what a page without a query trains: the deep
// demo's losses side by side on the CPU, at once, with the demo's other
// settings; its link names the demo, the backend and the comparison.
func TestFirstScreen(t *testing.T) {
	s, raw := FirstScreen()
	if s.Demo != Deep || !s.Compare || s.Backend != experiment.BackendCPU || !s.Autostart {
		t.Errorf("first screen: demo %s, compare %v, backend %s, autostart %v", s.Demo, s.Compare, s.Backend, s.Autostart)
	}
	if _, errs := Parse(Deep, raw); len(errs) > 0 {
		t.Errorf("the first screen's settings do not parse: %v", errs)
	}
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 3 {
		t.Fatalf("first screen: %d runs, %v", len(jobs), err)
	}
	for i, want := range CompareLosses(Deep) {
		if jobs[i].Synth.Loss != want || jobs[i].Synth.Epochs != Defaults(Deep).Synth.Epochs {
			t.Errorf("run %d: loss %s, %d epochs", i, jobs[i].Synth.Loss, jobs[i].Synth.Epochs)
		}
	}
	q := s.Query()
	if q.Get("demo") != "deep" || q.Get("backend") != "cpu" || q.Get("compare") != "1" {
		t.Errorf("the first screen's query %v", q)
	}
}
