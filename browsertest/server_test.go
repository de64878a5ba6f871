package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestHandler checks the static server without a browser: the subpath,
// the redirect to it, and the WebAssembly content type.
func TestHandler(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"index.html": "<!doctype html>", "site/app.wasm": "\x00asm"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := NewHandler(dir, "/deeplda")
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
	}
}
