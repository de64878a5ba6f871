package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// newTest returns a server on a site of one index.html and a runs folder
// holding one run, answering to addr.
func newTest(t *testing.T, addr string) *Server {
	t.Helper()
	site, runs := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<html><head><title>x</title></head></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(runs, "r1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "r1", "report.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(site, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, ".git", "config"), []byte("[core]"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Links out of both folders, which are not followed.
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{filepath.Join(site, "out.txt"), filepath.Join(runs, "r1", "out.txt")} {
		if err := os.Symlink(outside, l); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{Site: site, Runs: runs, Describe: `this machine: 2 cores <&>`}, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestGuard checks who gets in: the token (header or query) for the
// engine and the runs folder, the Host and the Origin, and which files are
// served.
func TestGuard(t *testing.T) {
	const addr = "127.0.0.1:8123"
	s := newTest(t, addr)
	h := s.Handler()
	do := func(method, target string, header map[string]string, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://"+addr+target, strings.NewReader(body))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if host := header["Host"]; host != "" {
			req.Host = host
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	tok := "?token=" + s.Token()
	first := do("GET", "/"+tok, nil, "")
	if first.Code != http.StatusOK || !strings.Contains(first.Body.String(), `<meta name="deeplda-native" content="this machine: 2 cores &lt;&amp;&gt;">`) {
		t.Errorf("with the token: %d %q", first.Code, first.Body.String())
	}
	withHeader := map[string]string{TokenHeader: s.Token()}
	for _, c := range []struct {
		name, method, target string
		header               map[string]string
		want                 int
	}{
		{"the page without the token", "GET", "/", nil, http.StatusOK},
		{"the runs without the token", "GET", "/runs/index.json", nil, http.StatusForbidden},
		{"a run's file without the token", "GET", "/runs/r1/report.json", nil, http.StatusForbidden},
		{"events without the token", "GET", "/engine/events", nil, http.StatusForbidden},
		{"a command without the token", "POST", "/engine/command", nil, http.StatusForbidden},
		{"the runs without the token, spelt otherwise", "GET", "/./runs//index.json", nil, http.StatusForbidden},
		{"a command without the token, spelt otherwise", "POST", "//engine/./command", nil, http.StatusForbidden},
		{"a wrong token", "GET", "/runs/index.json?token=abc", nil, http.StatusForbidden},
		{"a wrong token's header", "GET", "/runs/index.json", map[string]string{TokenHeader: "abc"}, http.StatusForbidden},
		{"the token's header", "GET", "/runs/index.json", withHeader, http.StatusOK},
		{"localhost", "GET", "/runs/index.json" + tok, map[string]string{"Host": "localhost:8123"}, http.StatusOK},
		{"a foreign Host", "GET", "/" + tok, map[string]string{"Host": "evil.example:8123"}, http.StatusForbidden},
		{"another port", "GET", "/" + tok, map[string]string{"Host": "127.0.0.1:9999"}, http.StatusForbidden},
		{"its own Origin", "GET", "/" + tok, map[string]string{"Origin": "http://127.0.0.1:8123"}, http.StatusOK},
		{"a foreign Origin", "POST", "/engine/command" + tok, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"a run's file", "GET", "/runs/r1/report.json" + tok, nil, http.StatusOK},
		{"a folder", "GET", "/runs/r1/" + tok, nil, http.StatusNotFound},
		{"outside the runs", "GET", "/runs/%2e%2e/x" + tok, nil, http.StatusNotFound},
		{"a dotfile of the runs", "GET", "/runs/.resume.json" + tok, nil, http.StatusNotFound},
		{"a dotfile of the site", "GET", "/.git/config", nil, http.StatusNotFound},
		{"a link out of the site", "GET", "/out.txt", nil, http.StatusNotFound},
		{"a link out of the runs", "GET", "/runs/r1/out.txt" + tok, nil, http.StatusNotFound},
		{"a name too long", "GET", "/runs/" + strings.Repeat("x", 300) + tok, nil, http.StatusNotFound},
		{"a bad command", "POST", "/engine/command" + tok, nil, http.StatusBadRequest},
	} {
		w := do(c.method, c.target, c.header, "")
		if w.Code != c.want && !(c.want == http.StatusNotFound && w.Code/100 == 3) {
			t.Errorf("%s: status %d, want %d (%s)", c.name, w.Code, c.want, strings.TrimSpace(w.Body.String()))
		}
		if len(w.Result().Cookies()) != 0 {
			t.Errorf("%s: a cookie, which every port of the host would get: %v", c.name, w.Result().Cookies())
		}
		// No page frames the server's, whatever the answer.
		if w.Header().Get("X-Frame-Options") != "DENY" || !strings.Contains(w.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: framing not refused: %v", c.name, w.Header())
		}
	}
	big := strings.Repeat(" ", maxCommand+1)
	if w := do("POST", "/engine/command"+tok, nil, big); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a command of %d bytes: status %d", len(big), w.Code)
	}
}

// TestRunFilesSandboxed checks that a run's hostile figure, opened from
// the runs folder, is served sandboxed: in no origin, with no script.
func TestRunFilesSandboxed(t *testing.T) {
	const addr = "127.0.0.1:8123"
	s := newTest(t, addr)
	hostile := `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/engine/command',{method:'POST'})</script></svg>`
	if err := s.host.runs.WriteFile("r1/embedding.svg", []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "http://"+addr+"/runs/r1/embedding.svg", nil)
	req.Header.Set(TokenHeader, s.Token())
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	csp := w.Header().Get("Content-Security-Policy")
	if w.Code != http.StatusOK || !strings.HasPrefix(csp, "sandbox;") || !strings.Contains(csp, "default-src 'none'") || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("status %d, headers %v", w.Code, w.Header())
	}
}

// TestNoSite checks the message when the site is missing.
func TestNoSite(t *testing.T) {
	_, err := New(Config{Site: filepath.Join(t.TempDir(), "none"), Runs: t.TempDir()}, "127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "./build.sh site") {
		t.Errorf("error %v", err)
	}
}

// TestRunPath checks that only the run folders right in the runs folder
// are runs, and that a stopped run without a resume file is not resumed.
func TestRunPath(t *testing.T) {
	s := newTest(t, "127.0.0.1:8123")
	for _, name := range []string{"", ".", "..", "../r1", "r1/..", ".resume.json", "none", "r1/report.json"} {
		if p, err := s.host.RunPath(name); err == nil {
			t.Errorf("RunPath(%q) = %s", name, p)
		}
	}
	if p, err := s.host.RunPath("r1"); err != nil || filepath.Base(p) != "r1" {
		t.Errorf("RunPath(r1) = %s, %v", p, err)
	}
	if err := s.host.runs.WriteFile(resumeList, []byte(`["r1", "../x"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	resumed, skipped := s.Resume()
	if len(resumed) != 0 || len(skipped) != 2 || !strings.Contains(skipped[0], "nothing to resume") {
		t.Errorf("resumed %v, skipped %q", resumed, skipped)
	}
	if _, err := s.host.runs.Stat(resumeList); err == nil {
		t.Error("the resume list is still there")
	}
}

// TestRunsIndex checks the runs folder's list.
func TestRunsIndex(t *testing.T) {
	s := newTest(t, "127.0.0.1:8123")
	rep := `{"kind": "synth", "status": "stopped", "config": {"epochs": 9}, "history": [{}, {}], "test": {"accuracy": 0.5, "ece": 0.25}}`
	for name, data := range map[string]string{"r1/report.json": rep, "r1/resume.safetensors": "x", "r1/embedding.svg": "<svg/>", "r2/x": ""} {
		if err := s.host.runs.WriteFile(name, []byte(data), 0o644); err != nil {
			if err := s.host.runs.Mkdir(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := s.host.runs.WriteFile(name, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	req := httptest.NewRequest("GET", "http://127.0.0.1:8123/runs/index.json?token="+s.Token(), nil)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	var list []protocol.RunFolder
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %v: %s", w.Code, err, w.Body)
	}
	if len(list) != 2 || list[0].Name != "r2" || list[0].Status != "unfinished" || list[0].Report {
		t.Fatalf("list %+v", list)
	}
	r := list[1]
	if r.Status != "stopped" || r.Kind != "synth" || r.Epochs != 9 || r.Trained != 2 || r.TestAccuracy != 0.5 || !r.Resumable || !r.Report || len(r.Figures) != 1 {
		t.Errorf("r1: %+v", r)
	}
}

// TestOneSessionAtATime checks the bound on what trains: while a session
// trains, a second start (from any page) is refused to its sender alone,
// as a refusal of its session, and so is a session of more than maxRuns
// runs; once the first stops, a start is taken again.
func TestOneSessionAtATime(t *testing.T) {
	const addr = "127.0.0.1:8124"
	s := newTest(t, addr)
	h := s.Handler()
	post := func(c protocol.Command) *httptest.ResponseRecorder {
		b, err := protocol.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "http://"+addr+"/engine/command?token="+s.Token(), strings.NewReader(string(b)))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	toy := func(epochs int) protocol.Job {
		c := experiment.DefaultSynth()
		c.Train, c.Test, c.Epochs, c.Batch = 256, 128, epochs, 64
		return protocol.Job{Label: "DNLL", Synth: &c}
	}
	start := func(session int, jobs ...protocol.Job) protocol.Command {
		return protocol.Command{Kind: protocol.CmdStart, Session: session, Start: &protocol.Start{Jobs: jobs, Backend: experiment.BackendCPU}}
	}
	if w := post(start(1, toy(100000))); w.Code != http.StatusNoContent {
		t.Fatalf("the first start: %d %s", w.Code, w.Body)
	}
	if !s.engine.Training() {
		t.Fatal("the engine does not train after a start")
	}
	w := post(start(2, toy(1)))
	ev, err := protocol.DecodeEvent(w.Body.Bytes())
	if w.Code != http.StatusConflict || err != nil || ev.Kind != protocol.EvRefused || ev.Session != 2 || !strings.Contains(ev.Error, "trains on this machine already") {
		t.Errorf("a second start while one trains: %d %q (%v)", w.Code, w.Body, err)
	}
	if w := post(protocol.Command{Kind: protocol.CmdResume, Session: 1}); w.Code != http.StatusConflict {
		t.Errorf("a resume while a session trains: %d %s", w.Code, w.Body)
	}
	if err := s.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	if s.engine.Training() {
		t.Fatal("the engine trains after Stop")
	}
	many := make([]protocol.Job, maxRuns+1)
	for i := range many {
		many[i] = toy(1)
	}
	if w := post(start(3, many...)); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "at most 16 runs") {
		t.Errorf("a session of %d runs: %d %s", len(many), w.Code, w.Body)
	}
	if w := post(start(4, toy(1))); w.Code != http.StatusNoContent {
		t.Errorf("a start after the stop: %d %s", w.Code, w.Body)
	}
	s.Stop(time.Minute)
}

// TestRunDir checks the run folders' names: the server numbers sessions
// from 1 whatever the pages number them, the runs of a session share the
// number, and a name that exists already is never reused.
func TestRunDir(t *testing.T) {
	s := newTest(t, "127.0.0.1:8125")
	h := s.host
	if err := os.Mkdir(filepath.Join(h.cfg.Runs, h.stamp+"-s3-r1-DNLL"), 0o755); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range []struct{ session, run int }{{1 << 25, 0}, {1 << 25, 1}, {7, 0}, {1 << 25, 2}} {
		dir, err := h.RunDir(c.session, c.run, "DNLL, λ = 1")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimPrefix(filepath.Base(dir), h.stamp+"-"))
	}
	want := []string{"s1-r1-DNLL-1", "s1-r2-DNLL-1", "s2-r1-DNLL-1", "s1-r3-DNLL-1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("folders %v, want %v", got, want)
	}
	if _, err := h.RunDir(9, 0, "DNLL"); err != nil {
		t.Fatal(err)
	}
	if d := h.dirs[[2]int{9, 0}]; d != h.stamp+"-s4-r1-DNLL" {
		t.Errorf("beside an existing folder of its name, a run got %s", d)
	}
}

// TestStopNotesResumeFirst checks that stopping records the run to resume
// before the run has stopped: a stop that outlasts its wait (a long last
// evaluation, a second Ctrl-C) still leaves the run resumable.
func TestStopNotesResumeFirst(t *testing.T) {
	s := newTest(t, "127.0.0.1:8123")
	dir := trainEpoch(t, s)
	if err := s.Stop(0); err == nil || !strings.Contains(err.Error(), "did not stop") {
		t.Errorf("Stop(0): %v", err)
	}
	b, err := s.host.runs.ReadFile(resumeList)
	if err != nil || string(b) != `["`+dir+`"]` {
		t.Errorf("when the run has yet to stop, %s holds %s (%v), want the run %s", resumeList, b, err, dir)
	}
	if err := s.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); s.Training(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not stop within a minute")
		}
	}
	if resumed, skipped := s.Resume(); len(resumed) != 1 || resumed[0] != dir || len(skipped) != 0 {
		t.Errorf("resumed %v, skipped %v; want %s", resumed, skipped, dir)
	}
	s.Stop(time.Minute)
}

// trainEpoch starts a long toy run and returns its folder once its first
// epoch has ended.
func trainEpoch(t *testing.T, s *Server) string {
	t.Helper()
	c := experiment.DefaultSynth()
	c.Train, c.Test, c.Epochs, c.Batch = 256, 128, 100000, 64
	s.engine.Handle(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{{Label: "DNLL", Synth: &c}}, Backend: experiment.BackendCPU}}, nil)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		s.host.mu.Lock()
		dir := s.host.dirs[[2]int{1, 0}]
		s.host.mu.Unlock()
		if _, err := s.host.runs.Stat(filepath.Join(dir, experiment.ResumeFile)); dir != "" && err == nil {
			return dir
		}
		if time.Now().After(deadline) {
			t.Fatal("no epoch ended within a minute")
		}
	}
}

// TestResumeFromList checks that a page resumes a run of the runs list by
// its name alone: the server completes the job from the run's report.
func TestResumeFromList(t *testing.T) {
	const addr = "127.0.0.1:8123"
	s := newTest(t, addr)
	dir := trainEpoch(t, s)
	if err := s.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	// As a run killed mid-run: no report.json.
	if err := os.Remove(filepath.Join(s.cfg.Runs, dir, "report.json")); err != nil {
		t.Fatal(err)
	}
	post := func(name string) *httptest.ResponseRecorder {
		b, err := protocol.Encode(protocol.Command{Kind: protocol.CmdStart, Session: 7, Start: &protocol.Start{Jobs: []protocol.Job{{Resume: name}}, Backend: experiment.BackendCPU}})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "http://"+addr+"/engine/command", strings.NewReader(string(b)))
		req.Header.Set(TokenHeader, s.Token())
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		return w
	}
	if w := post("r1"); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "nothing to resume") {
		t.Errorf("resuming a run without a resume file: %d %s", w.Code, w.Body)
	}
	if w := post(dir); w.Code != http.StatusNoContent {
		t.Fatalf("resuming %s: %d %s", dir, w.Code, w.Body)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		s.host.mu.Lock()
		first := s.host.session[0].b
		s.host.mu.Unlock()
		var m protocol.Envelope
		if err := json.Unmarshal(first, &m); err != nil {
			t.Fatal(err)
		}
		ev, err := protocol.DecodeEvent([]byte(m.JSON))
		if err != nil {
			t.Fatal(err)
		}
		if ev.Session == 7 {
			if j := ev.Start.Jobs[0]; j.Resume != dir || j.Synth == nil || j.Synth.Epochs != 100000 || j.Label != "DNLL" {
				t.Errorf("the resumed session's job: %+v", j)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no session within a minute")
		}
	}
	s.Stop(time.Minute)
}

// TestEveryInterface checks that a server listening on every interface
// answers to any IP address at its port (as other machines reach it),
// and still to no name but localhost.
func TestEveryInterface(t *testing.T) {
	s := newTest(t, "[::]:8123")
	for host, want := range map[string]bool{"127.0.0.1:8123": true, "192.168.1.5:8123": true, "[fe80::1]:8123": true, "localhost:8123": true,
		"192.168.1.5:9999": false, "evil.example:8123": false, "[::]:9999": false} {
		if got := s.answers(host); got != want {
			t.Errorf("answers(%s) = %v, want %v", host, got, want)
		}
	}
	if n := newTest(t, "127.0.0.1:8123"); n.answers("192.168.1.5:8123") {
		t.Error("a loopback server answers to another address")
	}
}

// TestUnknownCommand checks that an unknown command is refused to the
// page that sent it, with a 400, and not to every page.
func TestUnknownCommand(t *testing.T) {
	const addr = "127.0.0.1:8123"
	s := newTest(t, addr)
	c, _, err := s.host.subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer s.host.unsubscribe(c)
	req := httptest.NewRequest("POST", "http://"+addr+"/engine/command", strings.NewReader(`{"kind": "format-disk"}`))
	req.Header.Set(TokenHeader, s.Token())
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusBadRequest || strings.TrimSpace(w.Body.String()) != `deeplda ui: unknown command "format-disk"` {
		t.Errorf("status %d: %s", w.Code, w.Body)
	}
	select {
	case b := <-c:
		t.Errorf("the pages were sent %s", b)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestFailedRunListed checks that a run that failed (a full disk, which
// leaves no report to say so) is listed with its error.
func TestFailedRunListed(t *testing.T) {
	s := newTest(t, "127.0.0.1:8123")
	h := s.host
	dir, err := h.RunDir(1, 0, "DNLL")
	if err != nil {
		t.Fatal(err)
	}
	h.Emit(protocol.Event{Kind: protocol.EvSession, Session: 1})
	h.Emit(protocol.Event{Kind: protocol.EvFailed, Session: 1, Run: 0, Error: "writing report.json: no space left on device"})
	list, err := h.listRuns(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].Name != filepath.Base(dir) || list[1].Status != "failed: writing report.json: no space left on device" {
		t.Errorf("the list %+v, want the failed run %s with its error", list, filepath.Base(dir))
	}
}

// TestRunListed checks what the list says of a run from its folder: the
// date of its report, its settings as text, its epochs; and the date of
// the folder's name for a run with no report yet.
func TestRunListed(t *testing.T) {
	h := newTest(t, "127.0.0.1:8123").host
	dir, err := h.RunDir(1, 0, "CE")
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	rep := `{"kind":"synth","status":"done","timestamp":"` + when.Format(time.RFC3339) + `","config":{"loss":"ce","lambda":0,"epochs":7,"seed":3,"density":true},"history":[{},{}],"test":{"accuracy":0.9,"ece":0.02}}`
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	bare, err := h.RunDir(2, 0, "NLL")
	if err != nil {
		t.Fatal(err)
	}
	list, err := h.listRuns(false)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]protocol.RunFolder{}
	for _, r := range list {
		byName[r.Name] = r
	}
	r := byName[filepath.Base(dir)]
	want := map[string]string{"loss": "ce", "lambda": "0", "epochs": "7", "seed": "3", "density": "true"}
	if r.Date != when.Local().Format("2006-01-02 15:04") || r.Epochs != 7 || r.Trained != 2 || fmt.Sprint(r.Settings) != fmt.Sprint(want) {
		t.Errorf("the run with a report: date %q, epochs %d/%d, settings %v", r.Date, r.Trained, r.Epochs, r.Settings)
	}
	if b := byName[filepath.Base(bare)]; len(b.Date) != len("2006-01-02 15:04") || b.Settings != nil {
		t.Errorf("the run without a report: date %q (from its folder's name), settings %v", b.Date, b.Settings)
	}
}
