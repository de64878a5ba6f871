//go:build !js

package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// server serves files from a map of paths to contents and counts requests.
type server struct {
	*httptest.Server
	files    map[string][]byte
	requests atomic.Int32
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		b, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// fakeMNIST returns a copy of the mnist spec for tiny 28x28 files served
// under /mnist/ by a new server, with their hashes recorded.
func fakeMNIST(t *testing.T) (Spec, *server) {
	s, _ := Lookup("mnist")
	files := map[string][]byte{}
	for k, n := range []int{4, 2} {
		img, lbl := tinyIDX(n, 28, 28)
		split := [][]File{s.Train, s.Test}[k]
		split[0].SHA256, split[1].SHA256 = shaHex(img), shaHex(lbl)
		files["/mnist/"+split[0].Name] = gzipBytes(img)
		files["/mnist/"+split[1].Name] = gzipBytes(lbl)
	}
	srv := newServer(t, files)
	s.BaseURL = srv.URL + "/mnist/"
	return s, srv
}

// md5Hex returns the hex MD5 of b.
func md5Hex(b []byte) string {
	h := md5.Sum(b)
	return hex.EncodeToString(h[:])
}

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFetchIDX(t *testing.T) {
	spec, srv := fakeMNIST(t)
	dir := filepath.Join(t.TempDir(), "new")
	ctx := context.Background()
	if err := FetchSpec(ctx, spec, dir, srv.Client()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, dir), " "); got != "t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz" {
		t.Errorf("folder holds %s", got)
	}
	tr, te, err := LoadSpec(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 4 || te.Len() != 2 || tr.Name != "mnist train" || tr.Mean[0] != 0.1307 {
		t.Errorf("loaded %d and %d examples, %q, mean %v", tr.Len(), te.Len(), tr.Name, tr.Mean)
	}
	// Present files are not downloaded again.
	n := srv.requests.Load()
	if err := FetchSpec(ctx, spec, dir, srv.Client()); err != nil || srv.requests.Load() != n {
		t.Errorf("second fetch: %v, %d new requests", err, srv.requests.Load()-n)
	}
	// Only the missing file is.
	os.Remove(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
	if err := FetchSpec(ctx, spec, dir, srv.Client()); err != nil || srv.requests.Load() != n+1 {
		t.Errorf("third fetch: %v, %d new requests", err, srv.requests.Load()-n)
	}
	// The official files fail the recorded hash: a mismatch is an error
	// naming the file and both hashes.
	_, _, err = Load("mnist", dir)
	official, _ := Lookup("mnist")
	wantErr(t, err, "train-images-idx3-ubyte.gz: SHA-256 of the uncompressed data is "+spec.Train[0].SHA256,
		"expected "+official.Train[0].SHA256)
}

func TestFetchIDXErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("hash mismatch", func(t *testing.T) {
		spec, srv := fakeMNIST(t)
		img, _ := tinyIDX(5, 28, 28)
		srv.files["/mnist/train-images-idx3-ubyte.gz"] = gzipBytes(img)
		dir := t.TempDir()
		err := FetchSpec(ctx, spec, dir, srv.Client())
		wantErr(t, err, "train-images-idx3-ubyte.gz (downloaded from "+srv.URL+"/mnist/train-images-idx3-ubyte.gz)",
			"SHA-256 of the uncompressed data is "+shaHex(img), "expected "+spec.Train[0].SHA256)
		if names := listDir(t, dir); len(names) != 0 {
			t.Errorf("files left behind: %v", names)
		}
	})
	t.Run("not found", func(t *testing.T) {
		spec, srv := fakeMNIST(t)
		delete(srv.files, "/mnist/t10k-labels-idx1-ubyte.gz")
		dir := t.TempDir()
		err := FetchSpec(ctx, spec, dir, srv.Client())
		wantErr(t, err, "t10k-labels-idx1-ubyte.gz", srv.URL+"/mnist/t10k-labels-idx1-ubyte.gz", "404")
		for _, n := range listDir(t, dir) {
			if strings.HasPrefix(n, ".") {
				t.Errorf("temporary file left behind: %s", n)
			}
		}
	})
	t.Run("truncated", func(t *testing.T) {
		spec, srv := fakeMNIST(t)
		for k := range spec.Train {
			spec.Train[k].SHA256 = ""
		}
		img, _ := tinyIDX(4, 28, 28)
		srv.files["/mnist/train-images-idx3-ubyte.gz"] = gzipBytes(img[:1000])
		err := FetchSpec(ctx, spec, t.TempDir(), srv.Client())
		wantErr(t, err, "train-images-idx3-ubyte.gz (downloaded from", "truncated")
	})
	t.Run("wrong shape", func(t *testing.T) {
		spec, srv := fakeMNIST(t)
		img, _ := tinyIDX(4, 2, 2)
		spec.Train[0].SHA256 = ""
		srv.files["/mnist/train-images-idx3-ubyte.gz"] = img
		err := FetchSpec(ctx, spec, t.TempDir(), srv.Client())
		wantErr(t, err, "train-images-idx3-ubyte.gz (downloaded from", "images are 2x2, mnist has 28x28")
	})
	t.Run("cancelled", func(t *testing.T) {
		spec, srv := fakeMNIST(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := FetchSpec(cctx, spec, t.TempDir(), srv.Client())
		wantErr(t, err, "context canceled")
	})
	t.Run("unknown", func(t *testing.T) {
		wantErr(t, Fetch(ctx, "imagenet", t.TempDir(), nil), `unknown data set "imagenet"`)
		_, _, err := Load("svhn", t.TempDir())
		wantErr(t, err, `unknown data set "svhn" (known: fashion-mnist, mnist, cifar10, cifar100)`)
	})
}

// tarEntry is one member of a test archive.
type tarEntry struct {
	name string
	data []byte
	kind byte
}

// tarGz returns a gzipped tar archive of the entries.
func tarGz(t *testing.T, entries []tarEntry) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: e.kind}
		switch e.kind {
		case 0:
			hdr.Typeflag = tar.TypeReg
		case tar.TypeSymlink:
			hdr.Linkname, hdr.Size = "/etc/passwd", 0
		case tar.TypeDir:
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Size > 0 {
			tw.Write(e.data)
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// cifar10Archive returns the entries of a small archive in the official
// layout, with n records per batch.
func cifar10Archive(n int) []tarEntry {
	es := []tarEntry{{name: "cifar-10-batches-bin/", kind: tar.TypeDir}}
	s, _ := Lookup("cifar10")
	for b, f := range append(s.Train, s.Test...) {
		es = append(es, tarEntry{name: "cifar-10-batches-bin/" + f.Name, data: cifarFile(CIFAR10, b, n)})
	}
	return append(es, tarEntry{name: "cifar-10-batches-bin/batches.meta.txt", data: []byte("airplane\nautomobile\n")})
}

func TestFetchCIFAR(t *testing.T) {
	ctx := context.Background()
	entries := append(cifar10Archive(3),
		tarEntry{name: "../escape.bin", data: []byte("x")},
		tarEntry{name: "cifar-10-batches-bin/../../escape2.bin", data: []byte("x")},
		tarEntry{name: "cifar-10-batches-bin/sub/deep.bin", data: []byte("x")},
		tarEntry{name: "cifar-10-batches-bin/link", kind: tar.TypeSymlink},
		tarEntry{name: "cifar-10-batches-bin/big.txt", data: make([]byte, maxMetaFile+1)},
	)
	archive := tarGz(t, entries)
	srv := newServer(t, map[string][]byte{"/kriz/cifar-10-binary.tar.gz": archive})
	spec, _ := Lookup("cifar10")
	spec.BaseURL, spec.ArchiveMD5 = srv.URL+"/kriz/", md5Hex(archive)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	if err := FetchSpec(ctx, spec, dir, srv.Client()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, filepath.Join(dir, "cifar-10-batches-bin")), " "); got !=
		"batches.meta.txt data_batch_1.bin data_batch_2.bin data_batch_3.bin data_batch_4.bin data_batch_5.bin test_batch.bin" {
		t.Errorf("extracted %s", got)
	}
	if got := strings.Join(listDir(t, root), " "); got != "data" {
		t.Errorf("escaped the folder: %s", got)
	}
	tr, te, err := LoadSpec(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARSet(t, tr, CIFAR10, 0, 5, 3)
	checkCIFARSet(t, te, CIFAR10, 5, 1, 3)
	n := srv.requests.Load()
	if err := FetchSpec(ctx, spec, dir, srv.Client()); err != nil || srv.requests.Load() != n {
		t.Errorf("second fetch: %v, %d new requests", err, srv.requests.Load()-n)
	}

	// CIFAR-100, with the .bin files already directly in dir but one.
	s100, _ := Lookup("cifar100")
	archive = tarGz(t, []tarEntry{
		{name: "cifar-100-binary/train.bin", data: cifarFile(CIFAR100, 0, 2)},
		{name: "cifar-100-binary/test.bin", data: cifarFile(CIFAR100, 1, 2)},
		{name: "cifar-100-binary/fine_label_names.txt", data: []byte("apple\n")},
	})
	srv.files["/kriz/cifar-100-binary.tar.gz"] = archive
	s100.BaseURL, s100.ArchiveMD5 = srv.URL+"/kriz/", md5Hex(archive)
	dir100 := t.TempDir()
	writeFile(t, dir100, "train.bin", cifarFile(CIFAR100, 0, 2))
	if err := FetchSpec(ctx, s100, dir100, srv.Client()); err != nil {
		t.Fatal(err)
	}
	tr, te, err = LoadSpec(s100, dir100)
	if err != nil {
		t.Fatal(err)
	}
	checkCIFARSet(t, tr, CIFAR100, 0, 1, 2)
	checkCIFARSet(t, te, CIFAR100, 1, 1, 2)
}

func TestFetchCIFARErrors(t *testing.T) {
	ctx := context.Background()
	spec, _ := Lookup("cifar10")
	good := cifar10Archive(2)
	badLabel := append([]tarEntry(nil), good...)
	rec := cifarFile(CIFAR10, 3, 2)
	rec[3073] = 200
	badLabel[4] = tarEntry{name: "cifar-10-batches-bin/data_batch_4.bin", data: rec}
	short := append([]tarEntry(nil), good...)
	short[2] = tarEntry{name: "cifar-10-batches-bin/data_batch_2.bin", data: cifarFile(CIFAR10, 1, 2)[:5000]}
	whole := tarGz(t, good)
	// A tar stream of zeros ends at once; what follows is read to check
	// the gzip trailer: 2 MiB, past the cap of 1 MiB set below.
	bomb := gzipBomb(nil, 2)
	for _, tc := range []struct {
		name    string
		archive []byte
		md5     string // "": none recorded
		parts   []string
	}{
		{"missing file", tarGz(t, good[:len(good)-2]), "", []string{"cifar-10-binary.tar.gz (from ", "the archive has no cifar-10-batches-bin/test_batch.bin"}},
		{"bad label", tarGz(t, badLabel), "", []string{"cifar-10-batches-bin/data_batch_4.bin in cifar-10-binary.tar.gz", "record 1 has label 200"}},
		{"short member", tarGz(t, short), "", []string{"cifar-10-batches-bin/data_batch_2.bin in cifar-10-binary.tar.gz", "not a whole number"}},
		{"truncated archive", whole[:len(whole)/2], "", []string{"cifar-10-binary.tar.gz"}},
		{"not gzip", []byte("<html>moved</html>"), "", []string{"cifar-10-binary.tar.gz", "bad gzip data"}},
		{"not the published archive", whole, spec.ArchiveMD5, []string{"cifar-10-binary.tar.gz (from ", "MD5 is " + md5Hex(whole) + ", expected c32a1d4ab5d03f1284b67883e8d87530, the published sum"}},
		{"gzip bomb", bomb, "", []string{"cifar-10-binary.tar.gz (from ", "/cifar-10-binary.tar.gz): decompresses to more than 1048576 bytes, the limit on the cifar10 archive"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, map[string][]byte{"/cifar-10-binary.tar.gz": tc.archive})
			s := spec
			s.BaseURL, s.ArchiveMD5, s.MaxFile = srv.URL+"/", tc.md5, 1<<20
			dir := t.TempDir()
			err := FetchSpec(ctx, s, dir, srv.Client())
			wantErr(t, err, tc.parts...)
			t.Log(err)
			// Nothing is kept: no temporary file, no data file.
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if d != nil && !d.IsDir() {
					t.Errorf("file left behind: %s", p)
				}
				return nil
			})
		})
	}
}

