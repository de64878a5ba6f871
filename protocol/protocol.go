// Package protocol is the run protocol between the engine (training,
// evaluation, the figures) and the views that watch it (the page, and
// whatever else drives an engine): the commands a view sends and the
// events the engine answers with. Both travel as JSON. Figures travel as
// what the engine draws (SVG text), so a view draws nothing itself.
//
// One engine serves one view at a time. Every event carries a sequence
// number, one more than the engine's previous event, and the session it
// belongs to (0 for events of no session: the backend, the data, the
// models); a view ignores events of a session it no longer shows.
package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/train"
)

// Command kinds.
const (
	// CmdHello starts the engine: it warms up, probes its backend and
	// the site's data and models, then says EvReady.
	CmdHello = "hello"
	// CmdStart trains the runs of Start as a new session.
	CmdStart = "start"
	// CmdStop stops the session after its current step.
	CmdStop = "stop"
	// CmdResume continues a stopped session at the step it stopped.
	CmdResume = "resume"
	// CmdOpen evaluates trained models (Open) and shows them as a session.
	CmdOpen = "open"
	// CmdContinue trains the model opened last on (Start, one run).
	CmdContinue = "continue"
	// CmdFiles reads the data set or checkpoint in the files that come
	// with the command (see Command.Files).
	CmdFiles = "files"
	// CmdLoad loads a hosted data set ahead of a run (Data names it).
	CmdLoad = "load"
	// CmdBench times a benchmark suite (Bench) instead of training: EvBench
	// after each benchmark, EvBenchDone at the end; stop ends it after the
	// step in progress.
	CmdBench = "bench"
)

// Command is what a view asks of the engine.
type Command struct {
	Kind    string `json:"kind"`
	Session int    `json:"session,omitempty"`
	Hello   *Hello `json:"hello,omitempty"`
	Start   *Start `json:"start,omitempty"`
	Open    *Open  `json:"open,omitempty"`
	// Files names the files that come with CmdFiles, in order; the
	// transport carries their bytes.
	Files []string `json:"files,omitempty"`
	// Data is the data set the form names: the one CmdLoad loads, and
	// the one CmdFiles reads files as when they could be either.
	Data  string `json:"data,omitempty"`
	Bench *Bench `json:"bench,omitempty"`
}

// Bench is a benchmark suite to time (deeplda bench -suite's) and the
// backend to time it on.
type Bench struct {
	Suite   experiment.SuiteConfig `json:"suite"`
	Backend experiment.BackendKind `json:"backend"`
}

// Trains reports whether c trains a session (start, resume, continue).
func (c Command) Trains() bool {
	return c.Kind == CmdStart || c.Kind == CmdResume || c.Kind == CmdContinue
}

// Hello is how the engine starts.
type Hello struct {
	Backend experiment.BackendKind `json:"backend"`
	// Threads is the CPU backend's threads (0: its default).
	Threads int `json:"threads,omitempty"`
	// Debug is the page's debug= parameter: "panic" makes the next run
	// panic once, "lose-device" destroys the WebGPU device halfway
	// through the next run that has a save point, "bad-shader" and
	// "big-buffer" (kernels.FaultShader, kernels.FaultBuffer) provoke
	// that fault on the WebGPU device while the engine warms up.
	Debug string `json:"debug,omitempty"`
	// Preload is a hosted data set to load (with the one its runs score
	// as out-of-distribution) before the engine says it is ready.
	Preload string `json:"preload,omitempty"`
}

// Overview kinds: what a session draws across its runs.
const (
	OverviewNone  = ""
	OverviewRuns  = "runs"  // toy runs side by side: embeddings, log det and accuracy of every run
	OverviewSweep = "sweep" // a lambda sweep: accuracy, ECE and sigma against lambda
	OverviewHeads = "heads" // two heads on images: ECE, accuracy and reliability side by side
)

// Start is a session to train: its runs, one after the other, on one
// backend.
type Start struct {
	Jobs    []Job                  `json:"jobs"`
	Backend experiment.BackendKind `json:"backend"`
	// Density shades the toy embeddings by the head's log density.
	Density  bool   `json:"density"`
	Overview string `json:"overview,omitempty"`
	// View is the view's own account of the session (the page's URL
	// query, by parameter), which the engine sends back with EvSession so
	// that another view (a reloaded page, a second tab) can show the
	// session.
	View map[string][]string `json:"view,omitempty"`
}

// Job is one run of a session: its label and its configuration (a toy run
// or an image run).
type Job struct {
	Label string                  `json:"label"`
	Synth *experiment.SynthConfig `json:"synth,omitempty"`
	Image *experiment.ImageConfig `json:"image,omitempty"`
	// Resume names a run folder of the host (engine.RunFolders) whose
	// resume file the run continues from, in that folder.
	Resume string `json:"resume,omitempty"`
}

