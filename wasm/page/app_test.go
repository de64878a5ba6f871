package page

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// lockedDoc is a fakeDoc that the page's goroutines and the test share.
type lockedDoc struct {
	mu sync.Mutex
	d  fakeDoc
}

func (l *lockedDoc) do(fn func(d fakeDoc)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn(l.d)
}

func (l *lockedDoc) SetText(sel, text string)    { l.do(func(d fakeDoc) { d.SetText(sel, text) }) }
func (l *lockedDoc) SetHTML(sel, html string)    { l.do(func(d fakeDoc) { d.SetHTML(sel, html) }) }
func (l *lockedDoc) SetAttr(sel, name, v string) { l.do(func(d fakeDoc) { d.SetAttr(sel, name, v) }) }
func (l *lockedDoc) RemoveAttr(sel, name string) { l.do(func(d fakeDoc) { d.RemoveAttr(sel, name) }) }
func (l *lockedDoc) SetValue(sel, v string)      { l.do(func(d fakeDoc) { d.SetValue(sel, v) }) }
func (l *lockedDoc) SetChecked(sel string, on bool) {
	l.do(func(d fakeDoc) { d.SetChecked(sel, on) })
}
func (l *lockedDoc) SetClass(sel, class string, on bool) {
	l.do(func(d fakeDoc) { d.SetClass(sel, class, on) })
}
func (l *lockedDoc) Append(sel, html string) { l.do(func(d fakeDoc) { d.Append(sel, html) }) }
func (l *lockedDoc) Remove(sel string)       { l.do(func(d fakeDoc) { d.Remove(sel) }) }

func (l *lockedDoc) Text(sel string) (s string) { l.do(func(d fakeDoc) { s = d.Text(sel) }); return }
func (l *lockedDoc) Attr(sel, name string) (s string) {
	l.do(func(d fakeDoc) { s = d.Attr(sel, name) })
	return
}
func (l *lockedDoc) HasClass(sel, class string) (b bool) {
	l.do(func(d fakeDoc) { b = d.HasClass(sel, class) })
	return
}
func (l *lockedDoc) Value(sel string) (s string) { l.do(func(d fakeDoc) { s = d.Value(sel) }); return }
func (l *lockedDoc) Checked(sel string) (b bool) {
	l.do(func(d fakeDoc) { b = d.Checked(sel) })
	return
}

// hidden reports whether sel's element is hidden.
func (l *lockedDoc) hidden(sel string) (b bool) {
	l.do(func(d fakeDoc) { b = d.has(sel, "hidden") })
	return
}

// html returns the HTML of sel's element.
func (l *lockedDoc) html(sel string) (s string) { l.do(func(d fakeDoc) { s = d.el(sel).html }); return }

// enabled reports whether sel's control is enabled.
func (l *lockedDoc) enabled(sel string) (b bool) {
	l.do(func(d fakeDoc) { b = !d.has(sel, "disabled") })
	return
}

// testHost is a page.Host whose engine is package engine, natively: the
// commands and events travel as in the browser, the events split into
// their envelope and put back together.
type testHost struct {
	app    *App
	engine *engine.Engine
	mu     sync.Mutex
	sent   []protocol.Command
	saved  map[string][]byte
	url    config.Query
	files  map[string][]byte // what Fetch serves
	reload int
}

// bytesBuffer is a Buffer of bytes.
type bytesBuffer []byte

func (b bytesBuffer) Bytes() []byte { return b }

// newApp starts a page on a native engine.
func newApp(t *testing.T, native string) (*App, *lockedDoc, *testHost) {
	t.Helper()
	d := &lockedDoc{d: fakeDoc{}}
	h := &testHost{saved: map[string][]byte{}}
	h.app = NewApp(d, h, native)
	return h.app, d, h
}

func (h *testHost) StartEngine(bool) { h.engine = engine.New(h) }

func (h *testHost) Send(c protocol.Command, files []Upload) {
	h.mu.Lock()
	h.sent = append(h.sent, c)
	h.mu.Unlock()
	var fs []engine.File
	for _, f := range files {
		fs = append(fs, engine.File{Name: f.Name, Read: func() ([]byte, error) { return f.Handle.([]byte), nil }})
	}
	h.engine.Handle(c, fs)
}

func (h *testHost) Save(name, _ string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.saved[name] = data
}
func (h *testHost) SaveBuffer(name, mime string, b Buffer) { h.Save(name, mime, b.Bytes()) }
func (h *testHost) SavePNG(name, svg string) error {
	h.Save(name, "image/png", []byte(svg))
	return nil
}

