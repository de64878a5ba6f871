package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/engine/enginetest"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/protocol"
)

// fakeGPU is a WebGPU backend as the engine sees it: it computes on the
// CPU backend, is named webgpu and says whether its adapter is software.
type fakeGPU struct {
	kernels.Backend
	software bool
}

func (g fakeGPU) Info() kernels.Info {
	return kernels.Info{Name: "webgpu", Adapter: "Google SwiftShader"}
}

func (g fakeGPU) Software() bool { return g.software }

// gpuHost is a test host whose OpenWebGPU opens a fakeGPU.
type gpuHost struct {
	*enginetest.Recorder
	software bool
}

func (h gpuHost) OpenWebGPU() (kernels.Backend, string) {
	return fakeGPU{Backend: cpu.New(), software: h.software}, ""
}

// TestAutoSkipsSoftwareAdapter checks the backend that hello gets: auto
// takes the CPU, with the notice, on a software adapter (unless
// debug=lose-device asks for a device to lose) and WebGPU on a hardware
// one; webgpu takes either.
func TestAutoSkipsSoftwareAdapter(t *testing.T) {
	for _, c := range []struct {
		choice   experiment.BackendKind
		debug    string
		software bool
		want     experiment.BackendKind
	}{
		{experiment.BackendAuto, "", true, experiment.BackendCPU},
		{experiment.BackendAuto, "", false, experiment.BackendWebGPU},
		{experiment.BackendAuto, "lose-device", true, experiment.BackendWebGPU},
		{experiment.BackendWebGPU, "", true, experiment.BackendWebGPU},
		{experiment.BackendCPU, "", false, experiment.BackendCPU},
	} {
		h := gpuHost{Recorder: enginetest.New(""), software: c.software}
		e := New(h)
		e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: c.choice, Debug: c.debug}}, nil)
		_, ev := h.Wait(t, 0, protocol.EvReady)
		if ev.Backend == nil {
			t.Fatalf("%s on a software adapter %v: no backend in %+v", c.choice, c.software, ev)
		}
		got := ev.Backend
		t.Logf("%s, software %v: %s %q", c.choice, c.software, got.Kind, got.Why)
		notice := strings.Contains(got.Why, "The WebGPU adapter is a CPU implementation (Google SwiftShader); using the faster CPU backend")
		if got.Kind != c.want || notice != (c.want == experiment.BackendCPU && c.software) {
			t.Errorf("%s on a software adapter %v: backend %s, notice %q; want %s", c.choice, c.software, got.Kind, got.Why, c.want)
		}
	}
}

// faultyGPU is a fakeGPU with granted limits whose device fails every
// Sync once a fault was provoked (kernels.Faulting), as the WebGPU
// backend's does.
type faultyGPU struct {
	fakeGPU
	fault string
}

func (g *faultyGPU) Limits() map[string]uint64 { return map[string]uint64{"maxBufferSize": 1 << 30} }

func (g *faultyGPU) Fault(kind string) { g.fault = kind }

func (g *faultyGPU) Sync() error {
	if g.fault != "" {
		return fmt.Errorf("%w: %s provoked", kernels.ErrDeviceFailed, g.fault)
	}
	return g.fakeGPU.Sync()
}

// faultyHost is a test host whose OpenWebGPU opens a faultyGPU on a
// software adapter.
type faultyHost struct{ *enginetest.Recorder }

func (h faultyHost) OpenWebGPU() (kernels.Backend, string) {
	return &faultyGPU{fakeGPU: fakeGPU{Backend: cpu.New(), software: true}}, ""
}

// TestFaultFallsBackToCPU: with debug=bad-shader or big-buffer the engine
// provokes the fault on the WebGPU device, even a software one with
// backend auto, and the device's error turns into the CPU backend with a
// notice that says why; without, the ready event carries the limits the
// device was granted.
func TestFaultFallsBackToCPU(t *testing.T) {
	for _, debug := range []string{kernels.FaultShader, kernels.FaultBuffer, ""} {
		h := faultyHost{enginetest.New("")}
		e := New(h)
		choice := experiment.BackendAuto // which takes a software adapter only to fail it
		if debug == "" {
			choice = experiment.BackendWebGPU
		}
		e.Handle(protocol.Command{Kind: protocol.CmdHello, Hello: &protocol.Hello{Backend: choice, Debug: debug}}, nil)
		_, ev := h.Wait(t, 0, protocol.EvReady)
		got := ev.Backend
		t.Logf("debug=%s: %s %q %v", debug, got.Kind, got.Why, got.Limits)
		if debug == "" {
			if got.Kind != experiment.BackendWebGPU || got.Why != "" || got.Limits["maxBufferSize"] != 1<<30 {
				t.Errorf("no fault: backend %s, notice %q, limits %v; want webgpu with its limits", got.Kind, got.Why, got.Limits)
			}
			continue
		}
		want := "WebGPU failed while preparing (the GPU device failed: " + debug + " provoked), so training runs on the CPU backend."
		if got.Kind != experiment.BackendCPU || got.Why != want || got.Limits != nil {
			t.Errorf("debug=%s: backend %s, notice %q, limits %v; want cpu, %q", debug, got.Kind, got.Why, got.Limits, want)
		}
	}
}
