package page

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// TabsHTML returns the demos' tabs (config.Demos) as HTML: each a link to
// ?demo=<name> with data-demo, its name; a demo that does not train has
// class later.
func TabsHTML() string {
	var b strings.Builder
	for _, d := range config.Demos {
		class := "tab"
		if !d.Trainable {
			class += " later"
		}
		b.WriteString(`<a class="` + class + `" href="?demo=` + string(d.Demo) + `" data-demo="` + string(d.Demo) + `">` + escaper.Replace(d.Tab) + "</a>")
	}
	return b.String()
}

// Startup is what the page does as it loads, decided from its URL's
// query.
type Startup struct {
	Settings config.Settings
	Raw      config.Raw
	Errs     config.Errors
	// First: the page opened with no query, and deeplda ui did not serve
	// it: it trains config.FirstScreen, under its note.
	First bool
	// Hello is the engine's hello; ThreadsError says why threads= was
	// refused ("" when it was not): the CPU backend keeps its default.
	Hello        protocol.Hello
	ThreadsError string
	// Remote: the page trains with deeplda ui's native engine.
	Remote bool
	// Bench: bench=1, the page's benchmark instead of training.
	Bench bool
	// Open is the site's model to open once the engine is ready ("":
	// none); else Train says whether to train then (autostart with valid
	// settings).
	Open  string
	Train bool
	// Address is the query the address bar shows once Train has started
	// on the native engine: without autostart, so that a reload shows the
	// run (the native engine sends it again) rather than starting
	// another; nil when the address stays.
	Address config.Query
}

// Start decides what the page does with query q; native names deeplda
// ui's native engine when deeplda ui serves the page ("" otherwise),
// which makes backend native the default.
func Start(q config.Query, native string) Startup {
	if native != "" {
		q = config.NativeByDefault(q)
	}
	st := Startup{First: len(q) == 0 && native == "", Bench: q.Get("bench") == "1"}
	st.Settings, st.Raw, st.Errs = config.FromQuery(q)
	if st.First {
		st.Settings, st.Raw = config.FirstScreen()
	}
	s := st.Settings
	st.Hello = protocol.Hello{Backend: s.Backend, Debug: q.Get("debug")}
	if v := q.Get("threads"); v != "" {
		// Beside the settings table, as model=: it sets the CPU backend's
		// threads for the page's lifetime, not a run's setting.
		if n, err := strconv.Atoi(v); err == nil && n >= 1 {
			st.Hello.Threads = n
		} else {
			st.ThreadsError = fmt.Sprintf("threads must be a whole number of at least 1, got %q: the CPU backend keeps its default", v)
		}
	}
	if s.Native && native == "" {
		st.Errs["backend"] = "backend native is the engine of deeplda ui: this page was not served by deeplda ui"
	}
	st.Remote = s.Native && native != ""
	valid := len(st.Errs) == 0
	if s.Demo == config.Images && s.Autostart && valid && !st.Bench {
		st.Hello.Preload = s.Image.Data
	}
	if s.Model != "" && s.Demo == config.Images {
		st.Open = s.Model
	} else {
		st.Train = s.Autostart && valid
	}
	if st.Train && st.Remote {
		st.Address = config.Query{}
		for k, v := range q {
			if k != "autostart" {
				st.Address[k] = v
			}
		}
	}
	return st
}

// Edit decides what an edit of the form of demo d (its text raw) changes:
// the messages to show, the URL query (with model=, the shown site's
// model, when not ""), and whether the settings, valid, ask for the other
// engine than the page's (remote: deeplda ui's native one).
func Edit(d config.Demo, raw config.Raw, model string, remote bool) (errs config.Errors, q config.Query, otherEngine bool) {
	s, errs := config.Parse(d, raw)
	q = config.RawQuery(d, raw)
	if model != "" {
		q.Set("model", model)
	}
	return errs, q, len(errs) == 0 && s.Native != remote
}

// TrainSettings returns the settings the form's text raw trains in demo
// d, with a message of no field when some field is wrong.
func TrainSettings(d config.Demo, raw config.Raw) (config.Settings, config.Errors) {
	s, errs := config.Parse(d, raw)
	if len(errs) > 0 && errs[""] == "" {
		errs[""] = "Fix the settings marked in red to train."
	}
	return s, errs
}
