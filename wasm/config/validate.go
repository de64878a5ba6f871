package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
)

// MaxPoints is the largest training or test set the page accepts (a tab
// has far less memory than a native process).
const MaxPoints = 1_000_000

// MaxLambdas is the largest number of values in a sweep.
const MaxLambdas = 12

// Backends are the values of the backend field.
var Backends = []string{"auto", "webgpu", "cpu"}

// check validates a toy configuration with the rules of the native command:
// experiment.SynthConfig.Validate, then model.Spec.Validate on the model it
// builds (lambda and the learning rate).
func check(c experiment.SynthConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	spec, err := experiment.SynthSpec(c)
	if err != nil {
		return err
	}
	return spec.Validate()
}

// checkOne validates one changed setting against the demo's defaults, so
// that an error is attributed to the field that caused it. The message
// drops the leading dash of the flag names ("-epochs must ...").
func checkOne(d Demo, set func(*experiment.SynthConfig)) error {
	c := Defaults(d).Synth
	set(&c)
	if err := check(c); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "-"))
	}
	return nil
}

// setField parses the text v of field name into s and validates it.
func setField(d Demo, s *Settings, name, v string) error {
	c := &s.Synth
	switch name {
	case "encoder", "loss", "cov":
		v = strings.ToLower(v)
		set := func(x *experiment.SynthConfig) {
			switch name {
			case "encoder":
				x.Encoder = v
			case "loss":
				x.Loss = v
			case "cov":
				x.Cov = v
			}
		}
		if err := checkOne(d, set); err != nil {
			return err
		}
		set(c)
	case "lambda", "lr":
		x, err := parseFloat(name, v)
		if err != nil {
			return err
		}
		set := func(c *experiment.SynthConfig) { c.Lambda = x }
		if name == "lr" {
			set = func(c *experiment.SynthConfig) { c.LR = x }
		}
		if err := checkOne(d, set); err != nil {
			return err
		}
		set(c)
	case "epochs", "batch", "train", "test":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s must be a whole number, got %q", name, v)
		}
		set := func(x *experiment.SynthConfig) { *intField(x, name) = n }
		if err := checkOne(d, set); err != nil {
			return err
		}
		if (name == "train" || name == "test") && n > MaxPoints {
			return fmt.Errorf("the browser trainer takes at most %d %s points, got %d", MaxPoints, name, n)
		}
		set(c)
	case "seed", "data-seed":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s must be a whole number >= 0, got %q", name, v)
		}
		if name == "seed" {
			c.Seed = n
		} else {
			c.DataSeed = n
		}
	case "backend":
		v = strings.ToLower(v)
		for _, b := range Backends {
			if v == b {
				s.Backend = v
				return nil
			}
		}
		return fmt.Errorf("backend must be cpu, webgpu or auto, got %q", v)
	case "compare":
		switch strings.ToLower(v) {
		case "1", "true", "on", "yes":
			s.Compare = true
		case "0", "false", "off", "no", "":
			s.Compare = false
		default:
			return fmt.Errorf("compare must be 1 or 0, got %q", v)
		}
	case "lambdas":
		l, err := parseLambdas(d, v)
		if err != nil {
			return err
		}
		s.Lambdas = l
	case "data", "head", "limit-train", "limit-test":
		// The image settings, kept while another demo is shown.
		return setImageField(d, s, name, v)
	default:
		panic("config: unknown field " + name)
	}
	return nil
}

// intField returns the integer setting of c named by a field.
func intField(c *experiment.SynthConfig, name string) *int {
	switch name {
	case "epochs":
		return &c.Epochs
	case "batch":
		return &c.Batch
	case "train":
		return &c.Train
	}
	return &c.Test
}

// parseFloat parses a real number, naming the field in the error.
func parseFloat(name, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s must be a number, got %q", name, v)
	}
	return x, nil
}

// parseLambdas parses a comma- or space-separated list of lambda values.
func parseLambdas(d Demo, v string) ([]float64, error) {
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
	if len(fields) == 0 || len(fields) > MaxLambdas {
		return nil, fmt.Errorf("lambdas must list 1 to %d numbers, got %d", MaxLambdas, len(fields))
	}
	out := make([]float64, 0, len(fields))
	for _, f := range fields {
		x, err := parseFloat("each λ", f)
		if err != nil {
			return nil, err
		}
		if err := checkOne(d, func(c *experiment.SynthConfig) { c.Lambda = x }); err != nil {
			return nil, err
		}
		if x == 0 {
			// As the native sweep (experiment.SweepConfig.Validate).
			return nil, fmt.Errorf("every λ of a sweep must be > 0 (the axis is logarithmic), got %v", x)
		}
		out = append(out, x)
	}
	return out, nil
}

// MaxImages is the largest limit-train or limit-test the page accepts.
const MaxImages = 1_000_000

// checkImage validates an image configuration with the rules of the native
// command (experiment.ImageConfig.Validate, then model.Spec.Validate on the
// ConvNet it builds).
func checkImage(c experiment.ImageConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	ds, _ := images.Lookup(c.Data)
	spec, err := experiment.ImageSpec(c, ds.Shape, ds.Classes)
	if err != nil {
		return err
	}
	return spec.Validate()
}

// checkOneImage validates one changed image setting against the image
// demo's defaults (see checkOne).
func checkOneImage(set func(*experiment.ImageConfig)) error {
	c := DefaultImage()
	set(&c)
	if err := checkImage(c); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "-"))
	}
	return nil
}

// setImageField parses the text v of field name into the image settings
// of s; the fields of the toy data only (and the backend) go to setField.
func setImageField(d Demo, s *Settings, name, v string) error {
	c := &s.Image
	switch name {
	case "data", "head", "loss", "cov":
		v = strings.ToLower(v)
		set := func(x *experiment.ImageConfig) {
			switch name {
			case "data":
				x.Data = v
			case "head":
				x.Head = v
			case "loss":
				x.Loss = v
			case "cov":
				x.Cov = v
			}
		}
		// The head and the loss are checked together by Parse.
		if name != "head" && name != "loss" {
			if err := checkOneImage(set); err != nil {
				return err
			}
		} else if err := checkOneImage(func(x *experiment.ImageConfig) {
			set(x)
			x.Head, x.Loss = "lda", "dnll"
			set(x)
			if name == "head" && v == "softmax" {
				x.Loss = "ce"
			}
		}); err != nil {
			return err
		}
		set(c)
	case "lambda", "lr":
		x, err := parseFloat(name, v)
		if err != nil {
			return err
		}
		set := func(c *experiment.ImageConfig) { c.Lambda = x }
		if name == "lr" {
			set = func(c *experiment.ImageConfig) { c.LR = x }
		}
		if err := checkOneImage(set); err != nil {
			return err
		}
		set(c)
	case "epochs", "batch", "limit-train", "limit-test":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s must be a whole number, got %q", name, v)
		}
		set := func(x *experiment.ImageConfig) {
			switch name {
			case "epochs":
				x.Epochs = n
			case "batch":
				x.Batch = n
			case "limit-train":
				x.LimitTrain = n
			default:
				x.LimitTest = n
			}
		}
		if err := checkOneImage(set); err != nil {
			return err
		}
		if strings.HasPrefix(name, "limit") && n > MaxImages {
			return fmt.Errorf("the browser trainer takes at most %d images, got %s %d", MaxImages, name, n)
		}
		set(c)
	case "seed":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s must be a whole number >= 0, got %q", name, v)
		}
		c.Seed = n
	default:
		return setField(d, s, name, v)
	}
	return nil
}