// Open names trained models to open: the site's (Hosted, one or two) or
// the checkpoint file that comes with the command (File, its name). The
// command's Start holds the runs as the form plans them (one, or both
// heads side by side); each checkpoint's own spec overrides its run's
// settings (experiment.OpenedConfig).
type Open struct {
	Hosted []string `json:"hosted,omitempty"`
	File   string   `json:"file,omitempty"`
}

// Event kinds.
const (
	// EvReady: the engine has warmed up; Backend says what it runs on,
	// Memory which WebAssembly memory it has ("shared" or "plain").
	EvReady = "ready"
	// EvBackend: the backend changed (Backend).
	EvBackend = "backend"
	// EvData: where the data sets stand (Data).
	EvData = "data"
	// EvModels: the trained models the site hosts (Models).
	EvModels = "models"
	// EvSession: a session began; Runs holds the runs' labels.
	EvSession = "session"
	// EvProgress: a training step (Progress) of run Run.
	EvProgress = "progress"
	// EvPhase: how far an evaluation is (Phase) in run Run.
	EvPhase = "phase"
	// EvRun: run Run changed (RunState), and the overview's figures
	// (Overview) with it.
	EvRun = "run"
	// EvMoved: WebGPU failed and the session went on the CPU (Moved).
	EvMoved = "moved"
	// EvDone: every run finished (Seconds of training).
	EvDone = "done"
	// EvStopped: the session stopped at run Run; CmdResume continues it.
	EvStopped = "stopped"
	// EvFailed: the session failed (Error).
	EvFailed = "failed"
	// EvNoData: an image session could not load its data (Error); nothing
	// trained.
	EvNoData = "no-data"
	// EvOpened: trained models were opened as the session (Opened).
	EvOpened = "opened"
	// EvOpenFailed: a trained model could not be opened (Error names it);
	// nothing changed.
	EvOpenFailed = "open-failed"
	// EvRefused: a command was refused (Error); nothing changed.
	EvRefused = "refused"
	// EvLoading: what the engine is doing before a run can start (Text:
	// downloading, reading, evaluating).
	EvLoading = "loading"
	// EvBench: a benchmark of CmdBench's suite finished (BenchState).
	EvBench = "bench"
	// EvBenchDone: the suite ended (BenchState, with its table), or
	// failed (Error).
	EvBenchDone = "bench-done"
)

// Event is what the engine tells its view.
type Event struct {
	Kind    string   `json:"kind"`
	Seq     int      `json:"seq"`
	Session int      `json:"session,omitempty"`
	Run     int      `json:"run,omitempty"`
	Backend *Backend `json:"backend,omitempty"`
	Memory  string   `json:"memory,omitempty"`
	Runs    []string `json:"runs,omitempty"`
	Start   *Start   `json:"start,omitempty"` // with EvSession
	// Ended, with EvSession to a view that connects after the session
	// ended (done, stopped, failed, or opened models): a view shows it
	// only when asked to, not in place of what its user chose.
	Ended    bool                   `json:"ended,omitempty"`
	Progress *Progress              `json:"progress,omitempty"`
	Phase    *Phase                 `json:"phase,omitempty"`
	RunState *RunState              `json:"run_state,omitempty"`
	Overview Figures                `json:"overview,omitempty"`
	Moved    *Moved                 `json:"moved,omitempty"`
	Data     *DataState             `json:"data,omitempty"`
	Models   []experiment.ModelInfo `json:"models,omitempty"`
	Opened   *Opened                `json:"opened,omitempty"`
	Seconds  float64                `json:"seconds,omitempty"`
	Error    string                 `json:"error,omitempty"`
	Text     string                 `json:"text,omitempty"`
	// Checkpoint is the run's last good checkpoint (safetensors) with
	// EvRun when it changed. The Web Worker's transport carries it, and
	// the figures of RunState and Overview, beside the JSON (a transferred
	// ArrayBuffer, JavaScript strings).
	Checkpoint []byte `json:"checkpoint,omitempty"`
	// MemoryBytes is the engine's memory where its host knows it (the
	// worker's WebAssembly memory), with progress and the session's end.
	MemoryBytes int64       `json:"memory_bytes,omitempty"`
	Bench       *BenchState `json:"bench,omitempty"`
}

