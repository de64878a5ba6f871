package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// serve serves s on a loopback listener, as deeplda ui does (HTTPServer),
// and returns its address.
func serve(t *testing.T) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newTest(t, ln.Addr().String())
	hs := s.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return s, ln.Addr().String()
}

// TestReplayKeepsLastCheckpoint checks that a page connecting after a
// 40-epoch run is sent the run's last checkpoint and figures once, not
// every epoch's.
func TestReplayKeepsLastCheckpoint(t *testing.T) {
	s := newTest(t, "127.0.0.1:8123")
	h := s.host
	const size = 1 << 20
	h.Emit(protocol.Event{Kind: protocol.EvSession, Session: 1, Runs: []string{"a"}})
	for epoch := 1; epoch <= 40; epoch++ {
		h.Emit(protocol.Event{Kind: protocol.EvProgress, Session: 1})
		figs := protocol.Figures{"curves.svg": fmt.Sprintf("<svg>%d</svg>", epoch)}
		if epoch == 1 {
			figs["embedding.svg"] = "<svg>first</svg>"
		}
		st := &protocol.RunState{Status: "training", Figures: figs, Checkpoint: true}
		h.Emit(protocol.Event{Kind: protocol.EvRun, Session: 1, Run: 0, RunState: st, Checkpoint: bytes.Repeat([]byte{byte(epoch)}, size)})
	}
	c, first, err := h.subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer h.unsubscribe(c)
	total := 0
	var last protocol.Envelope
	for _, b := range first {
		total += len(b)
		var m protocol.Envelope
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Checkpoint != nil {
			last = m
		}
	}
	if total > 2*size {
		t.Errorf("a new page is sent %d bytes after 40 checkpoints of %d", total, size)
	}
	ev, err := protocol.DecodeEvent([]byte(last.JSON))
	if err != nil {
		t.Fatal(err)
	}
	figs := last.Figures
	if len(last.Checkpoint) != size || last.Checkpoint[0] != 40 || ev.RunState == nil || !ev.RunState.Checkpoint ||
		figs[protocol.RunFigure+"curves.svg"] != "<svg>40</svg>" || figs[protocol.RunFigure+"embedding.svg"] != "<svg>first</svg>" {
		t.Errorf("the run's state sent: %s, figures %v", last.JSON, figs)
	}
}

// TestSlowListeners checks that pages that do not read share one copy of
// a large event, and are dropped once writing to them takes longer than
// eventTimeout.
func TestSlowListeners(t *testing.T) {
	old := eventTimeout
	eventTimeout = 3 * time.Second
	t.Cleanup(func() { eventTimeout = old })
	s, addr := serve(t)
	const pages = 16
	for range pages {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(conn, "GET /engine/events?token=%s HTTP/1.1\r\nHost: %s\r\n\r\n", s.Token(), addr)
	}
	listening := func() int {
		s.host.mu.Lock()
		defer s.host.mu.Unlock()
		return len(s.host.clients)
	}
	for deadline := time.Now().Add(10 * time.Second); listening() < pages; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages listen, want %d", listening(), pages)
		}
	}
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapInuse)
	}
	before := heap()
	const size = 16 << 20
	s.host.Emit(protocol.Event{Kind: protocol.EvSession, Session: 1, Runs: []string{"a"}})
	s.host.Emit(protocol.Event{Kind: protocol.EvRun, Session: 1, RunState: &protocol.RunState{Status: "training", Checkpoint: true}, Checkpoint: make([]byte, size)})
	time.Sleep(time.Second)
	// The checkpoint, its message and the session's copy of it: a few
	// times size, not a copy a page.
	if grown := heap() - before; grown > 8*size {
		t.Errorf("%d pages that do not read, sent %d MiB: the heap grew by %d MiB", pages, size>>20, grown>>20)
	}
	for deadline := time.Now().Add(10 * time.Second); listening() > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages that do not read still listen after %v", listening(), 10*time.Second+eventTimeout)
		}
	}
}

