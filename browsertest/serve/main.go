// Command serve serves the built site (./build.sh site) on 127.0.0.1 under
// a subpath, the way GitHub Pages serves a project site:
//
//	go run ./browsertest/serve -dir out/site -addr 127.0.0.1:8080 -prefix /deeplda/
//
// It prints the page's URL and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/deeplda/deeplda/browsertest"
)

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
	log.Fatal(http.Serve(ln, browsertest.NewHandler(*dir, *prefix)))
}
