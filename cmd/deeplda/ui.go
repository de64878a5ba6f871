package main

import (
	"context"
	"flag"
	"fmt"
	"html"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/server"
)

// uiCmd serves the page with the native engine (package server) until it
// is stopped.
func uiCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := server.Config{}
	backend := string(experiment.BackendAuto)
	addr, noBrowser := "127.0.0.1:0", false
	fs := flag.NewFlagSet(cmdUI, flag.ContinueOnError)
	fs.StringVar(&cfg.Runs, "runs", "runs", "the runs folder: each run started from the page is a folder in it, with what deeplda train and synth write")
	fs.StringVar(&addr, "addr", addr, "the address to listen on (port 0: any free port); another interface than loopback lets other machines reach the page")
	fs.Var((*choice)(&backend), "backend", "the native engine's backend: auto (WebGPU on a hardware adapter, else the CPU), webgpu or cpu")
	fs.StringVar(&cfg.Data, "datadir", "datasets", "the folder of the image data sets, one folder each (datasets/fashion-mnist/...), as deeplda train -fetch writes them")
	fs.StringVar(&cfg.Site, "site", "out/site", "the built site that the page comes from (./build.sh site DIR in a checkout of deeplda builds it)")
	fs.BoolVar(&noBrowser, "no-browser", false, "print the URL only; do not open the default browser")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: deeplda ui [flags]

Serves the page on this machine with a native engine beside the in-tab one:
a run started there with "this machine" as its engine trains natively (every
core, or the GPU through WebGPU), with the page's live figures and controls,
and is a folder of -runs with report.json, the figures, the checkpoint and
the resume file. The page comes from a built site (-site): in a checkout,
./build.sh site builds it into out/site. The printed URL carries a random
token that the page keeps and sends with every request to the engine and the
runs folder. Ctrl-C stops a run at its last whole epoch; the next deeplda ui
on the same runs folder resumes it. One deeplda ui at a time serves a runs
folder.

Flags:`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	kind, err := experiment.ParseBackend(backend)
	if err != nil {
		return usageError{err}
	}
	cfg.Backend, cfg.Memory = kind, machineMemory()
	runs, err := lockRuns(cfg.Runs)
	if err != nil {
		return err
	}
	defer runs.release()
	var note strings.Builder
	be, err := openBackendNote(kind, io.MultiWriter(stderr, &note))
	if err != nil {
		return err
	}
	cfg.Describe = fmt.Sprintf("this machine: %d cores", runtime.NumCPU())
	if experiment.BackendOf(be) == experiment.BackendWebGPU {
		cfg.Describe += ", " + be.Info().Adapter
		cfg.OpenWebGPU = func() (kernels.Backend, string) { return be, "" }
	} else {
		be.Close()
		cfg.Backend = experiment.BackendCPU
		cfg.NoGPU = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(note.String()), "note: "), ".")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError{fmt.Errorf("-addr: %w", err)}
	}
	defer ln.Close()
	if ip, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(ip).IsLoopback() {
		fmt.Fprintf(stderr, "warning: listening on %s, not on loopback: other machines can reach the page (the token still guards it)\n", ip)
	}
	srv, err := server.New(cfg, ln.Addr().String())
	if err != nil {
		return err
	}
	defer srv.Close()
	at := ln.Addr().(*net.TCPAddr)
	host := at.String()
	if at.IP.IsUnspecified() {
		// Every interface: this machine opens the page on loopback,
		// others by its address.
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(at.Port))
	}
	url := fmt.Sprintf("http://%s/?token=%s", host, srv.Token())
	fmt.Fprintf(stdout, "deeplda ui: %s, runs in %s\n    %s\n", cfg.Describe, cfg.Runs, url)
	resumed, skipped := srv.Resume()
	for _, r := range resumed {
		fmt.Fprintf(stderr, "deeplda ui: resuming %s, which closing deeplda ui stopped\n", r)
	}
	for _, why := range skipped {
		fmt.Fprintf(stderr, "deeplda ui: not resuming: %s\n", why)
	}
	if !noBrowser {
		remove, err := openBrowser(url)
		if err != nil {
			fmt.Fprintf(stderr, "note: could not open a browser (%v): open the URL above\n", err)
		} else {
			defer remove()
		}
	}
	hs := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	if srv.Training() {
		fmt.Fprintln(stderr, "deeplda ui: stopping the run at its last whole epoch; the next deeplda ui on this runs folder resumes it")
	}
	stopErr := srv.Stop(time.Minute)
	hs.Close() // the pages' event streams end here
	if stopErr != nil {
		return stopErr
	}
	return ctx.Err()
}

// openBrowser opens url in the default browser through forwardPage, so
// that the token is in no process's arguments, where ps shows it to every
// user of the machine. The returned function removes the page.
func openBrowser(url string) (remove func(), err error) {
	page, remove, err := forwardPage(url)
	if err != nil {
		return nil, err
	}
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", page)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", page)
	default:
		c = exec.Command("xdg-open", page)
	}
	if err := c.Start(); err != nil {
		remove()
		return nil, err
	}
	go c.Wait()
	return remove, nil
}

// forwardPage writes a page that forwards to url into a new folder that
// only this user can read (as Jupyter opens its browser) and returns its
// path and a function that removes it.
func forwardPage(url string) (page string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "deeplda-ui-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	u := html.EscapeString(url)
	page = filepath.Join(dir, "open.html")
	b := fmt.Sprintf("<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0; url=%s\">\n<title>deeplda ui</title>\n<p><a href=\"%s\">Open deeplda ui</a></p>\n", u, u)
	if err := os.WriteFile(page, []byte(b), 0o600); err != nil {
		remove()
		return "", nil, err
	}
	return page, remove, nil
}
