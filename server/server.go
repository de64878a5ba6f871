// Package server is deeplda ui's web server: it serves the built site on
// the loopback address and, to the page it serves, an engine (package
// engine) that trains natively, on every core or the machine's GPU. The
// page speaks the run protocol to it as it does to the engine in its Web
// Worker: commands are POSTed to /engine/command, events come as
// server-sent events from /engine/events. Each run is a folder of the runs
// folder with what deeplda train and synth write.
//
// Only the user gets in: the engine and the runs folder need the random
// token that the printed URL carries, which the page keeps (in its
// origin's storage, which other ports cannot read, unlike a cookie) and
// sends in the X-Deeplda-Token header (its event stream in the query);
// the site's own files, public anyway, need none. The Host header must
// name the server itself and the Origin header, when there is one, the
// server's own page (no DNS rebinding, no other site's page posting
// commands); no page may frame the server's (frame-ancestors 'none',
// X-Frame-Options DENY); the runs folder's files are served sandboxed
// (Content-Security-Policy: sandbox), so that a figure there runs no
// script in the server's origin; files are served from the site and the
// runs folder only; request bodies, the pages that listen, the time a
// connection may idle and the runs that train are bounded (one session at
// a time, of at most 16 runs, that fits in the machine's memory).
package server

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/deeplda/deeplda/engine"
	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/protocol"
)

// Config is what a Server serves.
type Config struct {
	// Site is the folder of the built site (./build.sh site DIR).
	Site string
	// Runs is the runs folder: a folder a run.
	Runs string
	// Data is the folder of the image data sets (<name>/<files>, as
	// deeplda train's -datadir), "" for none.
	Data string
	// Backend is what "auto" means to this engine: experiment.BackendCPU
	// keeps it on the CPU.
	Backend experiment.BackendKind
	// OpenWebGPU opens the native WebGPU backend, or says why not.
	OpenWebGPU func() (kernels.Backend, string)
	// NoGPU says why the engine keeps to the CPU (Backend cpu or no
	// OpenWebGPU); "" says -backend cpu.
	NoGPU string
	// Describe names the engine on the page ("this machine: 16 cores,
	// NVIDIA ... (Vulkan)").
	Describe string
	// Memory is the machine's memory, which a start's runs must fit in
	// (as deeplda train and synth check theirs); zero: no bound.
	Memory experiment.Memory
}

// Limits on what a request may send.
const (
	maxCommand = 1 << 20   // a command's JSON
	maxUpload  = 512 << 20 // a command with files (a checkpoint, data files)
)

// Server is deeplda ui's server: one engine, its views and the runs
// folder.
type Server struct {
	mu     sync.Mutex // admits one command at a time (see admit)
	cfg    Config
	token  string
	hosts  map[string]bool // the Host headers it answers to
	anyIP  string          // the port at which any IP address names it, or ""
	engine *engine.Engine
	host   *host
	// uploads is the spool folder of the commands' files (see receive);
	// uploading admits one command's files at a time.
	uploads   string
	uploading sync.Mutex
}

// New returns a server for cfg that answers to the address addr (the
// listener's, "127.0.0.1:8123").
func New(cfg Config, addr string) (*Server, error) {
	if _, err := os.Stat(path.Join(cfg.Site, "index.html")); err != nil {
		return nil, fmt.Errorf("no site in %s (%v): build it with ./build.sh site %s in a checkout of deeplda, or name the built site with -site", cfg.Site, err, cfg.Site)
	}
	if err := os.MkdirAll(cfg.Runs, 0o755); err != nil {
		return nil, fmt.Errorf("the runs folder: %w", err)
	}
	b := make([]byte, 24)
	_, err := rand.Read(b)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, token: hex.EncodeToString(b)}
	s.hosts, s.anyIP = hostsFor(addr)
	if s.host, err = newHost(cfg); err != nil {
		return nil, err
	}
	if s.uploads, err = os.MkdirTemp("", "deeplda-ui-uploads-"); err != nil {
		return nil, err
	}
	s.engine = engine.New(s.host)
	return s, nil
}