func TestSpecs(t *testing.T) {
	if got := strings.Join(Names(), " "); got != "fashion-mnist mnist cifar10 cifar100" {
		t.Errorf("Names() = %s", got)
	}
	for _, n := range Names() {
		s, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		s.check("TestSpecs")
		s.Train[0].SHA256 = "changed"
		s.Mean[0] = 9
		if again, _ := Lookup(n); again.Train[0].SHA256 == "changed" || again.Mean[0] == 9 {
			t.Errorf("%s: Lookup shares memory with the table", n)
		}
	}
	want := map[string]string{
		"fashion-mnist": "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/train-images-idx3-ubyte.gz",
		"mnist":         "https://ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz",
		"cifar10":       "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz",
		"cifar100":      "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz",
	}
	for n, url := range want {
		s, _ := Lookup(n)
		got := s.BaseURL + s.Archive
		if s.Archive == "" {
			got += s.Train[0].Name
		}
		if got != url {
			t.Errorf("%s: %s, want %s", n, got, url)
		}
	}
	// The CIFAR archives' MD5 sums published on
	// https://www.cs.toronto.edu/~kriz/cifar.html.
	for n, sum := range map[string]string{"cifar10": "c32a1d4ab5d03f1284b67883e8d87530", "cifar100": "03b5dce01913d631647c71ecec9e9cb8"} {
		if s, _ := Lookup(n); s.ArchiveMD5 != sum {
			t.Errorf("%s: archive MD5 %q, want %s", n, s.ArchiveMD5, sum)
		}
	}
	s, _ := Lookup("mnist")
	s.MaxFile = 0
	wantPanic(t, "LoadSpec with no cap on decompression", func() { LoadSpec(s, t.TempDir()) })
	s, _ = Lookup("mnist")
	s.Train = s.Train[:1]
	wantPanic(t, "LoadSpec with one train file", func() { LoadSpec(s, t.TempDir()) })
	s, _ = Lookup("cifar10")
	s.Test[0].Name = "../x.bin"
	wantPanic(t, "FetchSpec with a path in a name", func() { FetchSpec(context.Background(), s, t.TempDir(), nil) })
	s, _ = Lookup("cifar100")
	s.Classes = 10
	wantPanic(t, "LoadSpec cifar100 with 10 classes", func() { LoadSpec(s, t.TempDir()) })
}

