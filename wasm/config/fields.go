package config

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// Control is the kind of form control of a field.
type Control int

// Control kinds.
const (
	Select Control = iota
	Number
	Text
	Checkbox
)

// PageDoc is how the page shows a setting of experiment.Settings.
type PageDoc struct {
	Label string // the field's label
	// Demos are the demos that show the field; nil: a URL parameter
	// only. A field hidden in a demo keeps its value and is still read
	// from the URL.
	Demos []Demo
	// Advanced fields sit in the collapsed "more settings" group.
	Advanced bool
	// Hint replaces the setting's Doc as the control's hint where the page
	// says more of it.
	Hint string
	// PageMax is the largest value the page accepts, below the setting's
	// Max (a tab has far less memory than a native process): for a
	// KindInt, the value; for KindFloats, the number of values. 0: Max.
	PageMax int
}

// The demo lists of the fields.
var (
	allDemos  = []Demo{Classical, Deep, Images, Sweep}
	toyDemos  = []Demo{Classical, Deep, Sweep}
	imageOnly = []Demo{Images}
	lossDemos = []Demo{Classical, Deep, Images}
)

// docs are the settings the page reads, by name: the form's fields and
// the benchmark's URL parameters (see pageDoc for a setting it lacks).
var docs = map[string]PageDoc{
	"data": {Label: "Data set", Demos: imageOnly,
		Hint: "the image data set: hosted by this site, or from files you choose below"},
	"head":    {Label: "Head", Demos: imageOnly},
	"loss":    {Label: "Loss", Demos: lossDemos},
	"compare": {Label: "Side by side", Demos: lossDemos},
	"lambda":  {Label: "λ (DNLL)", Demos: lossDemos},
	"lambdas": {Label: "λ values", Demos: []Demo{Sweep}, PageMax: 12},
	"cov":     {Label: "Covariance", Demos: allDemos},
	"epochs":  {Label: "Epochs", Demos: allDemos},
	"batch":   {Label: "Batch", Demos: allDemos},
	"limit-train": {Label: "Training images", Demos: imageOnly, PageMax: 1000000,
		Hint: "train on the first N training images (0: all; on the CPU the page trains some 20-30 images a second with WebAssembly SIMD, a few without)"},
	"limit-test":  {Label: "Test images", Demos: imageOnly, PageMax: 1000000},
	"seed":        {Label: "Seed", Demos: allDemos},
	"backend":     {Label: "Backend", Demos: allDemos},
	"density":     {Label: "Log density shading", Demos: []Demo{Classical, Deep}},
	"lr":          {Label: "Learning rate", Demos: allDemos, Advanced: true},
	"freeze-head": {Label: "Freeze the head", Demos: imageOnly, Advanced: true},
	"encoder":     {Label: "Encoder", Demos: toyDemos, Advanced: true},
	"train":       {Label: "Training points", Demos: toyDemos, Advanced: true, PageMax: 1000000},
	"test":        {Label: "Test points", Demos: toyDemos, Advanced: true, PageMax: 1000000},
	"data-seed":   {Label: "Data seed", Demos: toyDemos, Advanced: true},
	"steps":       {PageMax: 10_000},
	// The image run's settings that the page does not offer: it reads the
	// data from the site or the files chosen, holds out no images, and
	// keeps the automatic rules.
	"datadir": {}, "val": {}, "augment": {}, "bn-recalibrate": {}, "bn-history": {}, "eval-batch": {},
}

// pageDoc returns how the page shows the setting s: its docs, or, for a
// setting without, a field in the advanced group, labelled by its name,
// of the demos whose runs have it (the image run's: the images demo; the
// toy run's: the others).
func pageDoc(s experiment.Setting) PageDoc {
	if d, ok := docs[s.Name]; ok {
		return d
	}
	d := PageDoc{Label: s.Name, Advanced: true}
	if experiment.Bind(new(experiment.ImageConfig))[s.Name] != nil {
		d.Demos = append(d.Demos, imageOnly...)
	}
	if experiment.Bind(new(experiment.SynthConfig))[s.Name] != nil {
		d.Demos = append(d.Demos, toyDemos...)
	}
	return d
}

// Field is one setting of experiment.Settings as the page shows it: its
// name is the query key and the control's name.
type Field struct {
	experiment.Setting
	PageDoc
	Help    string // the control's hint: the page's Hint, else the setting's Doc
	Control Control
	// Step is the number input's step attribute ("any" for reals).
	Step string
}

