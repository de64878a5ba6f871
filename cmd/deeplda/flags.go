package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// flags registers on fs the flags of the command cmd: one per setting of
// settings whose flagDocs list cmd, or that has no flagDocs and a variable
// in vs, bound to its variable in vs (the first that has it), with that
// variable's value as the default.
func flags(fs *flag.FlagSet, cmd string, vs ...experiment.Values) {
	for _, s := range settings() {
		i := slices.IndexFunc(vs, func(v experiment.Values) bool { return v[s.Name] != nil })
		doc, ok := flagDocs[s.Name]
		if ok && !slices.Contains(doc.Commands, cmd) || !ok && i < 0 {
			continue
		}
		if i < 0 {
			panic(fmt.Sprintf("deeplda %s: no variable for the setting %s", cmd, s.Name))
		}
		help := doc.help(cmd, s)
		switch p := vs[i][s.Name].(type) {
		case *string:
			if s.Kind == experiment.KindChoice {
				fs.Var((*choice)(p), s.Name, help) // choices are case-insensitive, as on the page
				continue
			}
			fs.StringVar(p, s.Name, *p, help)
		case *int:
			fs.IntVar(p, s.Name, *p, help)
		case *uint64:
			fs.Uint64Var(p, s.Name, *p, help)
		case *float64:
			fs.Float64Var(p, s.Name, *p, help)
		case *bool:
			fs.BoolVar(p, s.Name, *p, help)
		case flag.Value:
			fs.Var(p, s.Name, help)
		default:
			panic(fmt.Sprintf("deeplda %s: the setting %s is bound to a %T", cmd, s.Name, p))
		}
	}
}

// flagMessage words err for the command line: the message of a bad
// setting names its flag ("-epochs must be at least 1, got 0", "-lr:
// learning rate must be ...").
func flagMessage(err error) string {
	var se *experiment.SettingError
	if !errors.As(err, &se) {
		return err.Error()
	}
	msg := "-" + se.Name + ": " + se.Msg
	if strings.HasPrefix(se.Msg, se.Name+" ") {
		msg = "-" + se.Msg
	}
	return strings.Replace(err.Error(), se.Msg, msg, 1)
}

// choice is the flag of a choice setting: it keeps what is given in lower
// case.
type choice string

func (c *choice) String() string { return string(*c) }

func (c *choice) Set(v string) error {
	*c = choice(strings.ToLower(v))
	return nil
}
