package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/kernels"
)

// Kind is the type of a setting's value.
type Kind int

// Setting kinds.
const (
	KindChoice Kind = iota // one of Setting.Choices (a string, or a BackendKind)
	KindInt                // a whole number
	KindUint               // a whole number >= 0
	KindFloat              // a real number
	KindBool               // on or off
	KindText               // free text (a file or folder)
	KindFloats             // comma-separated real numbers
)

// Setting is one setting of the experiments, declared once with what the
// core knows of it: its name, the type of its value, its bounds and what it
// does. The front ends hold what is theirs (the commands that take it as a
// flag and their own wording in cmd/deeplda, the page's labels, demos and
// bounds in wasm/config)
// and bind it to a configuration's variable (see Values); a
// configuration's Validate checks it.
type Setting struct {
	Name    string   // the flag's name without its dash, the URL parameter and the form field
	Kind    Kind     // the value's type
	Choices []string // KindChoice: the values allowed, in the page's order
	// Min and Max bound a KindInt's value on every front end (Max 0: no
	// bound); Max also bounds the number of values of a KindFloats, or of
	// a KindText that lists numbers (the suite's sizes and batches). The
	// memory a run needs bounds the sizes further (CheckMemory).
	Min, Max int
	// Doc says what the setting does, in words every front end shows (the
	// command's help, the page's hint) unless it words it its own way.
	Doc string
	// Check, when set, checks the setting's value (its variable, as Values
	// says) beyond its kind and bounds.
	Check func(v any) error
	// Var, when set, returns the setting's variable in config, a pointer
	// to a configuration (a pointer as Values says), or nil when the
	// configuration has none; unset, the configuration's settingVars says.
	// The variable binds the setting to the command's flags and the page's
	// fields, is validated (checkSettings) and written to report.json
	// (marshalSettings).
	Var func(config any) any
}

// settingBinder is a configuration that binds its settings: the variable
// of each, by the setting's Name.
type settingBinder interface{ settingVars() map[string]any }

// varIn returns the variable of s in config, or nil.
func (s Setting) varIn(config any) any {
	if s.Var != nil {
		return s.Var(config)
	}
	if c, ok := config.(settingBinder); ok {
		return c.settingVars()[s.Name]
	}
	return nil
}

// Key is the setting's key in JSON (report.json's config, the resume
// file's, the run protocol's): its name in snake case.
func (s Setting) Key() string { return strings.ReplaceAll(s.Name, "-", "_") }

// names returns the spellings of values.
func names(v ...fmt.Stringer) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = x.String()
	}
	return out
}

// setting returns the setting called name; it panics for an unknown name
// (a mistake in the program, not in the input).
func setting(name string) Setting {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Name == name })
	if i < 0 {
		panic("experiment: unknown setting " + name)
	}
	return Settings[i]
}

// SettingError is a bad value of one setting. Msg is a sentence without
// flag syntax ("epochs must be at least 1, got 0"); each front end shows it
// its own way (the command as "-epochs ...", the page under the field).
type SettingError struct {
	Name string // the setting at fault
	Msg  string
}

func (e *SettingError) Error() string { return e.Msg }

// settingError returns a SettingError for the setting name.
func settingError(name, format string, a ...any) error {
	return &SettingError{Name: name, Msg: fmt.Sprintf(format, a...)}
}