func TestLoadMissingAndShape(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Load("fashion-mnist", dir)
	wantErr(t, err, "fashion-mnist: train-images-idx3-ubyte.gz not found", "it is published at http://fashion-mnist")
	_, _, err = Load("cifar100", dir)
	wantErr(t, err, "cifar100: train.bin not found", "cifar-100-binary.tar.gz")

	// Uncompressed files without .gz are found too; their shape is checked.
	s, _ := Lookup("fashion-mnist")
	for k, split := range [][]File{s.Train, s.Test} {
		img, lbl := tinyIDX(2+k, 2, 2)
		writeFile(t, dir, strings.TrimSuffix(split[0].Name, ".gz"), img)
		writeFile(t, dir, strings.TrimSuffix(split[1].Name, ".gz"), lbl)
		split[0].SHA256, split[1].SHA256 = "", ""
	}
	_, _, err = LoadSpec(s, dir)
	wantErr(t, err, filepath.Join(dir, "train-images-idx3-ubyte")+": images are 2x2, fashion-mnist has 28x28")
	s.Shape = [3]int{1, 2, 2}
	tr, te, err := LoadSpec(s, dir)
	if err != nil || tr.Len() != 2 || te.Len() != 3 {
		t.Fatalf("%v", err)
	}
	// A label count that disagrees names the label file.
	writeFile(t, dir, "t10k-labels-idx1-ubyte", idxBytes(idxLabels, []uint32{2}, []byte{1, 2}))
	_, _, err = LoadSpec(s, dir)
	wantErr(t, err, "t10k-labels-idx1-ubyte: 2 labels, but", "t10k-images-idx3-ubyte has 3 images")
}

