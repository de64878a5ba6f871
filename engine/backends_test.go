package engine

import (
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