// hostsFor returns the Host headers that name a server listening on addr:
// its own address, and for a loopback one, localhost at its port; and
// for an address of every interface (0.0.0.0, ::), the port at which any
// IP address names it (else ""), as another machine reaches it. A name
// other than localhost never does: a page of another site cannot make
// its own name point here (DNS rebinding).
func hostsFor(addr string) (hosts map[string]bool, anyIP string) {
	h := map[string]bool{addr: true}
	ip, port, err := net.SplitHostPort(addr)
	if err != nil {
		return h, ""
	}
	p := net.ParseIP(ip)
	if p != nil && (p.IsLoopback() || p.IsUnspecified()) {
		for _, name := range []string{"localhost", "127.0.0.1", "[::1]"} {
			h[name+":"+port] = true
		}
	}
	if p != nil && p.IsUnspecified() {
		return h, port
	}
	return h, ""
}

// answers reports whether host (a Host header, or an Origin's host) names
// this server.
func (s *Server) answers(host string) bool {
	if s.hosts[host] {
		return true
	}
	ip, port, err := net.SplitHostPort(host)
	return err == nil && s.anyIP != "" && port == s.anyIP && net.ParseIP(ip) != nil
}

// Token is the secret that every request to the engine or the runs
// folder carries.
func (s *Server) Token() string { return s.token }

// TokenHeader is the request header that carries the token.
const TokenHeader = "X-Deeplda-Token"

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /engine/events", s.events)
	mux.HandleFunc("POST /engine/command", s.command)
	mux.HandleFunc("GET /runs/index.json", s.runsIndex)
	mux.Handle("GET /runs/", http.StripPrefix("/runs/", http.FileServerFS(noListing{s.host.runs.FS()})))
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /index.html", s.index)
	mux.Handle("GET /", http.FileServerFS(noListing{s.host.site.FS()}))
	return s.guard(mux)
}

// Timeouts of a connection: the time it may take to send a request's
// header, and to idle between two requests.
const (
	headerTimeout = 10 * time.Second
	idleTimeout   = 30 * time.Second
)

// HTTPServer returns the HTTP server of the handler: a connection that
// sends no request header within headerTimeout, or no next request within
// idleTimeout, is closed, so that idle connections cannot use up the
// process's file handles. (No write timeout here: the event streams last;
// events sets its own.)
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}
}

