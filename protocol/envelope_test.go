package protocol

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestEnvelopeKeys checks the one definition of the envelope against its
// users: the JSON keys of Envelope are the constants the Web Worker's
// messages use, and site/app.js, which reads both transports, reads each
// of them.
func TestEnvelopeKeys(t *testing.T) {
	want := []string{EnvelopeJSON, EnvelopeFigures, EnvelopeCheckpoint}
	typ := reflect.TypeFor[Envelope]()
	if typ.NumField() != len(want) {
		t.Fatalf("Envelope has %d fields, want %d", typ.NumField(), len(want))
	}
	app, err := os.ReadFile("../site/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for i, key := range want {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if tag != key {
			t.Errorf("Envelope.%s's JSON key is %q, want %q", typ.Field(i).Name, tag, key)
		}
		if !strings.Contains(string(app), "m."+key) {
			t.Errorf("site/app.js does not read the envelope's %q (m.%s)", key, key)
		}
	}
}

// TestSplit checks that Split takes the figures and the checkpoint out of
// the JSON and keys the figures by their prefix.
func TestSplit(t *testing.T) {
	ev := Event{Kind: EvRun, RunState: &RunState{Figures: Figures{"curves.svg": "<svg/>"}}, Overview: Figures{"sweep.svg": "<svg/>"}, Checkpoint: []byte{1, 2}}
	env := Split(ev)
	if strings.Contains(env.JSON, "<svg") || strings.Contains(env.JSON, "checkpoint\":\"") {
		t.Errorf("the JSON still holds a figure or the checkpoint: %s", env.JSON)
	}
	if env.Figures[RunFigure+"curves.svg"] != "<svg/>" || env.Figures[OverviewFigure+"sweep.svg"] != "<svg/>" || len(env.Checkpoint) != 2 {
		t.Errorf("Split = %+v", env)
	}
	if ev.RunState.Figures == nil || ev.Checkpoint == nil {
		t.Error("Split changed the event it was given")
	}
}

func TestAddFigure(t *testing.T) {
	ev := Event{Kind: EvRun, RunState: &RunState{}, Overview: Figures{"sweep.svg": "<svg/>"}}
	env := Split(ev)
	back, err := DecodeEvent([]byte(env.JSON))
	if err != nil {
		t.Fatal(err)
	}
	for k, svg := range env.Figures {
		back.AddFigure(k, svg)
	}
	back.AddFigure("other/x.svg", "<svg/>")
	if len(back.Overview) != 1 || back.Overview["sweep.svg"] != "<svg/>" || back.RunState.Figures != nil {
		t.Errorf("overview %v, run's %v", back.Overview, back.RunState.Figures)
	}
	back.AddFigure(RunFigure+"curves.svg", "<svg>c</svg>")
	if back.RunState.Figures["curves.svg"] != "<svg>c</svg>" {
		t.Errorf("run's figures %v", back.RunState.Figures)
	}
	bare := Event{Kind: EvProgress}
	bare.AddFigure(RunFigure+"curves.svg", "<svg/>")
	if bare.RunState != nil || bare.Overview != nil {
		t.Errorf("a run's figure went into an event without a run: %+v", bare)
	}
}