// BenchState is how far a benchmark suite is: with EvBench the benchmark
// that finished, with EvBenchDone the table of those that finished
// (Markdown, as deeplda bench -suite prints it) and whether stop ended
// the suite.
type BenchState struct {
	Result  *experiment.BenchResult `json:"result,omitempty"`
	Done    int                     `json:"done"`
	Total   int                     `json:"total"`
	Table   string                  `json:"table,omitempty"`
	Stopped bool                    `json:"stopped,omitempty"`
}

// Figures are SVG figures by file name.
type Figures map[string]string

// Backend is the backend a session runs on.
type Backend struct {
	Info kernels.Info `json:"info"`
	// Kind is experiment.BackendCPU or experiment.BackendWebGPU.
	Kind experiment.BackendKind `json:"kind"`
	// Why says why WebGPU is not used when it was wanted ("" when it is).
	Why string `json:"why,omitempty"`
	// Limits are the limits the WebGPU device was granted, by their
	// WebGPU names (kernels.Limited); none on the CPU.
	Limits map[string]uint64 `json:"limits,omitempty"`
}

// Progress is a training step of a run, with the session's training time.
type Progress struct {
	train.Progress
	// Seconds is the session's training wall time so far.
	Seconds float64 `json:"seconds"`
}

// Phase is how far an evaluation is.
type Phase = experiment.Phase

// RunState is what a view shows of one run: its status, its report.json
// and its figures. Figures holds the figures that changed since the last
// RunState of the run; the others keep their last drawing.
type RunState struct {
	Status string          `json:"status"`
	Report json.RawMessage `json:"report,omitempty"`
	// Opened: evaluated from a trained model, not trained here.
	Opened  bool    `json:"opened,omitempty"`
	Figures Figures `json:"figures,omitempty"`
	// Label is the run's label (it may change when a model is opened).
	Label string `json:"label,omitempty"`
	// Checkpoint: the run's checkpoint comes with this event
	// (Event.Checkpoint).
	Checkpoint bool `json:"checkpoint,omitempty"`
}

// Moved says where a run moved from WebGPU to the CPU.
type Moved struct {
	// Error is WebGPU's error; DeviceLost says it was a lost device.
	Error      string `json:"error"`
	DeviceLost bool   `json:"device_lost"`
	// LostStep is the run's step when WebGPU failed; ResumeStep the step
	// after which the CPU took over (that of the last save point, 0 from
	// the start); KeptEpochs the epochs of history kept.
	LostStep   int `json:"lost_step"`
	ResumeStep int `json:"resume_step"`
	KeptEpochs int `json:"kept_epochs"`
	// LostAt and ResumeAt are the places of LostStep and ResumeStep as
	// (completed epochs, step of the next epoch).
	LostAt   [2]int `json:"lost_at"`
	ResumeAt [2]int `json:"resume_at"`
	// Stopped: the session stopped there (backend webgpu); CmdResume
	// continues it on the CPU. Else it went on (backend auto).
	Stopped bool `json:"stopped"`
}

// DataState is where the image data sets stand.
type DataState struct {
	// Probed: the site's data index was read (or found missing).
	Probed bool `json:"probed"`
	// Hosted lists the data sets the site hosts with the text of their
	// download size.
	Hosted map[string]string `json:"hosted,omitempty"`
	// Loaded lists the data sets in memory.
	Loaded []string `json:"loaded,omitempty"`
	// Picked is the data set read from the user's files, From says which
	// files.
	Picked string `json:"picked,omitempty"`
	From   string `json:"from,omitempty"`
	// Busy: reading the user's files; Loading: the hosted data set being
	// downloaded.
	Busy    bool   `json:"busy,omitempty"`
	Loading string `json:"loading,omitempty"`
	// Error is the last problem with the data (the user's files, a
	// download), "" when none.
	Error string `json:"error,omitempty"`
}

// Opened is the session of opened models: the configurations they were
// evaluated with (one or two, in the runs' order; the form's new
// settings) and what each gave.
type Opened struct {
	Configs []experiment.ImageConfig `json:"configs"`
	Models  []OpenedModel            `json:"models"`
	// Label names what was opened (the site's names or the file's,
	// joined by commas); Hosted the site's model the address reopens ("" for
	// a file).
	Label  string `json:"label"`
	Hosted string `json:"hosted,omitempty"`
	// Continuable: one model, which CmdContinue trains on.
	Continuable bool `json:"continuable"`
}

// OpenedModel is one opened model's evaluation: its head and its test
// accuracy and ECE on Images test images of Data; Info is the site's
// record of it (nil for a dropped file).
type OpenedModel struct {
	Label    string                `json:"label"`
	Head     string                `json:"head"`
	Accuracy float64               `json:"accuracy"`
	ECE      float64               `json:"ece"`
	Images   int                   `json:"images"`
	Data     string                `json:"data"`
	Info     *experiment.ModelInfo `json:"info,omitempty"`
}

