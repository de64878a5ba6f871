// Package browsertest holds the end-to-end tests of the browser trainer
// (Chromium driven by chromedp against the built site) and the small static
// file server they and "./build.sh serve" use.
package browsertest

import (
	"mime"
	"net/http"
	"path"
	"strings"
)

// NewHandler serves the static site in dir under prefix (e.g. "/deeplda/",
// so that the page is tested from a subpath as on GitHub Pages). Requests
// outside the prefix are redirected to it; .wasm files are served as
// application/wasm, which WebAssembly.instantiateStreaming requires.
// Responses are not cached by the browser (revalidated every time), so a
// rebuilt site is picked up at once.
func NewHandler(dir, prefix string) http.Handler {
	if !strings.HasPrefix(prefix, "/") {
		prefix = "/" + prefix
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	_ = mime.AddExtensionType(".wasm", "application/wasm")
	files := http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.FileServer(http.Dir(dir)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, prefix) {
			if r.URL.Path+"/" == prefix || r.URL.Path == "/" {
				http.Redirect(w, r, prefix, http.StatusFound)
				return
			}
			http.NotFound(w, r)
			return
		}
		if path.Ext(r.URL.Path) == ".wasm" {
			w.Header().Set("Content-Type", "application/wasm")
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// NewIsolatedHandler is NewHandler with every response also saying
// Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp, which make the page
// cross-origin isolated from its first load (so that it runs on a shared
// memory), as the site's service worker does once it controls the page.
func NewIsolatedHandler(dir, prefix string) http.Handler {
	site := NewHandler(dir, prefix)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		site.ServeHTTP(w, r)
	})
}
