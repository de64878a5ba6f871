package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestHandler checks the static server without a browser: the subpath,
// the redirect to it, the WebAssembly content type, and the isolation
// headers that NewIsolatedHandler adds and NewHandler does not.
func TestHandler(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"index.html": "<!doctype html>", "site/app.wasm": "\x00asm"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, iso := NewHandler(dir, "/deeplda"), NewIsolatedHandler(dir, "/deeplda")
	for _, c := range []struct {
		path, wantType string
		wantCode       int
	}{
		{"/deeplda/", "text/html; charset=utf-8", 200},
		{"/deeplda/site/app.wasm", "application/wasm", 200},
		{"/", "", http.StatusFound},
		{"/deeplda", "", http.StatusFound},
		{"/other/x", "", http.StatusNotFound},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != c.wantCode || (c.wantType != "" && rec.Header().Get("Content-Type") != c.wantType) {
			t.Errorf("%s: %d %q, want %d %q", c.path, rec.Code, rec.Header().Get("Content-Type"), c.wantCode, c.wantType)
		}
		if coop, coep := rec.Header().Get("Cross-Origin-Opener-Policy"), rec.Header().Get("Cross-Origin-Embedder-Policy"); coop != "" || coep != "" {
			t.Errorf("%s: NewHandler sends COOP %q and COEP %q", c.path, coop, coep)
		}
		rec = httptest.NewRecorder()
		iso.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		coop, coep := rec.Header().Get("Cross-Origin-Opener-Policy"), rec.Header().Get("Cross-Origin-Embedder-Policy")
		if rec.Code != c.wantCode || coop != "same-origin" || coep != "require-corp" {
			t.Errorf("%s, isolated: %d, COOP %q, COEP %q; want %d, same-origin, require-corp", c.path, rec.Code, coop, coep, c.wantCode)
		}
	}
}