// TestFetchReal serves the published MNIST files from a local server and
// fetches them with the recorded hashes.
func TestFetchReal(t *testing.T) {
	root := sharedtest.Dir(t, "datasets")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(root, "mnist"))))
	defer srv.Close()
	spec, _ := Lookup("mnist")
	spec.BaseURL = srv.URL + "/"
	dir := t.TempDir()
	if err := FetchSpec(t.Context(), spec, dir, srv.Client()); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); len(got) != 4 {
		t.Errorf("fetched %v", got)
	}
}

// setTimeouts sets the download timeouts for a test.
func setTimeouts(t *testing.T, connect, idle time.Duration) {
	oldConnect, oldIdle := connectTimeout, idleTimeout
	connectTimeout, idleTimeout = connect, idle
	t.Cleanup(func() { connectTimeout, idleTimeout = oldConnect, oldIdle })
}

// hang holds a request for a while (a stalled server), or until the
// client gives up.
func hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// noTemporary fails when dir or a folder in it holds a temporary file.
func noTemporary(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && strings.Contains(d.Name(), ".part-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestFetchStalled checks that a download that gets no data for the idle
// timeout stops with one line naming the file and the URL, before the
// response and during the body, leaving nothing behind.
func TestFetchStalled(t *testing.T) {
	setTimeouts(t, time.Minute, 300*time.Millisecond)
	img, _ := tinyIDX(4, 28, 28)
	gz := gzipBytes(img)
	archive := tarGz(t, cifar10Archive(2))
	for _, tc := range []struct {
		what, file string
		serve      func(w http.ResponseWriter, r *http.Request)
	}{
		{"no response", "train-images-idx3-ubyte.gz", func(w http.ResponseWriter, r *http.Request) { hang(r) }},
		{"body", "train-images-idx3-ubyte.gz", func(w http.ResponseWriter, r *http.Request) {
			w.Write(gz[:len(gz)/2])
			w.(http.Flusher).Flush()
			hang(r)
		}},
		{"archive", "cifar-10-binary.tar.gz", func(w http.ResponseWriter, r *http.Request) {
			w.Write(archive[:len(archive)/2])
			w.(http.Flusher).Flush()
			hang(r)
		}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(tc.serve))
			defer srv.Close()
			s, _ := Lookup("mnist")
			if tc.file == "cifar-10-binary.tar.gz" {
				s, _ = Lookup("cifar10")
			}
			s.BaseURL = srv.URL + "/"
			dir := t.TempDir()
			start := time.Now()
			err := FetchSpec(context.Background(), s, dir, srv.Client())
			want := tc.file + ": stalled: no data for 300ms from " + srv.URL + "/" + tc.file
			if err == nil || err.Error() != want {
				t.Errorf("%v\nwant %s", err, want)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("gave up after %v", d)
			}
			noTemporary(t, dir)
		})
	}
}