// TestIdleConnectionsClosed checks that 1,000 idle connections, half
// that never send a request and half that idle after one without the
// token, are closed within 60 s, while the user's own requests pass.
func TestIdleConnectionsClosed(t *testing.T) {
	s, addr := serve(t)
	const conns = 1000
	start := time.Now()
	var wg sync.WaitGroup
	closed := make(chan time.Duration, conns)
	for i := range conns {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(90 * time.Second))
		if i%2 == 1 {
			fmt.Fprintf(conn, "GET /runs/index.json HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := bufio.NewReader(conn)
			if i%2 == 1 {
				resp, err := http.ReadResponse(r, nil)
				if err != nil || resp.StatusCode != http.StatusForbidden {
					t.Errorf("a request without the token: %v %v", resp, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				t.Errorf("connection %d: %v", i, err)
				return
			}
			closed <- time.Since(start)
		}()
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/runs/index.json", nil)
	req.Header.Set(TokenHeader, s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the user's request beside %d idle connections: %v %v", conns, resp, err)
	}
	resp.Body.Close()
	wg.Wait()
	close(closed)
	var latest time.Duration
	n := 0
	for d := range closed {
		latest, n = max(latest, d), n+1
	}
	if n != conns || latest > time.Minute {
		t.Errorf("%d of %d idle connections closed, the last after %v", n, conns, latest)
	}
}

// TestStartTooBig checks that a toy run of 100,000,000 points, more than
// the machine's memory, is refused with one line, as is a benchmark too
// large, and that the server goes on serving.
func TestStartTooBig(t *testing.T) {
	s, addr := serve(t)
	s.cfg.Memory = experiment.Memory{Bytes: 8 << 30, Of: "this machine's memory"}
	c := experiment.DefaultSynth()
	c.Train, c.Test = 100_000_000, 100_000_000
	js, err := protocol.Encode(protocol.Command{Kind: protocol.CmdStart, Session: 1, Start: &protocol.Start{Jobs: []protocol.Job{{Label: "big", Synth: &c}}}})
	if err != nil {
		t.Fatal(err)
	}
	post := func(body []byte) (int, string) {
		req, _ := http.NewRequest("POST", "http://"+addr+"/engine/command", bytes.NewReader(body))
		req.Header.Set(TokenHeader, s.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(js)
	ev, err := protocol.DecodeEvent([]byte(body))
	if code != http.StatusConflict || err != nil || ev.Kind != protocol.EvRefused ||
		!strings.Contains(ev.Error, "train 100000000 needs about") || strings.Contains(ev.Error, "\n") || s.Training() {
		t.Errorf("status %d: %s", code, body)
	}
	bench, err := protocol.Encode(protocol.Command{Kind: protocol.CmdBench, Bench: &protocol.Bench{Suite: experiment.SuiteConfig{Sizes: []int{1 << 20}, Steps: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	code, body = post(bench)
	if ev, err := protocol.DecodeEvent([]byte(body)); code != http.StatusConflict || err != nil || ev.Kind != protocol.EvBenchDone || !strings.Contains(ev.Error, "needs about") {
		t.Errorf("a benchmark of a matmul of size %d: status %d: %s", 1<<20, code, body)
	}
	if code, body := post([]byte(`{"kind": "hello"}`)); code != http.StatusNoContent {
		t.Errorf("after the refusal, hello: status %d: %s", code, body)
	}
}

// TestUploadsSpooled checks that the files of commands that wait their
// turn behind a run wait on disk, not in memory, and go once read.
func TestUploadsSpooled(t *testing.T) {
	s, addr := serve(t)
	trainEpoch(t, s)
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapInuse)
	}
	before := heap()
	const uploads, size = 4, 48 << 20
	for range uploads {
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			mw.WriteField("json", `{"kind": "files", "files": ["a.bin"]}`)
			fw, _ := mw.CreateFormFile("files", "a.bin")
			chunk := make([]byte, 1<<20)
			for range size >> 20 {
				fw.Write(chunk)
			}
			mw.Close()
			pw.Close()
		}()
		req, _ := http.NewRequest("POST", "http://"+addr+"/engine/command", pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set(TokenHeader, s.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("an upload of %d MiB: status %d", size>>20, resp.StatusCode)
		}
	}
	if grown := heap() - before; grown > size/2 {
		t.Errorf("%d uploads of %d MiB wait behind a run: the heap grew by %d MiB", uploads, size>>20, grown>>20)
	}
	if spooled, _ := os.ReadDir(s.uploads); len(spooled) != uploads {
		t.Errorf("%d files spooled, want %d", len(spooled), uploads)
	}
	if err := s.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if spooled, _ := os.ReadDir(s.uploads); len(spooled) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the spooled files stay after their commands ran")
		}
	}
}

// TestLatePageToldEnded checks that a page connecting while a session
// trains is sent its start as it was, and one connecting after the
// session ended is told that it ended.
func TestLatePageToldEnded(t *testing.T) {
	h := newTest(t, "127.0.0.1:8123").host
	h.Emit(protocol.Event{Kind: protocol.EvSession, Session: 4, Runs: []string{"a"}})
	h.Emit(protocol.Event{Kind: protocol.EvProgress, Session: 4})
	start := func() protocol.Event {
		t.Helper()
		c, first, err := h.subscribe()
		if err != nil {
			t.Fatal(err)
		}
		defer h.unsubscribe(c)
		for _, b := range first {
			var m protocol.Envelope
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if ev, err := protocol.DecodeEvent([]byte(m.JSON)); err == nil && ev.Kind == protocol.EvSession {
				return ev
			}
		}
		t.Fatal("no session among the first events")
		return protocol.Event{}
	}
	if ev := start(); ev.Session != 4 || ev.Ended {
		t.Errorf("while training: %+v, want session 4 not ended", ev)
	}
	h.Emit(protocol.Event{Kind: protocol.EvDone, Session: 4})
	if ev := start(); ev.Session != 4 || !ev.Ended || len(ev.Runs) != 1 {
		t.Errorf("after the end: %+v, want session 4 ended with its run", ev)
	}
	h.Emit(protocol.Event{Kind: protocol.EvSession, Session: 5, Runs: []string{"b"}})
	if ev := start(); ev.Session != 5 || ev.Ended {
		t.Errorf("the next session: %+v, want session 5 not ended", ev)
	}
}
