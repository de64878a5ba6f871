package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
)

// host is the engine's Host in deeplda ui: native backends, the site's
// files and the data folder, the runs folder, and the events' way out to
// every page that listens.
type host struct {
	cfg   Config
	site  *os.Root
	runs  *os.Root
	stamp string // the server's start, which prefixes its runs' folders

	mu      sync.Mutex
	clients map[chan []byte]bool
	// base holds the last event of each kind outside sessions (ready,
	// data, models), session the current session's events (of progress
	// and phase lines in a row, the last; of a run's states, one that
	// merges them, see merged): what a page that connects late is sent
	// first.
	base     map[string][]byte
	session  []replayed
	lastLine bool // the last of session is a progress or phase line
	// begun is the current session's EvSession, ended whether the session
	// has ended since (a late page is told, protocol.Event.Ended).
	begun protocol.Event
	ended bool
	// soFar are the current session's runs as their states so far tell
	// them, overview its overview's figures.
	soFar    map[int]*runSoFar
	overview protocol.Figures
	// dirs are the run folders by session and run; failures the errors
	// of the runs that failed, by folder (a full disk leaves no report
	// that says so).
	dirs     map[[2]int]string
	failures map[string]string
	current  int // the last session's number
	// numbers are the sessions' numbers in their folders' names, by
	// session; lastNumber the last one given.
	numbers    map[int]int
	lastNumber int
}

// stampLayout is the time that starts a run folder's name: when the
// server started.
const stampLayout = "20060102-150405"

// newHost returns the host of cfg.
func newHost(cfg Config) (*host, error) {
	site, err := os.OpenRoot(cfg.Site)
	if err != nil {
		return nil, err
	}
	runs, err := os.OpenRoot(cfg.Runs)
	if err != nil {
		return nil, err
	}
	return &host{cfg: cfg, site: site, runs: runs, stamp: time.Now().Format(stampLayout),
		clients: map[chan []byte]bool{}, base: map[string][]byte{}, dirs: map[[2]int]string{}, failures: map[string]string{}, numbers: map[int]int{}}, nil
}

// OpenWebGPU opens the native WebGPU backend, unless the server keeps to
// the CPU.
func (h *host) OpenWebGPU() (kernels.Backend, string) {
	if h.cfg.Backend == experiment.BackendCPU || h.cfg.OpenWebGPU == nil {
		why := h.cfg.NoGPU
		if why == "" {
			why = "deeplda ui was started with -backend cpu"
		}
		return nil, "The native engine trains on this machine's CPU: " + why + "."
	}
	return h.cfg.OpenWebGPU()
}

// dataIndex is the path of the site's data index (see engine).
const dataIndex = "site/data/index.json"

// Fetch reads the site's files from the site's folder, except its data
// sets, which come from the data folder: the index lists those of
// images.Hosted whose files are all there.
func (h *host) Fetch(name string) ([]byte, error) {
	rest, isData := strings.CutPrefix(name, "site/data/")
	if !isData {
		return h.site.ReadFile(name)
	}
	if h.cfg.Data == "" {
		return nil, fmt.Errorf("deeplda ui was started without -datadir")
	}
	data, err := os.OpenRoot(h.cfg.Data)
	if err != nil {
		return nil, err
	}
	defer data.Close()
	if name != dataIndex {
		return data.ReadFile(rest)
	}
	idx := map[string][]string{}
	for _, set := range images.Hosted() {
		s, _ := images.Lookup(set)
		files := s.Files()
		all := true
		for _, f := range files {
			if _, err := data.Stat(filepath.Join(set, f)); err != nil {
				all = false
			}
		}
		if all {
			idx[set] = files
		}
	}
	return json.Marshal(idx)
}

// Yield lets other goroutines run; commands come on the server's own.
func (h *host) Yield() { runtime.Gosched() }

// LoseDevice does nothing: debug=lose-device is the page's.
func (h *host) LoseDevice() {}

// Engine says the engine runs natively.
func (h *host) Engine() string { return "native" }

// Memory is "": no WebAssembly memory.
func (h *host) Memory() string { return "" }

// replayed is an event of the current session as a page that connects
// late is sent it: run is the run of a run's state (EvRun), else -1.
type replayed struct {
	run int
	b   []byte
}

// runSoFar is what a run's states (EvRun) told so far: every figure as
// last drawn, the last checkpoint.
type runSoFar struct {
	figures    protocol.Figures
	checkpoint []byte
}

// encode returns ev as the event stream carries it (protocol.Envelope, the
// checkpoint in base64), or nil when it cannot be encoded.
func encode(ev protocol.Event) []byte {
	b, err := json.Marshal(protocol.Split(ev))
	if err != nil {
		return nil
	}
	return b
}

