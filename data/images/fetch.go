//go:build !js

package images

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Download limits: the largest file, archive and archive member that Fetch
// accepts (the largest official file, the CIFAR-100 archive, is about 160
// MB).
const (
	maxDownload = 1 << 31
	maxMetaFile = 1 << 20 // archive members that are not data files
)

// Fetch downloads the files of a known data set (see Names) that are
// missing from dir. See FetchSpec.
func Fetch(ctx context.Context, name, dir string, client *http.Client) error {
	s, err := Lookup(name)
	if err != nil {
		return err
	}
	return FetchSpec(ctx, s, dir, client)
}

// FetchSpec downloads the files of the data set that s describes from
// s.BaseURL into dir (created if needed), unless LoadSpec would find them
// there already; present files are not checked (LoadSpec checks them).
//
// An IDX file is downloaded to a temporary file in dir, verified (its
// structure, and its SHA-256 when one is recorded) and renamed into place.
// For CIFAR, the archive s.Archive is read as it downloads: its data files
// (and small metadata files) under s.Folder are each written to a
// temporary file, checked and renamed into dir/s.Folder; other members are
// skipped. A failure leaves no partial file behind. A nil client means
// http.DefaultClient. It panics if s is unusable.
func FetchSpec(ctx context.Context, s Spec, dir string, client *http.Client) error {
	s.check("FetchSpec")
	if client == nil {
		client = http.DefaultClient
	}
	var missing []File
	for _, f := range slices.Concat(s.Train, s.Test) {
		if _, err := locate(&s, dir, f); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if s.Format != IDX {
		return fetchArchive(ctx, client, &s, dir)
	}
	for _, f := range missing {
		magic := idxImages
		if f == s.Train[1] || f == s.Test[1] {
			magic = idxLabels
		}
		if err := fetchIDX(ctx, client, &s, dir, f, magic); err != nil {
			return err
		}
	}
	return nil
}

// get starts a download and checks its status.
func get(ctx context.Context, client *http.Client, name, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: GET %s: %s", name, url, resp.Status)
	}
	return resp.Body, nil
}

// tempFile is a file being written that becomes final only by keep.
type tempFile struct {
	*os.File
	kept bool
}

// newTemp creates a hidden temporary file in dir for the file name.
func newTemp(dir, name string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, "."+name+".part-*")
	if err != nil {
		return nil, err
	}
	return &tempFile{File: f}, nil
}

// keep closes the file and renames it to dst.
func (t *tempFile) keep(dst string) error {
	if err := t.Close(); err != nil {
		return err
	}
	if err := os.Rename(t.Name(), dst); err != nil {
		return err
	}
	t.kept = true
	return nil
}

// discard removes the file unless it was kept.
func (t *tempFile) discard() {
	if !t.kept {
		t.Close()
		os.Remove(t.Name())
	}
}

// fetchIDX downloads and verifies one IDX file.
func fetchIDX(ctx context.Context, client *http.Client, s *Spec, dir string, f File, magic uint32) error {
	url := s.BaseURL + f.Name
	body, err := get(ctx, client, f.Name, url)
	if err != nil {
		return err
	}
	defer body.Close()
	tmp, err := newTemp(dir, f.Name)
	if err != nil {
		return err
	}
	defer tmp.discard()
	n, err := io.Copy(tmp, io.LimitReader(body, maxDownload+1))
	if err != nil {
		return fmt.Errorf("%s: downloading %s: %v", f.Name, url, err)
	}
	if n > maxDownload {
		return fmt.Errorf("%s: %s is larger than the limit of %d bytes", f.Name, url, int64(maxDownload))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	name := fmt.Sprintf("%s (downloaded from %s)", f.Name, url)
	dec, err := readIDX(name, tmp, n, magic, f.SHA256)
	if err != nil {
		return err
	}
	if magic == idxImages && (dec.dims[1] != s.Shape[1] || dec.dims[2] != s.Shape[2]) {
		return fmt.Errorf("%s: images are %dx%d, %s has %dx%d", name, dec.dims[1], dec.dims[2], s.Name, s.Shape[1], s.Shape[2])
	}
	return tmp.keep(filepath.Join(dir, f.Name))
}

// fetchArchive downloads a CIFAR archive and extracts its files.
func fetchArchive(ctx context.Context, client *http.Client, s *Spec, dir string) error {
	url := s.BaseURL + s.Archive
	body, err := get(ctx, client, s.Archive, url)
	if err != nil {
		return err
	}
	defer body.Close()
	zr, err := gzip.NewReader(io.LimitReader(body, maxDownload))
	if err != nil {
		return fmt.Errorf("%s (from %s): bad gzip data: %v", s.Archive, url, err)
	}
	want := map[string]File{}
	for _, f := range slices.Concat(s.Train, s.Test) {
		want[f.Name] = f
	}
	out := filepath.Join(dir, s.Folder)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	done := map[string]bool{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s (from %s): %v", s.Archive, url, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		folder, base := path.Split(path.Clean(hdr.Name))
		if strings.TrimSuffix(folder, "/") != s.Folder || base != filepath.Base(base) ||
			!filepath.IsLocal(base) || strings.ContainsAny(base, `/\:`) || strings.HasPrefix(base, ".") {
			continue
		}
		f, isData := want[base]
		if !isData && hdr.Size > maxMetaFile {
			continue
		}
		name := fmt.Sprintf("%s in %s (from %s)", hdr.Name, s.Archive, url)
		if err := extract(name, tr, hdr.Size, out, base, s.Format, isData, f.SHA256); err != nil {
			return err
		}
		done[base] = true
	}
	// Check the gzip trailer (CRC) too.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("%s (from %s): %v", s.Archive, url, err)
	}
	for _, f := range slices.Concat(s.Train, s.Test) {
		if !done[f.Name] {
			return fmt.Errorf("%s (from %s): the archive has no %s/%s", s.Archive, url, s.Folder, f.Name)
		}
	}
	return nil
}

// extract writes one archive member of size bytes to dir/base, checking
// the records of a data file.
func extract(name string, r io.Reader, size int64, dir, base string, f Format, isData bool, sha string) error {
	tmp, err := newTemp(dir, base)
	if err != nil {
		return err
	}
	defer tmp.discard()
	if isData {
		recs, err := cifarRecords(name, size, f)
		if err != nil {
			return err
		}
		// Check the records as they are written.
		if err := decodeCIFAR(name, io.TeeReader(r, tmp), recs, f, nil, nil, nil, sha); err != nil {
			return err
		}
	} else if _, err := io.Copy(tmp, r); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return tmp.keep(filepath.Join(dir, base))
}