// Encode writes v (a Command or an Event) as JSON.
func Encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("protocol: encoding: %w", err)
	}
	return b, nil
}

// DecodeCommand reads a Command.
func DecodeCommand(b []byte) (Command, error) {
	var c Command
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("protocol: reading a command: %w", err)
	}
	return c, nil
}

// DecodeEvent reads an Event.
func DecodeEvent(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("protocol: reading an event: %w", err)
	}
	return e, nil
}

// The keys of an event's figures beside its JSON (Split): the run's
// figures and the overview's, by file name after the prefix.
const (
	RunFigure      = "run/"
	OverviewFigure = "overview/"
)

// Envelope is an event as a transport carries it that takes the figures
// and the checkpoint beside the JSON (the Web Worker's messages, deeplda
// ui's event stream, and site/app.js, which reads both): the JSON of the
// rest of the event, the figures by key (RunFigure or OverviewFigure and
// the file name) and the checkpoint (nil when none). Its JSON keys are
// the ones the Web Worker's messages use (EnvelopeKeys).
type Envelope struct {
	JSON       string            `json:"json"`
	Figures    map[string]string `json:"figures,omitempty"`
	Checkpoint []byte            `json:"checkpoint,omitempty"`
}

// The keys of an Envelope's fields in the Web Worker's messages and in
// deeplda ui's event stream.
const (
	EnvelopeJSON       = "json"
	EnvelopeFigures    = "figures"
	EnvelopeCheckpoint = "checkpoint"
)

// Split takes the figures and the checkpoint out of ev into its Envelope.
// An event that cannot be encoded becomes EvFailed.
func Split(ev Event) Envelope {
	env := Envelope{Checkpoint: ev.Checkpoint, Figures: map[string]string{}}
	ev.Checkpoint = nil
	if ev.RunState != nil {
		st := *ev.RunState
		for name, svg := range st.Figures {
			env.Figures[RunFigure+name] = svg
		}
		st.Figures = nil
		ev.RunState = &st
	}
	for name, svg := range ev.Overview {
		env.Figures[OverviewFigure+name] = svg
	}
	ev.Overview = nil
	js, err := Encode(ev)
	if err != nil {
		js, _ = Encode(Event{Kind: EvFailed, Seq: ev.Seq, Session: ev.Session, Error: err.Error()})
	}
	env.JSON = string(js)
	return env
}

// AddFigure puts back into ev a figure that Split took out: svg by its
// key (RunFigure or OverviewFigure and the file name). A run's figure of
// an event without a run's state, or a key of neither kind, is dropped.
func (ev *Event) AddFigure(key, svg string) {
	if name, ok := strings.CutPrefix(key, RunFigure); ok && ev.RunState != nil {
		if ev.RunState.Figures == nil {
			ev.RunState.Figures = Figures{}
		}
		ev.RunState.Figures[name] = svg
	} else if name, ok := strings.CutPrefix(key, OverviewFigure); ok {
		if ev.Overview == nil {
			ev.Overview = Figures{}
		}
		ev.Overview[name] = svg
	}
}

// RunFolder is a run of deeplda ui's runs folder, as its list
// (runs/index.json) describes it.
type RunFolder struct {
	Name string `json:"name"`
	// Path is the folder's URL path from the site's root ("runs/<name>/",
	// escaped).
	Path  string `json:"path"`
	Label string `json:"label"`
	Kind  string `json:"kind,omitempty"` // synth or train; "" before report.json
	// Status is report.json's (done, stopped, an error), "training"
	// while the engine trains it, "unfinished" before its report.
	Status       string  `json:"status"`
	Epochs       int     `json:"epochs,omitempty"`  // configured
	Trained      int     `json:"trained,omitempty"` // epochs in its history
	TestAccuracy float64 `json:"test_accuracy,omitempty"`
	TestECE      float64 `json:"test_ece,omitempty"`
	// Report: report.json is there; Resumable: so is its resume file and
	// the run is not done.
	Report    bool `json:"report,omitempty"`
	Resumable bool `json:"resumable,omitempty"`
	// Figures are its SVG figures, by file name (letters, digits, '.',
	// '_' and '-' only: the names the engine writes).
	Figures []string `json:"figures,omitempty"`
	// Date is when the run last wrote report.json (its timestamp), else
	// when deeplda ui that made the folder started (the folder's name), as
	// "2006-01-02 15:04" in the machine's time zone; "" when neither says.
	Date string `json:"date,omitempty"`
	// Settings are report.json's config, each value as JSON writes it
	// (numbers and booleans bare, strings unquoted).
	Settings map[string]string `json:"settings,omitempty"`
}