func (h *testHost) Fetch(url string) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if b, ok := h.files[url]; ok {
		return b, nil
	}
	return nil, errors.New("HTTP 404 Not Found")
}

func (h *testHost) SetURL(q config.Query) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.url = q
}
func (h *testHost) Reload()         { h.reload++ }
func (h *testHost) Log(_, _ string) {}
func (h *testHost) Yield()          {}
func (h *testHost) Frame()          {}
func (h *testHost) LoseDevice()     {}
func (h *testHost) Memory() string  { return "" }
func (h *testHost) Engine() string  { return "native" }
func (h *testHost) OpenWebGPU() (kernels.Backend, string) {
	return nil, "no WebGPU in tests"
}

// Emit is the engine's: the event goes to the page in its envelope.
func (h *testHost) Emit(ev protocol.Event) {
	env := protocol.Split(ev)
	back, err := protocol.DecodeEvent([]byte(env.JSON))
	if err != nil {
		panic(err)
	}
	for k, svg := range env.Figures {
		back.AddFigure(k, svg)
	}
	r := Received{Ev: back}
	if env.Checkpoint != nil {
		r.Checkpoint = bytesBuffer(env.Checkpoint)
	}
	h.app.Receive(r)
}

// commands returns the kinds of the commands sent so far.
func (h *testHost) commands() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, c := range h.sent {
		out = append(out, c.Kind)
	}
	return out
}

// address returns the page's address bar's query.
func (h *testHost) address() config.Query {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.url
}

// count returns the number of files the page saved.
func (h *testHost) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.saved)
}

// file returns what the page saved as name.
func (h *testHost) file(name string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.saved[name]
}

// waitFor waits until cond holds of d; it fails the test after two
// minutes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within two minutes", what)
		}
	}
}

// TestAppTrains loads the page with a query, trains a run on the native
// engine through the page's controls, stops it, resumes it and downloads
// its files.
func TestAppTrains(t *testing.T) {
	a, d, h := newApp(t, "")
	a.Start(config.Query{"demo": {"deep"}, "backend": {"cpu"}, "epochs": {"3"}, "train": {"600"}, "test": {"300"}})
	waitFor(t, "the engine", func() bool { return d.Attr("body", "data-ready") == "1" })
	if State(d) != "idle" || d.Value("#f-epochs") != "3" || !d.hidden("#first-note") || !d.hidden("#folders-box") {
		t.Fatalf("after loading: state %q, epochs %q", State(d), d.Value("#f-epochs"))
	}
	d.SetValue("#f-epochs", "40")
	a.Edited()
	if q := h.address(); q.Get("epochs") != "40" || q.Get("demo") != "deep" {
		t.Errorf("the address after an edit: %v", q)
	}
	a.Submit()
	if State(d) != "training" {
		t.Fatalf("after Train: state %q", State(d))
	}
	waitFor(t, "an epoch", func() bool { return strings.HasPrefix(d.Text("#progress-text"), "epoch ") })
	a.Stop()
	waitFor(t, "the stop", func() bool { return State(d) == "idle" })
	if d.hidden("#resume") {
		t.Fatal("a stopped run offers no Resume")
	}
	d.SetValue("#f-epochs", "3")
	a.Resume()
	waitFor(t, "the end", func() bool { return State(d) != "training" })
	if State(d) != "done" || !strings.HasPrefix(d.Text("#progress-text"), "Done: 1 run in ") {
		t.Fatalf("after resuming: state %q, line %q, notice %q", State(d), d.Text("#progress-text"), d.Text("#notice"))
	}
	if got, want := strings.Join(h.commands(), " "), "hello start stop resume"; got != want {
		t.Errorf("commands %q, want %q", got, want)
	} else if h.sent[2].Session != h.sent[1].Session || h.sent[3].Session != h.sent[1].Session {
		t.Errorf("stopped session %d and resumed %d, not the session %d", h.sent[2].Session, h.sent[3].Session, h.sent[1].Session)
	}
	var rep struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(d.Text("#report")), &rep); err != nil || rep.Status != "done" {
		t.Errorf("#report: %v, status %q", err, rep.Status)
	}
	a.SaveReport()
	a.SaveCheckpoint()
	a.SaveAll()
	if h.count() != 3 {
		t.Fatalf("saved %d files, want report.json, the checkpoint and the zip", h.count())
	}
	h.mu.Lock()
	saved := maps.Clone(h.saved)
	h.mu.Unlock()
	for name, b := range saved {
		switch {
		case strings.HasSuffix(name, "report.json"):
			if string(b) != d.Text("#report") {
				t.Errorf("%s is not #report", name)
			}
		case strings.HasSuffix(name, ".zip"):
			z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil || len(z.File) < 3 {
				t.Errorf("%s: %v", name, err)
			}
		case strings.HasSuffix(name, ".safetensors"):
			if len(b) < 1000 {
				t.Errorf("%s: %d bytes", name, len(b))
			}
		default:
			t.Errorf("saved %s", name)
		}
	}
	a.PickRun("0")
	a.PickRun("7")
	a.SaveTable(TableSummary)
	waitFor(t, "the summary's CSV", func() bool { return h.count() == 4 })
	a.SwitchDemo(config.Classical)
	if q := h.address(); q.Get("demo") != "classical" || a.sess != nil || State(d) != "idle" {
		t.Errorf("after switching: address %v, state %q", q, State(d))
	}
}