// TestFetchConnectTimeout checks that the client FetchSpec makes when
// given none gives up connecting after the connect timeout.
func TestFetchConnectTimeout(t *testing.T) {
	spec, srv := fakeMNIST(t)
	setTimeouts(t, time.Nanosecond, time.Minute)
	err := FetchSpec(context.Background(), spec, t.TempDir(), nil)
	addr := strings.TrimPrefix(srv.URL, "http://")
	wantErr(t, err, "train-images-idx3-ubyte.gz: ", "connecting to "+addr+": no answer in 1ns")
	if srv.requests.Load() != 0 {
		t.Errorf("%d requests", srv.requests.Load())
	}
	// The same client connects with the usual timeout.
	setTimeouts(t, time.Minute, time.Minute)
	if err := FetchSpec(context.Background(), spec, t.TempDir(), nil); err != nil {
		t.Error(err)
	}
}

// TestFetchCancelled cancels a download midway: the temporary file goes.
func TestFetchCancelled(t *testing.T) {
	img, _ := tinyIDX(4, 28, 28)
	gz := gzipBytes(img)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(gz[:len(gz)/2])
		w.(http.Flusher).Flush()
		hang(r)
	}))
	defer srv.Close()
	s, _ := Lookup("mnist")
	s.BaseURL = srv.URL + "/"
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the temporary file exists.
		for {
			if m, _ := filepath.Glob(filepath.Join(dir, ".*.part-*")); len(m) > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	err := FetchSpec(ctx, s, dir, srv.Client())
	wantErr(t, err, "train-images-idx3-ubyte.gz: downloading "+srv.URL+"/train-images-idx3-ubyte.gz", "context canceled")
	noTemporary(t, dir)
}

