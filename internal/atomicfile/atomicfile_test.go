package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile replaces a file's content and gives it the mode that
// os.WriteFile would (0644 less the umask), leaving no temporary file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want new", b, err)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(path)
	want, _ := os.Stat(ref)
	if got.Mode() != want.Mode() {
		t.Errorf("mode %v; os.WriteFile gives %v", got.Mode(), want.Mode())
	}
	assertOnly(t, dir, "report.json")
}

// TestWriteFailure: when writing fails, the file keeps its content and the
// temporary file is gone.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.safetensors")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v; want %v", err, boom)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file holds %q after a failed write; want old", b)
	}
	assertOnly(t, dir, "checkpoint.safetensors")
}

// TestWriteSyncs: the temporary file is flushed to the disk whole before
// the rename, and the folder after it.
func TestWriteSyncs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "resume.safetensors")
	var synced []string
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		_, err := os.Stat(path)
		renamed := err == nil
		switch {
		case f.Name() == dir && renamed:
			synced = append(synced, "folder after the rename")
		case IsTemp(filepath.Base(f.Name())) && !renamed:
			if b, _ := os.ReadFile(f.Name()); string(b) != "data" {
				t.Errorf("flushed %q; want the whole data", b)
			}
			synced = append(synced, "file before the rename")
		default:
			t.Errorf("flushed %s with the file renamed: %v", f.Name(), renamed)
		}
		return f.Sync()
	}
	if err := WriteFile(path, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 || synced[0] != "file before the rename" || synced[1] != "folder after the rename" {
		t.Errorf("flushed: %q", synced)
	}
}

// TestIsTemp recognises the temporary names that Write makes and nothing
// else a folder plausibly holds.
func TestIsTemp(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"report.json", "a", ".hidden", "x.deeplda-tmp-0123456789abcdef"} {
		f, err := create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if base := filepath.Base(f.Name()); !IsTemp(base) {
			t.Errorf("IsTemp(%q) = false for the temporary file of %s", base, name)
		}
	}
	for _, name := range []string{
		"report.json", ".settings.json.1", "data.svg.tmp5", "notes.txt", ".report.json.3d8n4t7arpi23",
		"checkpoint.safetensors.tmp123456", "report.json.deeplda-tmp-0123456789abcdef",
		".deeplda-tmp-0123456789abcdef", ".report.json.deeplda-tmp-0123456789abcde",
		".report.json.deeplda-tmp-0123456789abcdef0", ".report.json.deeplda-tmp-0123456789ABCDEF",
		".report.json.deeplda-tmp-0123456789abcdeg",
	} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true", name)
		}
	}
}

// assertOnly fails unless dir holds exactly the file name.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %q; want only %s", dir, names, name)
	}
}