// Fields lists the page's settings (those of experiment.Settings that a
// demo shows) in the order of the form, which is the table's.
var Fields = pageFields()

// pageFields makes the page's fields from the settings table and docs.
func pageFields() []Field {
	var out []Field
	for _, s := range experiment.Settings {
		d := pageDoc(s)
		if d.Demos == nil {
			continue
		}
		f := Field{Setting: s, PageDoc: d, Help: cmp.Or(d.Hint, s.Doc)}
		switch s.Kind {
		case experiment.KindChoice:
			f.Control = Select
		case experiment.KindBool:
			f.Control = Checkbox
		case experiment.KindInt, experiment.KindUint:
			f.Control, f.Step = Number, "1"
		case experiment.KindFloat:
			f.Control, f.Step = Number, "any"
		default:
			f.Control = Text
		}
		out = append(out, f)
	}
	return out
}

// Shown reports whether f's control appears in demo d.
func (f Field) Shown(d Demo) bool {
	return Info(d).Trainable && slices.Contains(f.Demos, d)
}

// ParseValue reads the text of the setting name into the variable v (a
// pointer as experiment.Values says), as the page's form and URL give it
// (see Field.Parse).
func ParseValue(name, text string, v any) error {
	i := slices.IndexFunc(experiment.Settings, func(s experiment.Setting) bool { return s.Name == name })
	if i < 0 {
		panic("config: unknown setting " + name)
	}
	return Field{Setting: experiment.Settings[i], PageDoc: pageDoc(experiment.Settings[i])}.Parse(text, v)
}

// NativeBackend is the backend field's choice of deeplda ui's native
// engine, beside the backends of the tab's own.
const NativeBackend = "native"

// NativeByDefault returns q with backend native where q names no backend:
// the default of a page that deeplda ui serves, whose user came for the
// native engine.
func NativeByDefault(q Query) Query {
	if q.Has("backend") {
		return q
	}
	out := Query{}
	for k, v := range q {
		out[k] = v
	}
	out.Set("backend", NativeBackend)
	return out
}

// Parse reads text into the variable v of field f (a pointer as
// experiment.Values says): choices are case-insensitive, a Bool is 1/0,
// true/false, on/off or yes/no. The error names the setting; the value is
// not checked beyond its type (the configurations' Validate does that)
// except against PageMax.
func (f Field) Parse(text string, v any) error {
	text = strings.TrimSpace(text)
	bad := func(format string, a ...any) error {
		return &experiment.SettingError{Name: f.Name, Msg: fmt.Sprintf(format, a...)}
	}
	switch p := v.(type) {
	case *string:
		if f.Kind == experiment.KindChoice {
			text = strings.ToLower(text)
		}
		*p = text
	case *experiment.BackendKind:
		return p.Set(strings.ToLower(text))
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return bad("%s must be a whole number, got %q", f.Name, text)
		}
		if f.PageMax > 0 && n > f.PageMax {
			return bad("%s must be at most %d in the browser, got %d", f.Name, f.PageMax, n)
		}
		*p = n
	case *uint64:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return bad("%s must be a whole number >= 0, got %q", f.Name, text)
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad("%s must be a number, got %q", f.Name, text)
		}
		*p = x
	case *bool:
		switch strings.ToLower(text) {
		case "1", "true", "on", "yes":
			*p = true
		case "0", "false", "off", "no", "":
			*p = false
		default:
			return bad("%s must be 1 or 0, got %q", f.Name, text)
		}
	case *experiment.Floats:
		var l experiment.Floats
		if err := l.Set(text); err != nil {
			return bad("%s must be numbers: %v", f.Name, err)
		}
		if len(l) == 0 || f.PageMax > 0 && len(l) > f.PageMax {
			return bad("%s must list 1 to %d numbers, got %d", f.Name, f.PageMax, len(l))
		}
		*p = l
	default:
		panic(fmt.Sprintf("config: setting %s bound to a %T", f.Name, v))
	}
	return nil
}

// format returns the text of the variable v (a pointer as
// experiment.Values says), as Parse reads it.
func format(v any) string {
	switch p := v.(type) {
	case *string:
		return *p
	case *experiment.BackendKind:
		return string(*p)
	case *int:
		return strconv.Itoa(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *bool:
		if *p {
			return "1"
		}
		return "0"
	case *experiment.Floats:
		return p.String()
	}
	panic(fmt.Sprintf("config: format of a %T", v))
}