// TestFetchLeftovers checks that a fetch removes the temporary files of a
// killed download into its folder, and only those.
func TestFetchLeftovers(t *testing.T) {
	spec, srv := fakeMNIST(t)
	dir := t.TempDir()
	for _, n := range []string{".train-images-idx3-ubyte.gz.part-123", ".t10k-labels-idx1-ubyte.gz.part-9", ".other.part-1", "notes.part-2"} {
		writeFile(t, dir, n, []byte("x"))
	}
	if err := FetchSpec(context.Background(), spec, dir, srv.Client()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, dir), " "); got != ".other.part-1 notes.part-2 t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz" {
		t.Errorf("folder holds %s", got)
	}

	// CIFAR: every temporary file in the archive's folder.
	archive := tarGz(t, cifar10Archive(2))
	srv = newServer(t, map[string][]byte{"/cifar-10-binary.tar.gz": archive})
	s, _ := Lookup("cifar10")
	s.BaseURL, s.ArchiveMD5 = srv.URL+"/", md5Hex(archive)
	dir = t.TempDir()
	writeFile(t, dir, "cifar-10-batches-bin/.data_batch_1.bin.part-77", []byte("x"))
	writeFile(t, dir, "cifar-10-batches-bin/.batches.meta.txt.part-78", []byte("x"))
	if err := FetchSpec(context.Background(), s, dir, srv.Client()); err != nil {
		t.Fatal(err)
	}
	noTemporary(t, dir)
}

// TestFetchTogether runs two fetches into one folder at once: the second
// waits for the first and finds the files, downloading nothing.
func TestFetchTogether(t *testing.T) {
	spec, files := fakeMNIST(t)
	started, release := make(chan bool, 8), make(chan bool)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- true
		<-release
		files.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	spec.BaseURL = srv.URL + "/mnist/"
	dir := t.TempDir()
	errs := make(chan error, 2)
	fetch := func() { errs <- FetchSpec(context.Background(), spec, dir, srv.Client()) }
	go fetch()
	<-started
	go fetch()
	time.Sleep(300 * time.Millisecond) // the second waits (or would download)
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := files.requests.Load(); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}