// merged returns the run's state ev (EvRun) with the figures and the
// checkpoint that the run's earlier states sent and ev does not, and the
// session's overview so far: the one state that stands for them all, so
// that a page connecting late is sent each figure and checkpoint once, not
// every epoch's.
func (h *host) merged(ev protocol.Event) protocol.Event {
	r := h.soFar[ev.Run]
	if r == nil {
		r = &runSoFar{figures: protocol.Figures{}}
		h.soFar[ev.Run] = r
	}
	for name, svg := range ev.RunState.Figures {
		r.figures[name] = svg
	}
	for name, svg := range ev.Overview {
		h.overview[name] = svg
	}
	if ev.Checkpoint != nil {
		r.checkpoint = ev.Checkpoint
	}
	st := *ev.RunState
	st.Figures, st.Checkpoint = r.figures, r.checkpoint != nil
	ev.RunState, ev.Overview, ev.Checkpoint = &st, h.overview, r.checkpoint
	return ev
}

// Emit sends ev to every page that listens and keeps it for those that
// come later. All pages are sent the same encoded message.
func (h *host) Emit(ev protocol.Event) {
	b := encode(ev)
	if b == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	line := ev.Kind == protocol.EvProgress || ev.Kind == protocol.EvPhase
	switch ev.Kind {
	case protocol.EvSession:
		h.current = ev.Session
		h.soFar, h.overview = map[int]*runSoFar{}, protocol.Figures{}
		h.begun, h.ended = ev, false
	case protocol.EvDone, protocol.EvStopped, protocol.EvNoData, protocol.EvOpened:
		h.ended = h.ended || ev.Session == h.current
	case protocol.EvFailed:
		if d := h.dirs[[2]int{ev.Session, ev.Run}]; d != "" {
			h.failures[d] = ev.Error
		}
		h.ended = h.ended || ev.Session == h.current
	}
	switch {
	case ev.Kind == protocol.EvSession:
		h.session = []replayed{{-1, b}}
	case ev.Session == 0:
		h.base[ev.Kind] = b
	case line && h.lastLine:
		h.session[len(h.session)-1] = replayed{-1, b}
	case ev.Kind == protocol.EvRun && ev.RunState != nil && h.soFar != nil:
		h.session = slices.DeleteFunc(h.session, func(r replayed) bool { return r.run == ev.Run })
		if m := encode(h.merged(ev)); m != nil {
			h.session = append(h.session, replayed{ev.Run, m})
		}
	default:
		h.session = append(h.session, replayed{-1, b})
	}
	h.lastLine = line && ev.Kind != protocol.EvSession && ev.Session != 0
	for c := range h.clients {
		select {
		case c <- b:
		default:
			// A page that reads no more is dropped; its EventSource
			// connects again and is sent the state anew.
			delete(h.clients, c)
			close(c)
		}
	}
}

// maxViews bounds the pages that listen to the engine at once.
const maxViews = 32

// subscribe returns a new listener's channel and what it is sent first,
// or an error when maxViews listen.
func (h *host) subscribe() (chan []byte, [][]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) >= maxViews {
		return nil, nil, fmt.Errorf("%d pages listen to this engine already: close one", maxViews)
	}
	c := make(chan []byte, 1<<12)
	h.clients[c] = true
	var first [][]byte
	for _, k := range []string{protocol.EvReady, protocol.EvData, protocol.EvModels} {
		if b := h.base[k]; b != nil {
			first = append(first, b)
		}
	}
	for i, r := range h.session {
		if i == 0 && h.ended {
			// The session's start, marked: the page offers the session
			// rather than showing it in place of its own settings.
			ev := h.begun
			ev.Ended = true
			if b := encode(ev); b != nil {
				r.b = b
			}
		}
		first = append(first, r.b)
	}
	return c, first, nil
}

// unsubscribe forgets a listener.
func (h *host) unsubscribe(c chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients[c] {
		delete(h.clients, c)
		close(c)
	}
}

// unsafeName matches what a folder's name does not keep of a run's label.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// RunDir makes the folder of a run in the runs folder:
// <start>-s<n>-r<run>-<label>, where n numbers the server's sessions from
// 1 in the order their first run began (pages number their sessions as
// they like), and the next number is taken where a folder of that name
// exists already.
func (h *host) RunDir(session, run int, label string) (string, error) {
	suffix := ""
	if l := strings.Trim(unsafeName.ReplaceAllString(label, "-"), "-"); l != "" {
		suffix = "-" + l
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := h.numbers[session]
	for {
		if !ok {
			h.lastNumber++
			n = h.lastNumber
		}
		name := fmt.Sprintf("%s-s%d-r%d%s", h.stamp, n, run+1, suffix)
		err := h.runs.Mkdir(name, 0o755)
		switch {
		case err == nil:
			h.numbers[session] = n
			h.dirs[[2]int{session, run}] = name
			return filepath.Join(h.cfg.Runs, name), nil
		case !os.IsExist(err):
			return "", fmt.Errorf("the run's folder: %w", err)
		}
		ok = false
	}
}
