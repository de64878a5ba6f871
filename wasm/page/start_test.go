package page

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/wasm/config"
)

func TestTabsHTML(t *testing.T) {
	got := TabsHTML()
	if strings.Count(got, "<a ") != len(config.Demos) || !strings.HasPrefix(got, `<a class="tab" href="?demo=classical" data-demo="classical">1 · Classical LDA</a>`) {
		t.Errorf("tabs: %s", got)
	}
}

func TestStart(t *testing.T) {
	first := Start(config.Query{}, "")
	if !first.First || !first.Train || first.Settings.Backend != experiment.BackendCPU || first.Remote || first.Open != "" {
		t.Errorf("no query: %+v", first)
	}
	if st := Start(config.Query{}, "linux/amd64"); st.First || !st.Settings.Native || !st.Remote || st.Train {
		t.Errorf("no query, deeplda ui: %+v", st)
	}
	st := Start(config.Query{"demo": {"images"}, "autostart": {"1"}, "threads": {"2"}, "debug": {"panic"}}, "")
	if !st.Train || st.Hello.Threads != 2 || st.Hello.Debug != "panic" || st.Hello.Preload != st.Settings.Image.Data || st.Hello.Preload == "" || st.Address != nil {
		t.Errorf("images with autostart: %+v", st)
	}
	if st := Start(config.Query{"demo": {"images"}, "autostart": {"1"}, "bench": {"1"}}, ""); !st.Bench || st.Hello.Preload != "" {
		t.Errorf("bench: %+v", st)
	}
	if st := Start(config.Query{"threads": {"0"}}, ""); st.Hello.Threads != 0 || !strings.Contains(st.ThreadsError, `got "0"`) {
		t.Errorf("threads=0: %+v", st)
	}
	if st := Start(config.Query{"model": {"fmnist-lda"}, "autostart": {"1"}}, ""); st.Open != "fmnist-lda" || st.Train {
		t.Errorf("model=: %+v", st)
	}
	if st := Start(config.Query{"backend": {"native"}, "autostart": {"1"}}, ""); st.Errs["backend"] == "" || st.Train || st.Remote {
		t.Errorf("native without deeplda ui: %+v", st)
	}
	st = Start(config.Query{"epochs": {"3"}, "autostart": {"1"}}, "linux/amd64")
	if want := (config.Query{"epochs": {"3"}, "backend": {"native"}}); !st.Train || !st.Remote || !reflect.DeepEqual(st.Address, want) {
		t.Errorf("autostart on deeplda ui: %+v, address %v", st, st.Address)
	}
}

func TestEdit(t *testing.T) {
	raw := config.Defaults(config.Deep).Raw()
	raw["epochs"] = "7"
	errs, q, other := Edit(config.Deep, raw, "", false)
	if len(errs) > 0 || q.Get("epochs") != "7" || q.Has("model") || other {
		t.Errorf("Edit = %v %v %v", errs, q, other)
	}
	raw["backend"] = config.NativeBackend
	if _, _, other := Edit(config.Deep, raw, "", false); !other {
		t.Error("backend native asks for no other engine")
	}
	raw["epochs"] = "x"
	if errs, _, other := Edit(config.Deep, raw, "", false); errs["epochs"] == "" || other {
		t.Errorf("epochs=x: %v %v", errs, other)
	}
	if _, q, _ := Edit(config.Images, config.Defaults(config.Images).Raw(), "fmnist-lda", false); q.Get("model") != "fmnist-lda" {
		t.Errorf("the shown model is not in the query: %v", q)
	}
}

func TestTrainSettings(t *testing.T) {
	raw := config.Defaults(config.Deep).Raw()
	if _, errs := TrainSettings(config.Deep, raw); len(errs) > 0 {
		t.Errorf("defaults: %v", errs)
	}
	raw["epochs"] = "x"
	if _, errs := TrainSettings(config.Deep, raw); errs[""] != "Fix the settings marked in red to train." {
		t.Errorf("epochs=x: %v", errs)
	}
}
