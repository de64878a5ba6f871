// Package engine is the trainer behind a view: it takes the commands of
// the run protocol (package protocol), trains, evaluates and draws, and
// tells its view what happens as protocol events. It knows nothing of the
// page: the host it runs in (a Web Worker, a test, a native process) gives
// it its backends, the site's files, a way to let commands in between
// steps, and the events' way out.
//
// Commands run one at a time, in the order they came, in a goroutine of
// the engine's; stop does not wait its turn: it stops the command that
// runs (a session's training after its step) and those that train and
// wait (each starts stopped).
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/protocol"
)

// Host is what the engine needs of the place it runs in.
type Host interface {
	// OpenWebGPU opens the WebGPU backend, or says why it cannot.
	OpenWebGPU() (kernels.Backend, string)
	// Fetch reads a file of the site by its path from the site's root
	// ("site/data/index.json").
	Fetch(path string) ([]byte, error)
	// Yield lets the host deliver commands (stop) and events; the engine
	// calls it between training steps.
	Yield()
	// Emit sends an event to the view.
	Emit(protocol.Event)
	// LoseDevice destroys the WebGPU device (the view's debug=lose-device).
	LoseDevice()
	// Engine says where the engine runs, for report.json's
	// backend.engine: "page" (a browser tab) or "native".
	Engine() string
	// Memory says which WebAssembly memory the engine runs on ("shared",
	// "plain"; "" outside a browser).
	Memory() string
}

// RunFolders is a Host that keeps each run in a folder of its own, with
// what the command line writes there (deeplda ui's runs folder): the
// checkpoint and the resume file after every epoch, report.json and the
// figures at the end and when the run stops.
type RunFolders interface {
	// RunDir makes the folder of run (0-based) of session and returns
	// its path.
	RunDir(session, run int, label string) (string, error)
	// Resume puts run where the resume file of the run folder name left
	// it and returns the folder's path.
	Resume(name string, run *experiment.Run) (string, error)
}

// File is a file that came with a command: its name and a way to read it.
type File struct {
	Name string
	Read func() ([]byte, error)
}

// Engine is one engine serving one view.
type Engine struct {
	host     Host
	backends backends
	data     dataSets
	models   models

	mu     sync.Mutex
	seq    int
	cancel context.CancelFunc // stops the command that runs, nil when none
	ctx    context.Context    // the running command's, which stop cancels
	queue  chan func()        // the commands waiting their turn
	// training counts the commands that train (Command.Trains) that
	// wait or run; stops counts the stops, so that a command that trains
	// and waited while a stop came starts stopped.
	training, stops int

	sess *session
	// debugPanic and debugLose are the view's debug= choices (Hello).
	debugPanic, debugLose bool
}

// New returns an engine in host; it starts with CmdHello.
func New(host Host) *Engine {
	e := &Engine{host: host, queue: make(chan func(), 64)}
	e.backends.open = host.OpenWebGPU
	e.data.e, e.data.loaded = e, map[string]experiment.ImageData{}
	e.models.e = e
	go func() {
		for job := range e.queue {
			job()
		}
	}()
	return e
}

// emit sends ev with the next sequence number.
func (e *Engine) emit(ev protocol.Event) {
	e.mu.Lock()
	e.seq++
	ev.Seq = e.seq
	e.mu.Unlock()
	e.host.Emit(ev)
}