// guard refuses a request unless its Host is the server's, its Origin
// (when it has one) the server's page, and, for the engine and the runs
// folder, it carries the token (TokenHeader, or the query's token=). Every
// response refuses to be framed; those of the runs folder are sandboxed.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The path as the mux reads it, whatever its spelling.
		p := path.Clean("/" + r.URL.Path)
		runs := p == "/runs" || strings.HasPrefix(p, "/runs/")
		if runs {
			// A run's files are data: a figure opened here runs no
			// script and loads nothing in the server's origin.
			h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'")
		} else {
			h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		}
		if !s.answers(r.Host) {
			http.Error(w, "deeplda ui: this server does not answer to the host "+r.Host, http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.ownOrigin(o) {
			http.Error(w, "deeplda ui: requests from "+o+" are refused", http.StatusForbidden)
			return
		}
		if !runs && p != "/engine" && !strings.HasPrefix(p, "/engine/") {
			next.ServeHTTP(w, r)
			return
		}
		token := r.Header.Get(TokenHeader)
		if token == "" {
			token = r.URL.Query().Get("token")
		}
		if !s.valid(token) {
			http.Error(w, "deeplda ui: this page needs the token of the URL that deeplda ui printed: open that URL", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// valid reports whether token is the server's.
func (s *Server) valid(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) == 1
}

// ownOrigin reports whether origin is a page of this server.
func (s *Server) ownOrigin(origin string) bool {
	host, ok := strings.CutPrefix(origin, "http://")
	return ok && s.answers(host)
}

// index serves the site's index.html with the native engine named in a
// meta element, by which the page knows that it can train natively.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	b, err := os.ReadFile(path.Join(s.cfg.Site, "index.html"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	meta := fmt.Sprintf(`<meta name="deeplda-native" content="%s">`, html.EscapeString(s.cfg.Describe))
	b = bytes.Replace(b, []byte("<head>"), []byte("<head>\n"+meta), 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// command hands a command (JSON, or a multipart form with its JSON in
// "json" and its files) to the engine.
func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	var js []byte
	var files []upload
	var err error
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		js, files, err = s.receive(w, r)
		if err != nil {
			http.Error(w, "deeplda ui: reading the command's files: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
	} else {
		js, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxCommand))
		if err != nil {
			http.Error(w, "deeplda ui: reading the command: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
	}
	c, err := decodeCommand(js)
	if err != nil {
		discard(files)
		http.Error(w, "deeplda ui: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.host.completeResumes(c.Start)
	if err == nil {
		err = s.admit(c)
	}
	if err != nil {
		discard(files)
		// Only the page that asked hears of it, as a refusal of its
		// session (or the end of its benchmark): the others' sessions go
		// on.
		ev := protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: err.Error()}
		if c.Kind == protocol.CmdBench {
			ev = protocol.Event{Kind: protocol.EvBenchDone, Error: err.Error()}
		}
		b, _ := protocol.Encode(ev)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write(b)
		return
	}
	var ef []engine.File
	for _, u := range files {
		ef = append(ef, u.file())
	}
	s.engine.Handle(c, ef)
	w.WriteHeader(http.StatusNoContent)
}

// upload is a file that came with a command, spooled to disk.
type upload struct{ name, path string }

// file returns u as the engine reads it: once, after which the spooled
// file goes.
func (u upload) file() engine.File {
	return engine.File{Name: u.name, Read: func() ([]byte, error) {
		defer os.Remove(u.path)
		return os.ReadFile(u.path)
	}}
}

// discard removes the spooled files of a command that does not run.
func discard(files []upload) {
	for _, u := range files {
		os.Remove(u.path)
	}
}

// receive reads a command with files, a multipart form of at most
// maxUpload bytes: its JSON (the part "json") and its files (the parts
// "files"). It streams each file to a file of the spool folder, which the
// engine reads when the command's turn comes: a command that waits its
// turn does not wait in memory. One command's files are received at a
// time.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) (js []byte, files []upload, err error) {
	s.uploading.Lock()
	defer s.uploading.Unlock()
	defer func() {
		if err != nil {
			discard(files)
			files = nil
		}
	}()
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, err
	}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return js, files, nil
		}
		if err != nil {
			return nil, files, err
		}
		switch p.FormName() {
		case "json":
			if js, err = io.ReadAll(io.LimitReader(p, maxCommand+1)); err == nil && len(js) > maxCommand {
				err = fmt.Errorf("a command's JSON is at most %d bytes", maxCommand)
			}
		case "files":
			var u upload
			u, err = s.spool(p)
			if err == nil {
				files = append(files, u)
			}
		}
		if err != nil {
			return nil, files, err
		}
	}
}

// spool writes an uploaded file to the spool folder.
func (s *Server) spool(p *multipart.Part) (upload, error) {
	f, err := os.CreateTemp(s.uploads, "upload-*")
	if err != nil {
		return upload{}, err
	}
	_, err = io.Copy(f, p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return upload{}, err
	}
	return upload{name: p.FileName(), path: f.Name()}, nil
}

// Close removes the spool folder, with the files of the commands that
// never ran.
func (s *Server) Close() error { return os.RemoveAll(s.uploads) }

// maxRuns bounds the runs of one session.
const maxRuns = 16

// admit refuses a command that would train beside the session that
// trains (one session trains at a time, whichever page started it), that
// plans more than maxRuns runs, or a run or a benchmark that needs more
// than the machine's memory (a clear refusal, not the kernel's kill). The
// caller holds s.mu, so that two pages cannot both start.
func (s *Server) admit(c protocol.Command) error {
	if c.Bench != nil {
		if err := c.Bench.Suite.CheckMemory(s.cfg.Memory); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if !c.Trains() {
		return nil
	}
	if s.engine.Training() {
		return fmt.Errorf("a session trains on this machine already (started from this page or another): stop it, or wait until it ends")
	}
	if c.Start == nil {
		return nil
	}
	if len(c.Start.Jobs) > maxRuns {
		return fmt.Errorf("a session trains at most %d runs here, not %d", maxRuns, len(c.Start.Jobs))
	}
	for _, j := range c.Start.Jobs {
		var err error
		switch {
		case j.Synth != nil:
			err = j.Synth.CheckMemory(s.cfg.Memory)
		case j.Image != nil:
			err = j.Image.CheckMemory(s.cfg.Memory)
		}
		if err != nil {
			return fmt.Errorf("run %q: %w", j.Label, err)
		}
	}
	return nil
}

// noListing is a file system (an os.Root's, which no symbolic link
// leaves) whose folders and dotfiles cannot be opened, so that the file
// server lists none and serves no .git or .resume.json; whatever cannot be
// opened (a link out, a name too long) is not found.
type noListing struct{ fs.FS }

// Open opens a file that is not a folder, nor in or named like a dotfile.
func (n noListing) Open(name string) (fs.File, error) {
	notFound := &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return nil, notFound
		}
	}
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, notFound
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		f.Close()
		return nil, notFound
	}
	return f, nil
}

