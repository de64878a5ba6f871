package config

import (
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// Job is one training run of a session: a label for its panel and the toy
// configuration it trains.
type Job struct {
	Label string
	Synth experiment.SynthConfig
	// Image is the image run's configuration (the images demo), or nil.
	Image *experiment.ImageConfig
}

// Jobs returns the runs that s trains, in order: one run, or one per loss
// (for images, one per head) side by side, or one per lambda in the sweep
// (DNLL). It returns an error
// for a demo without a trainer.
func (s Settings) Jobs() ([]Job, error) {
	switch {
	case !Info(s.Demo).Trainable:
		return nil, fmt.Errorf("the %s demo is not available in this version", Info(s.Demo).Title)
	case s.Demo == Images && s.Compare:
		// Both heads, the LDA one with DNLL, on the same images and seed.
		var jobs []Job
		for _, head := range experiment.CompareHeads {
			c := s.Image
			c.Loss = ""
			jobs = append(jobs, imageJob(experiment.CompareConfig(c, head)))
		}
		return jobs, nil
	case s.Demo == Images:
		return []Job{imageJob(s.Image)}, nil
	case s.Demo == Sweep:
		jobs := make([]Job, len(s.Lambdas))
		for i, l := range s.Lambdas {
			c := s.Synth
			c.Loss, c.Lambda = "dnll", l
			jobs[i] = Job{Label: "λ = " + formatFloat(l), Synth: c}
		}
		return jobs, nil
	case s.Compare:
		var jobs []Job
		for _, l := range CompareLosses(s.Demo) {
			c := s.Synth
			c.Loss = l
			jobs = append(jobs, Job{Label: LossLabel(c), Synth: c})
		}
		return jobs, nil
	}
	return []Job{{Label: LossLabel(s.Synth), Synth: s.Synth}}, nil
}

// imageJob returns the job of the image run c, with the held-out images a
// softmax head fits temperature scaling on (experiment.WithHeldOut).
func imageJob(c experiment.ImageConfig) Job {
	c = experiment.WithHeldOut(c)
	return Job{Label: ImageLabel(c), Image: &c}
}

// LossLabel names the loss of c for a panel: "NLL", "CE" or "DNLL, λ = 0.01".
func LossLabel(c experiment.SynthConfig) string {
	l := strings.ToUpper(c.Loss)
	if c.Loss == "dnll" {
		l += ", λ = " + formatFloat(c.Lambda)
	}
	return l
}

// ImageLabel names an image run: "fashion-mnist, LDA (spherical), DNLL, λ = 0.01".
func ImageLabel(c experiment.ImageConfig) string {
	c = c.Resolved()
	head := "softmax head"
	if c.Head == "lda" {
		head = "LDA (" + c.Cov + ")"
	}
	loss := strings.ToUpper(c.Loss)
	if c.Loss == "dnll" {
		loss += ", λ = " + formatFloat(c.Lambda)
	}
	return c.Data + ", " + head + ", " + loss
}
