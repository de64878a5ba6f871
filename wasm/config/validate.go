package config

import (
	"errors"
	"slices"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// values returns the variables of s that hold each field: the page's own
// (backend, compare, density, lambdas), then those of the demo's
// configuration (the image run's in the images demo, else the toy run's),
// then the other's.
func (s *Settings) values() experiment.Values {
	v := experiment.Values{"backend": &s.Backend, "compare": &s.Compare, "density": &s.Density, "lambdas": (*experiment.Floats)(&s.Lambdas)}
	first, second := s.Synth.Bind(), s.Image.Bind()
	if s.Demo == Images {
		first, second = second, first
	}
	for _, m := range []experiment.Values{second, first} {
		for k, p := range m {
			v[k] = p
		}
	}
	return v
}

// set reads the text of field f into s.
func (s *Settings) set(f Field, text string) error {
	if f.Name == "backend" {
		s.Native = strings.EqualFold(strings.TrimSpace(text), NativeBackend)
		if s.Native {
			s.Backend = experiment.BackendAuto
			return nil
		}
	}
	return f.Parse(text, s.values()[f.Name])
}

// check checks s with the rules of the native command
// (experiment.SynthConfig.Validate, ImageConfig.Validate and the sweep's
// CheckLambdas) and against the page's memory (PageMemory), and returns
// the errors. With all, both runs are checked
// whatever the demo (a field of the other demo keeps its value).
func (s *Settings) check(all bool) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if all || s.Demo != Images {
		add(checkIn(s.Synth, PageMemory))
	}
	if all || s.Demo == Images {
		add(checkIn(s.Image, PageMemory))
	}
	if all || s.Demo == Sweep {
		add(experiment.CheckLambdas(s.Lambdas))
	}
	return errs
}

// PageMemory is what a run in the page may take: a tab's WebAssembly
// memory is at most 4 GiB, and the page itself, the data set and the
// figures need the rest.
var PageMemory = experiment.Memory{Bytes: 3 << 30, Of: "the page's WebAssembly memory"}

// runConfig is a run's configuration: experiment.SynthConfig or
// ImageConfig.
type runConfig interface {
	Validate() error
	CheckMemory(experiment.Memory) error
}

// checkIn validates c, then checks that its run fits in mem.
func checkIn(c runConfig, mem experiment.Memory) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return c.CheckMemory(mem)
}

// fieldOf returns the page field that err names, or "" (no single field).
func fieldOf(err error) string {
	var se *experiment.SettingError
	if errors.As(err, &se) && slices.ContainsFunc(Fields, func(f Field) bool { return f.Name == se.Name }) {
		return se.Name
	}
	return ""
}

// ownError returns the error that changing field f alone (to text, over
// the defaults of demo d) makes, or nil: an error naming another setting
// (the head and its loss) is left to the check of all fields together.
func ownError(d Demo, f Field, text string) error {
	one := Defaults(d)
	if err := one.set(f, text); err != nil {
		return err
	}
	for _, err := range one.check(true) {
		if fieldOf(err) == f.Name {
			return err
		}
	}
	return nil
}