// eventTimeout is the longest that writing one event to a page may take:
// a page that reads no more is dropped then (its EventSource connects
// again and is sent the state anew), not kept with what it was sent.
var eventTimeout = time.Minute

// events streams the engine's events to a page (server-sent events): first
// where the engine stands (see host.subscribe), then each event as it
// comes. Every page is sent the same encoded messages, written as they
// are, each within eventTimeout.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	c, first, err := s.host.subscribe()
	if err != nil {
		http.Error(w, "deeplda ui: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer s.host.unsubscribe(c)
	send := func(b []byte) error {
		if err := rc.SetWriteDeadline(time.Now().Add(eventTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := io.WriteString(w, "data: "); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n\n"); err != nil {
			return err
		}
		return rc.Flush()
	}
	for _, b := range first {
		if send(b) != nil {
			return
		}
	}
	if len(first) == 0 && rc.Flush() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case b, ok := <-c:
			if !ok || send(b) != nil {
				return
			}
		}
	}
}

// decodeCommand reads a command: one that the engine does not know is an
// error (the page that sent it is told, not every page); the debug
// choices, the page's own, are dropped.
func decodeCommand(b []byte) (protocol.Command, error) {
	c, err := protocol.DecodeCommand(b)
	if err != nil {
		return c, err
	}
	if !engine.Knows(c.Kind) {
		return c, fmt.Errorf("unknown command %q", c.Kind)
	}
	if c.Hello != nil {
		c.Hello.Debug = ""
		c.Hello.Threads = 0
	}
	return c, nil
}

// Training reports whether a session trains or waits to.
func (s *Server) Training() bool { return s.engine.Training() }

// Stop stops the session that trains, if one does, and waits (at most
// wait) until it has written its runs: a run goes back to its last whole
// epoch, which its folder holds. The next start resumes it: that is
// recorded first, before the run's last evaluation, however long that
// takes and whatever ends the process meanwhile (a second Ctrl-C), and
// again once it has stopped.
func (s *Server) Stop(wait time.Duration) error {
	if !s.engine.Training() {
		return nil
	}
	if err := s.host.noteUnfinished(); err != nil {
		return fmt.Errorf("recording the run to resume: %w", err)
	}
	s.engine.Handle(protocol.Command{Kind: protocol.CmdStop}, nil)
	deadline := time.Now().Add(wait)
	for s.engine.Training() {
		if time.Now().After(deadline) {
			return fmt.Errorf("the run did not stop within %v", wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s.host.noteUnfinished()
}

// Resume starts the runs that closing deeplda ui stopped (see Stop), one
// session each, and returns what it resumes and the reasons of those it
// cannot.
func (s *Server) Resume() (resumed, skipped []string) {
	jobs, skipped := s.host.resumeJobs()
	for i, job := range jobs {
		start := &protocol.Start{Jobs: []protocol.Job{job}, Backend: experiment.BackendAuto, Density: true}
		s.engine.Handle(protocol.Command{Kind: protocol.CmdStart, Session: resumeSession + i, Start: start}, nil)
		resumed = append(resumed, job.Resume)
	}
	return resumed, skipped
}