// Handle takes a command, with the files that came with it (CmdFiles,
// CmdOpen of a file). It never blocks on the command's work: the command
// waits its turn (stop excepted).
func (e *Engine) Handle(c protocol.Command, files []File) {
	if c.Kind == protocol.CmdStop {
		e.mu.Lock()
		e.stops++
		if e.cancel != nil {
			e.cancel()
		}
		e.mu.Unlock()
		return
	}
	job := e.job(c, files)
	if job == nil {
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: fmt.Sprintf("unknown command %q", c.Kind)})
		return
	}
	if c.Trains() {
		e.mu.Lock()
		e.training++
		stops := e.stops
		e.mu.Unlock()
		inner := job
		job = func(ctx context.Context) {
			defer func() {
				e.mu.Lock()
				e.training--
				e.mu.Unlock()
			}()
			e.mu.Lock()
			if e.stops != stops {
				// A stop came while it waited its turn: it starts
				// stopped (a session is announced, then stopped).
				e.cancel()
			}
			e.mu.Unlock()
			inner(ctx)
		}
	}
	select {
	case e.queue <- func() { e.run(c, job) }:
	default:
		if c.Trains() {
			e.mu.Lock()
			e.training--
			e.mu.Unlock()
		}
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: fmt.Sprintf("%s: too many commands wait", c.Kind)})
	}
}

// Training reports whether a command that trains a session (start,
// resume, continue) waits or runs. Handle counts the command before it
// returns, so that a host that calls Handle under its own lock can bound
// what trains.
func (e *Engine) Training() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.training > 0
}

// run runs one command's work, which stop can cancel.
func (e *Engine) run(c protocol.Command, job func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	e.mu.Lock()
	e.cancel = cancel
	e.mu.Unlock()
	e.ctx = ctx
	defer func() {
		e.mu.Lock()
		e.cancel = nil
		e.mu.Unlock()
		cancel()
	}()
	defer e.recover(c)
	job(ctx)
}

// Knows reports whether the engine takes commands of kind, so that a host
// can refuse an unknown command to the view that sent it alone.
func Knows(kind string) bool {
	return kind == protocol.CmdStop || (*Engine)(nil).job(protocol.Command{Kind: kind}, nil) != nil
}

// job returns the work of command c, or nil for an unknown command.
func (e *Engine) job(c protocol.Command, files []File) func(context.Context) {
	switch c.Kind {
	case protocol.CmdHello:
		if c.Hello == nil {
			c.Hello = &protocol.Hello{Backend: experiment.BackendAuto}
		}
		return func(context.Context) { e.hello(*c.Hello) }
	case protocol.CmdStart:
		return func(ctx context.Context) { e.start(ctx, c) }
	case protocol.CmdResume:
		return func(ctx context.Context) { e.resume(ctx, c.Session) }
	case protocol.CmdOpen:
		return func(context.Context) { e.models.open(c, files) }
	case protocol.CmdContinue:
		return func(ctx context.Context) { e.models.continueTraining(ctx, c) }
	case protocol.CmdFiles:
		return func(context.Context) { e.data.readFiles(c, files) }
	case protocol.CmdLoad:
		return func(context.Context) { e.data.preload(c.Data) }
	case protocol.CmdBench:
		return func(ctx context.Context) { e.bench(ctx, c.Bench) }
	}
	return nil
}

// recover turns a panic of command c into an event: the session's failure
// for the commands of a session, a refusal for the others.
func (e *Engine) recover(c protocol.Command) {
	r := recover()
	if r == nil {
		return
	}
	err := fmt.Errorf("internal error: %v", r)
	fmt.Printf("deeplda: panic: %v\n%s", r, debug.Stack())
	if s := e.sess; s != nil && s.id == c.Session {
		e.failed(s, err)
		return
	}
	e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: err.Error()})
}

// hello warms the engine up and says what it found.
func (e *Engine) hello(h protocol.Hello) {
	if h.Threads > 0 {
		gemm.SetThreads(h.Threads)
	}
	e.debugPanic = h.Debug == "panic"
	e.debugLose = h.Debug == "lose-device"
	fault := h.Debug == kernels.FaultShader || h.Debug == kernels.FaultBuffer
	e.backends.anyAdapter = e.debugLose || fault
	be, why := e.backends.get(h.Backend)
	if f, ok := be.(kernels.Faulting); ok && fault {
		f.Fault(h.Debug)
	}
	if err := warmUp(e.backends.cpuBackend(), be); err != nil && be != e.backends.cpu {
		why, be = e.backends.broken("while preparing", err), e.backends.cpu
	}
	e.data.probe()
	e.models.probe()
	if h.Preload != "" {
		e.data.preload(h.Preload)
	}
	e.emit(protocol.Event{Kind: protocol.EvReady, Backend: backendOf(be, why), Memory: e.host.Memory()})
}