// TestAppBadBench checks the benchmark's bad settings: the error state,
// the notice and the error in #report, and no engine.
func TestAppBadBench(t *testing.T) {
	a, d, h := newApp(t, "")
	a.Start(config.Query{"bench": {"1"}, "sizes": {"x"}})
	if State(d) != "error" || !strings.HasPrefix(d.Text("#notice"), "The benchmark's settings: ") || !strings.Contains(d.Text("#report"), `"error"`) || h.engine != nil {
		t.Errorf("state %q, notice %q, report %q", State(d), d.Text("#notice"), d.Text("#report"))
	}
}

// TestAppOffer checks deeplda ui's ended session: offered on its button,
// not shown, and shown when the button is pressed.
func TestAppOffer(t *testing.T) {
	a, d, _ := newApp(t, "linux/amd64")
	a.route.Remote = true
	a.handleBatch([]Received{{Ev: protocol.Event{Kind: protocol.EvSession, Session: 5, Runs: []string{"LDA, DNLL"}, Ended: true}},
		{Ev: protocol.Event{Kind: protocol.EvRun, Session: 5}}})
	if d.hidden("#show-last") || d.Text("#show-last") != "Show the native engine's last run: LDA, DNLL" || a.sess != nil || len(a.offered) != 2 {
		t.Fatalf("the offer: %q, %d events", d.Text("#show-last"), len(a.offered))
	}
	a.ShowLast()
	if !d.hidden("#show-last") || a.offered != nil {
		t.Error("the offer stays")
	}
	for i := range 2 {
		select {
		case r := <-a.events:
			if r.Ev.Session != 5 || r.Ev.Ended {
				t.Errorf("event %d again: %+v", i, r.Ev)
			}
		case <-time.After(time.Minute):
			t.Fatal("the offered events do not come again")
		}
	}
}

// TestAppFolders checks deeplda ui's runs folder: the list read from
// runs/index.json, ticks, the CSV, a file and an unreadable list.
func TestAppFolders(t *testing.T) {
	a, d, h := newApp(t, "linux/amd64")
	if d.hidden("#folders-box") {
		t.Fatal("deeplda ui's page hides its runs folder")
	}
	list, _ := json.Marshal([]protocol.RunFolder{{Name: "a", Path: "runs/a/", Label: "LDA", Status: "done", Report: true}, {Name: "b", Path: "runs/b/", Label: "softmax", Status: "done", Report: true}})
	h.files = map[string][]byte{"runs/index.json": list, "runs/a/report.json": []byte("{}")}
	a.refreshFolders()
	waitFor(t, "the list", func() bool { return strings.Contains(d.html("#folders"), "softmax") })
	a.TickFolder("a", true)
	a.TickFolder("b", true)
	if !d.enabled("#folders-compare") || a.FolderMarkStyle("b") == "" || a.FolderMarkStyle("c") != "" {
		t.Error("two ticked runs cannot be compared")
	}
	a.SaveFolders()
	a.SaveFolderFile("runs/a/report.json")
	waitFor(t, "the file", func() bool { return h.file("report.json") != nil })
	if h.count() != 2 {
		t.Errorf("saved %d files", h.count())
	}
	h.files = nil
	a.refreshFolders()
	waitFor(t, "the error", func() bool { return strings.HasPrefix(d.Text("#folders"), "The runs folder cannot be read: HTTP 404") })
}
