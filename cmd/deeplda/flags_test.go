package main

import (
	"errors"
	"flag"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestFlagsFollowTheTable walks settings and flagDocs: every
// doc is of a setting and has help for each of its commands, each
// command's flags, as its -h lists them, are exactly the settings whose
// docs name the command, and a choice's default is one of its choices (or
// "", the automatic choice of train's -loss).
func TestFlagsFollowTheTable(t *testing.T) {
	for name, d := range flagDocs {
		i := slices.IndexFunc(settings(), func(s experiment.Setting) bool { return s.Name == name })
		if i < 0 {
			t.Errorf("flagDocs: %s is no setting", name)
			continue
		}
		for _, cmd := range d.Commands {
			if h := d.help(cmd, settings()[i]); h == "" || !slices.Contains(allCmds, cmd) {
				t.Errorf("flagDocs: %s in %q has help %q", name, cmd, h)
			}
		}
		for cmd, h := range d.CmdHelp {
			if !slices.Contains(d.Commands, cmd) || h == settings()[i].Doc {
				t.Errorf("flagDocs: %s's help in %q is never shown or repeats the setting's Doc", name, cmd)
			}
		}
	}
	flagLine := regexp.MustCompile(`(?m)^  -(\S+)`)
	for _, cmd := range []string{cmdSynth, cmdTrain, cmdSweep, cmdEval, cmdBench} {
		code, _, stderr := runCmd(t, cmd, "-h")
		if code != 0 {
			t.Fatalf("%s -h: exit %d", cmd, code)
		}
		var got, want []string
		for _, m := range flagLine.FindAllStringSubmatch(stderr, -1) {
			got = append(got, m[1])
		}
		for name, d := range flagDocs {
			if slices.Contains(d.Commands, cmd) {
				want = append(want, name)
			}
		}
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: flags %v, the table says %v", cmd, got, want)
		}
	}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	c := experiment.DefaultImages()
	backend := experiment.BackendAuto
	flags(fs, cmdTrain, c.Bind(), (&output{}).bind(), (&experiment.OODConfig{}).Bind(), experiment.Values{"fetch": new(bool), "compare": new(bool), "backend": &backend})
	for _, s := range settings() {
		if f := fs.Lookup(s.Name); f != nil && s.Kind == experiment.KindChoice && f.DefValue != "" && !slices.Contains(s.Choices, f.DefValue) {
			t.Errorf("train -%s: default %q is not one of %v", s.Name, f.DefValue, s.Choices)
		}
	}
}

func TestFlagMessage(t *testing.T) {
	noEncoder := experiment.DefaultSynth()
	noEncoder.Encoder = ""
	for _, tc := range []struct {
		err  error
		want string
	}{
		{noEncoder.Validate(), `-encoder must be mlp or none, got ""`},
		{experiment.CheckLambdas(nil), "-lambdas is empty"},
		{experiment.BenchConfig{Model: "mlp", Batch: 1, Size: 1, Steps: 1}.Validate(), "<nil>"},
		{errors.New("plain"), "plain"},
	} {
		got := "<nil>"
		if tc.err != nil {
			got = flagMessage(tc.err)
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	c := experiment.DefaultSynth()
	c.LR = 0
	if got := flagMessage(c.Validate()); got != "-lr: learning rate must be a finite number > 0, got 0" {
		t.Errorf("lr: %q", got)
	}
}
