package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// Settings is a complete configuration of the page.
type Settings struct {
	Demo    Demo
	Synth   experiment.SynthConfig
	Image   experiment.ImageConfig // the images demo's run
	Backend experiment.BackendKind
	// Native: the runs train in deeplda ui's native engine (backend=
	// native, offered on a page that deeplda ui serves), whose own
	// -backend then decides; Backend is auto.
	Native    bool
	Compare   bool      // train the demo's losses side by side
	Density   bool      // shade the toy embeddings by the head's log density
	Lambdas   []float64 // the sweep's lambda values
	Autostart bool      // start training when the page loads
	// Model is the trained model of the site to open when the page loads
	// (model=<name>; the images demo then, unless demo says otherwise).
	Model string
}

// Raw holds the text of every field, by field name (the form's values or the
// URL query's).
type Raw map[string]string

// Errors holds a message per field name; the key "" is for a problem that
// belongs to no single field.
type Errors map[string]string

// Err returns the errors as one error, or nil when there are none.
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, e[k])
	}
	return fmt.Errorf("%s", strings.Join(parts, "; "))
}

// Raw returns the text of every field of s.
func (s Settings) Raw() Raw {
	v := s.values()
	r := Raw{}
	for _, f := range Fields {
		r[f.Name] = format(v[f.Name])
	}
	if s.Native {
		r["backend"] = NativeBackend
	}
	return r
}

// Parse reads the fields of raw over the defaults of demo d and validates
// every one of them. Fields missing from raw keep their default. The
// returned Settings hold the valid values; Errors say what is wrong with
// the others, by field (each field is checked alone over the defaults,
// then all of them together).
func Parse(d Demo, raw Raw) (Settings, Errors) {
	s := Defaults(d)
	errs := Errors{}
	for _, f := range Fields {
		text, ok := raw[f.Name]
		if !ok {
			continue
		}
		if err := ownError(d, f, text); err != nil {
			errs[f.Name] = err.Error()
			continue
		}
		if err := s.set(f, text); err != nil {
			errs[f.Name] = err.Error()
		}
	}
	if len(errs) == 0 {
		if bad := s.check(false); len(bad) > 0 {
			errs[fieldOf(bad[0])] = bad[0].Error()
		}
	}
	return s, errs
}

// FromQuery reads the page's configuration from a URL query: demo (a name
// or 1 to 4; when absent, the images demo with model=, else the deep
// demo), autostart=1, model=<name> and the fields.
func FromQuery(q Query) (Settings, Raw, Errors) {
	d := Deep
	if q.Get("model") != "" {
		d = Images
	}
	var demoErr string
	if v := q.Get("demo"); v != "" {
		var ok bool
		if d, ok = ParseDemo(v); !ok {
			demoErr = fmt.Sprintf("unknown demo %q (want classical, deep, images or sweep); showing the Deep LDA demo", v)
		}
	}
	raw := Defaults(d).Raw()
	for _, f := range Fields {
		if q.Has(f.Name) {
			raw[f.Name] = q.Get(f.Name)
		}
	}
	s, errs := Parse(d, raw)
	if demoErr != "" {
		errs["demo"] = demoErr
	}
	s.Autostart = q.Get("autostart") == "1" || q.Get("autostart") == "true"
	s.Model = q.Get("model")
	return s, raw, errs
}

// FirstScreen returns what the page trains when it opens with no URL
// query: the deep demo's three losses side by side on the CPU (which
// starts at once, with no adapter to probe), started at once, so that
// the first screen shows figures moving rather than a form.
func FirstScreen() (Settings, Raw) {
	s := Defaults(Deep)
	s.Compare, s.Backend, s.Autostart = true, experiment.BackendCPU, true
	return s, s.Raw()
}

// Query returns the URL query that reproduces s: the demo, the model to
// open and every field that differs from the demo's defaults (autostart is
// left out).
func (s Settings) Query() Query {
	q := Query{}
	q.Set("demo", string(s.Demo))
	if s.Model != "" {
		q.Set("model", s.Model)
	}
	def, cur := Defaults(s.Demo).Raw(), s.Raw()
	for _, f := range Fields {
		if cur[f.Name] != def[f.Name] {
			q.Set(f.Name, cur[f.Name])
		}
	}
	return q
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// RawQuery returns the URL query of a form's text as typed: the demo and
// every field whose text differs from the demo's defaults, so that a link
// reproduces the form, mistakes included.
func RawQuery(d Demo, raw Raw) Query {
	q := Query{}
	q.Set("demo", string(d))
	def := Defaults(d).Raw()
	for _, f := range Fields {
		if v, ok := raw[f.Name]; ok && strings.TrimSpace(v) != def[f.Name] {
			q.Set(f.Name, strings.TrimSpace(v))
		}
	}
	return q
}
