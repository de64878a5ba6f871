package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// startServer serves a one-page site on 127.0.0.1 with the timeouts t and
// returns its address.
func startServer(t *testing.T, tm timeouts) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>x</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(dir, "/deeplda/", tm)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c within limit (reading
// and dropping whatever it sends).
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestSlowClientsTimedOut opens connections that send half a request, and
// one that stays idle after a complete one: the server closes all of them
// after its timeouts instead of keeping them open for ever.
func TestSlowClientsTimedOut(t *testing.T) {
	addr := startServer(t, timeouts{readHeader: 200 * time.Millisecond, read: time.Second, write: time.Second, idle: 300 * time.Millisecond})
	var conns []net.Conn
	for range 50 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /deeplda/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		if !closedWithin(t, c, 5*time.Second) {
			t.Fatalf("connection %d, half a request sent, still open after 5 s", i)
		}
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /deeplda/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("status %d, X-Content-Type-Options %q; want 200 and nosniff", resp.StatusCode, resp.Header.Get("X-Content-Type-Options"))
	}
	if !closedWithin(t, c, 5*time.Second) {
		t.Error("an idle kept-alive connection is still open after 5 s")
	}
}

// TestServeTimeoutsSet checks that the command's server has every timeout.
func TestServeTimeoutsSet(t *testing.T) {
	tm := serveTimeouts
	for name, d := range map[string]time.Duration{"read header": tm.readHeader, "read": tm.read, "write": tm.write, "idle": tm.idle} {
		if d <= 0 || d > 5*time.Minute {
			t.Errorf("%s timeout %v, want one between 0 and 5 minutes", name, d)
		}
	}
}
