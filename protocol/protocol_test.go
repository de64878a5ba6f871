package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestRoundTrip encodes a command and an event and reads them back.
func TestRoundTrip(t *testing.T) {
	c := experiment.DefaultSynth()
	cmd := Command{Kind: CmdStart, Session: 3, Start: &Start{Jobs: []Job{{Label: "DNLL", Synth: &c}}, Backend: experiment.BackendCPU, Overview: OverviewRuns}}
	b, err := Encode(cmd)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeCommand(b)
	if err != nil || !reflect.DeepEqual(back, cmd) {
		t.Fatalf("command %+v back as %+v (%v)", cmd, back, err)
	}
	ev := Event{Kind: EvRun, Seq: 9, Session: 3, Run: 1, RunState: &RunState{Status: "done", Report: []byte(`{"kind":"synth"}`), Figures: Figures{"a.svg": "<svg/>"}, Checkpoint: true},
		Overview: Figures{"b.svg": "<svg/>"}, Checkpoint: []byte{1, 2, 3}}
	b, err = Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeEvent(b)
	if err != nil || !reflect.DeepEqual(got, ev) {
		t.Fatalf("event %+v back as %+v (%v)", ev, got, err)
	}
}

// TestDecodeErrors reads what is not a command or an event.
func TestDecodeErrors(t *testing.T) {
	if _, err := DecodeCommand([]byte(`{"kind": 3}`)); err == nil || !strings.Contains(err.Error(), "reading a command") {
		t.Errorf("a command of the wrong type: %v", err)
	}
	if _, err := DecodeEvent([]byte(`not json`)); err == nil || !strings.Contains(err.Error(), "reading an event") {
		t.Errorf("not JSON: %v", err)
	}
}
