// Command serve serves the built site (./build.sh site) on 127.0.0.1 under
// a subpath, the way GitHub Pages serves a project site:
//
//	go run ./browsertest/serve -dir out/site -addr 127.0.0.1:8080 -prefix /deeplda/
//
// It prints the page's URL and serves until interrupted. A client gets
// timeouts (see serveTimeouts), and every response says
// X-Content-Type-Options: nosniff.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/deeplda/deeplda/browsertest"
)

// timeouts bound how long a client may take to send a request's headers
// and the whole request, to take the response, and how long a kept-alive
// connection may stay idle.
type timeouts struct {
	readHeader, read, write, idle time.Duration
}

// serveTimeouts leave a browser on this machine ample time (the largest
// file, a data set, takes well under a second) and close connections that
// stall.
var serveTimeouts = timeouts{readHeader: 10 * time.Second, read: 30 * time.Second, write: 2 * time.Minute, idle: 2 * time.Minute}

func main() {
	dir := flag.String("dir", "out/site", "folder of the built site")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	prefix := flag.String("prefix", "/deeplda/", "URL path under which the site is served")
	flag.Parse()
	if _, err := os.Stat(*dir + "/index.html"); err != nil {
		log.Fatalf("serve: %s has no index.html; run ./build.sh site first", *dir)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("serve: %v", err)
	}
	fmt.Printf("serving %s at http://%s%s (Ctrl-C to stop)\n", *dir, ln.Addr(), *prefix)
	log.Fatal(newServer(*dir, *prefix, serveTimeouts).Serve(ln))
}

// newServer returns the server of the site in dir under prefix, with the
// timeouts t.
func newServer(dir, prefix string, t timeouts) *http.Server {
	site := browsertest.NewHandler(dir, prefix)
	return &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Content-Type-Options", "nosniff")
			site.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
	}
}