// bench times the benchmark suite of b on its backend, letting stop in
// between the timed steps: EvBench after each benchmark, EvBenchDone at
// the end with the table of those that finished (or the error).
func (e *Engine) bench(ctx context.Context, b *protocol.Bench) {
	if b == nil {
		e.emit(protocol.Event{Kind: protocol.EvBenchDone, Error: "bench: the command names no suite"})
		return
	}
	be, _ := e.backends.get(b.Backend)
	total := len(b.Suite.Configs())
	done := 0
	rs, err := experiment.RunSuite(ctx, be, b.Suite, experiment.SuiteHooks{
		Each: func(r experiment.BenchResult) {
			done++
			e.emit(protocol.Event{Kind: protocol.EvBench, Bench: &protocol.BenchState{Result: &r, Done: done, Total: total}})
		},
		Between: e.host.Yield,
	})
	st := &protocol.BenchState{Done: len(rs), Total: total, Stopped: errors.Is(err, context.Canceled)}
	ev := protocol.Event{Kind: protocol.EvBenchDone, Bench: st}
	if err == nil || st.Stopped {
		st.Table = experiment.SuiteTable(rs)
	} else {
		ev.Error = err.Error()
	}
	e.emit(ev)
}

// backendOf describes be for an event, with the limits its device was
// granted.
func backendOf(be kernels.Backend, why string) *protocol.Backend {
	b := &protocol.Backend{Info: be.Info(), Kind: experiment.BackendOf(be), Why: why}
	if l, ok := be.(kernels.Limited); ok {
		b.Limits = l.Limits()
	}
	return b
}

// backends opens the compute backends once and remembers why WebGPU is not
// used when it is not.
type backends struct {
	open  func() (kernels.Backend, string)
	cpu   kernels.Backend
	gpu   kernels.Backend // nil until probed, or when unusable
	probe sync.Once
	why   string // why WebGPU is not used (empty while it is)
	// anyAdapter has auto take a software adapter too: debug=lose-device
	// needs a WebGPU device to lose, debug=bad-shader and big-buffer one
	// to fail, and a test browser has SwiftShader.
	anyAdapter bool
}

// cpuBackend returns the CPU backend.
func (b *backends) cpuBackend() kernels.Backend {
	if b.cpu == nil {
		b.cpu = cpu.New()
	}
	return b.cpu
}

// software is a backend that can say whether it runs on a CPU
// implementation of WebGPU (webgpu.Backend).
type software interface{ Software() bool }

// get returns the backend for a choice and, when WebGPU was wanted but
// cannot be used, why the CPU runs instead. Backend auto takes the CPU on
// a software adapter too, which computes slower than the CPU backend, as
// the native command does; backend webgpu takes any adapter.
func (b *backends) get(choice experiment.BackendKind) (kernels.Backend, string) {
	c := b.cpuBackend()
	if choice == experiment.BackendCPU {
		return c, ""
	}
	b.probe.Do(func() { b.gpu, b.why = b.open() })
	if b.gpu == nil {
		return c, b.why
	}
	if s, ok := b.gpu.(software); ok && choice == experiment.BackendAuto && !b.anyAdapter && s.Software() {
		return c, fmt.Sprintf("The WebGPU adapter is a CPU implementation (%s); using the faster CPU backend (backend=webgpu forces it).", b.gpu.Info().Adapter)
	}
	return b.gpu, ""
}

// broken records that WebGPU failed (when says when: "while preparing",
// "during training"); later runs use the CPU. It returns the notice.
func (b *backends) broken(when string, err error) string {
	if b.gpu != nil {
		b.gpu.Close()
	}
	b.gpu = nil
	b.why = fmt.Sprintf("WebGPU failed %s (%v), so training runs on the CPU backend.", when, err)
	return b.why
}