// orList joins values as "a, b or c".
func orList(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// checkChoice checks that v is one of the choices of the setting name.
func checkChoice(name, v string) error { return setting(name).checkChoice(v) }

// checkChoice checks that v is one of the choices of s.
func (s Setting) checkChoice(v string) error {
	if !slices.Contains(s.Choices, v) {
		return settingError(s.Name, "%s must be %s, got %q", s.Name, orList(s.Choices), v)
	}
	return nil
}

// checkInt checks the whole number v of s against its bounds (Min, and
// Max when set).
func (s Setting) checkInt(v int) error {
	if err := checkAtLeast(s.Name, v, s.Min); err != nil || s.Max == 0 || v <= s.Max {
		return err
	}
	return settingError(s.Name, "%s must be at most %d, got %d", s.Name, s.Max, v)
}

// checkAtLeast checks that the whole-number setting name is at least lo.
func checkAtLeast(name string, v, lo int) error {
	switch {
	case v >= lo:
		return nil
	case lo == 0:
		return settingError(name, "%s must be >= 0, got %d", name, v)
	}
	return settingError(name, "%s must be at least %d, got %d", name, lo, v)
}

// checkSettings checks, in the table's order, every setting that config
// (a pointer to a configuration) has: its Check, then its kind's rule (a
// choice is one of its Choices, a whole number lies within Min and Max).
// It returns the first error, a *SettingError.
func checkSettings(config any) error {
	for _, s := range Settings {
		p := s.varIn(config)
		if p == nil {
			continue
		}
		if s.Check != nil {
			if err := asSetting(s.Name, s.Check(p)); err != nil {
				return err
			}
		}
		var err error
		switch v := p.(type) {
		case *string:
			if s.Kind == KindChoice {
				err = s.checkChoice(*v)
			}
		case *int:
			err = s.checkInt(*v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBNRecalibrate checks the number of BatchNorm recalibration batches
// (v, an *int) for its automatic value, below its bound.
func checkBNRecalibrate(v any) error {
	if n := *v.(*int); n < BNAuto {
		return fmt.Errorf("bn-recalibrate must be a number of batches >= 0, or -1 for the automatic rule; got %d", n)
	}
	return nil
}

// asSetting makes err, when not nil, a SettingError of the setting name
// (err itself when it is one).
func asSetting(name string, err error) error {
	var se *SettingError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &SettingError{Name: name, Msg: err.Error()}
}

// CheckLambdas checks the lambda values of a sweep: at least one, each a
// finite number > 0 (the sweep's axis is logarithmic), none twice (it would
// train the same runs twice).
func CheckLambdas(l []float64) error {
	if len(l) == 0 {
		return settingError("lambdas", "lambdas is empty")
	}
	if len(l) > maxLambdas {
		return settingError("lambdas", "lambdas must list at most %d values, got %d", maxLambdas, len(l))
	}
	for i, x := range l {
		if !(x > 0) || math.IsInf(x, 0) {
			return settingError("lambdas", "every lambda must be a finite number > 0 (the axis is logarithmic), got %v", x)
		}
		if slices.Contains(l[:i], x) {
			return settingError("lambdas", "lambdas lists %v twice; each lambda is trained once", x)
		}
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BackendKind is the choice of a compute backend.
type BackendKind string

// The backend choices.
const (
	BackendCPU    BackendKind = "cpu"
	BackendWebGPU BackendKind = "webgpu"
	BackendAuto   BackendKind = "auto" // WebGPU on a usable adapter, else the CPU
)

// ParseBackend reads a backend choice: cpu, webgpu or auto.
func ParseBackend(s string) (BackendKind, error) {
	if err := checkChoice("backend", s); err != nil {
		return "", err
	}
	return BackendKind(s), nil
}

// BackendOf returns the kind of an open backend (BackendCPU or
// BackendWebGPU), by its Info().Name.
func BackendOf(be kernels.Backend) BackendKind { return BackendKind(be.Info().Name) }

func (k BackendKind) String() string { return string(k) }

// Set parses a backend choice (flag.Value).
func (k *BackendKind) Set(s string) error {
	v, err := ParseBackend(s)
	if err == nil {
		*k = v
	}
	return err
}

// Floats is a list of numbers written comma-separated (flag.Value).
type Floats []float64

func (l *Floats) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// Set parses a list separated by commas, semicolons or spaces.
func (l *Floats) Set(v string) error {
	var out Floats
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		out = append(out, x)
	}
	*l = out
	return nil
}

// Values are the variables that hold settings, by setting name: a
// *string, *int, *uint64, *float64, *bool, *BackendKind or *Floats as the
// setting's Kind says.
type Values map[string]any

// Bind returns the variables of the settings that configs (pointers to
// configurations) have, by name; where two have one setting, the first's.
func Bind(configs ...any) Values {
	out := Values{}
	for _, c := range configs {
		for _, s := range Settings {
			if p := s.varIn(c); p != nil && out[s.Name] == nil {
				out[s.Name] = p
			}
		}
	}
	return out
}

// Bind returns the variables of the toy experiment's settings in c.
func (c *SynthConfig) Bind() Values { return Bind(c) }

// Bind returns the variables of the image experiment's settings in c.
func (c *ImageConfig) Bind() Values { return Bind(c) }

// Bind returns the variables of the sweep's settings in c: the lambdas
// and seeds, and its base run's.
func (c *SweepConfig) Bind() Values { return Bind(c, &c.Base) }

// Bind returns the variables of the evaluation's settings in c.
func (c *EvalConfig) Bind() Values { return Bind(c, &c.OODConfig) }

// Bind returns the variables of the benchmark's settings in c.
func (c *BenchConfig) Bind() Values { return Bind(c) }

// Bind returns the variables of the out-of-distribution settings in c.
func (c *OODConfig) Bind() Values { return Bind(c) }

// marshalSettings writes the settings that config (a pointer to a
// configuration) has as a JSON object, in the table's order: each under
// its Key, a bool only when it is on.
func marshalSettings(config any) ([]byte, error) {
	b := []byte{'{'}
	for _, s := range Settings {
		p := s.varIn(config)
		if on, ok := p.(*bool); p == nil || ok && !*on {
			continue
		}
		v, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s.Key())
		b = append(append(b, ':'), v...)
	}
	return append(b, '}'), nil
}

// unmarshalSettings reads the JSON object b, as marshalSettings writes
// it, into config: each setting config has whose Key b holds (others keep
// their value; keys of no setting are ignored).
func unmarshalSettings(b []byte, config any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, s := range Settings {
		raw, ok := m[s.Key()]
		if p := s.varIn(config); p != nil && ok {
			if err := json.Unmarshal(raw, p); err != nil {
				return fmt.Errorf("%s: %w", s.Key(), err)
			}
		}
	}
	return nil
}

// MarshalJSON writes c's settings (marshalSettings).
func (c SynthConfig) MarshalJSON() ([]byte, error) { return marshalSettings(&c) }

// UnmarshalJSON reads c's settings (unmarshalSettings).
func (c *SynthConfig) UnmarshalJSON(b []byte) error { return unmarshalSettings(b, c) }

// MarshalJSON writes c's settings (marshalSettings).
func (c ImageConfig) MarshalJSON() ([]byte, error) { return marshalSettings(&c) }

// UnmarshalJSON reads c's settings (unmarshalSettings).
func (c *ImageConfig) UnmarshalJSON(b []byte) error { return unmarshalSettings(b, c) }
