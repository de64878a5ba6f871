//go:build !js

package images

import (
	"archive/tar"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Download limits: the largest file, archive and archive member that Fetch
// accepts (the largest official file, the CIFAR-100 archive, is about 160
// MB). An archive decompresses to at most Spec.MaxFile bytes.
const (
	maxDownload = 1 << 31
	maxMetaFile = 1 << 20 // archive members that are not data files
)

// Download timeouts (variables for the tests): a connection of the client
// FetchSpec makes when given none gives up after connectTimeout; any
// download gives up when no data arrives for idleTimeout, the response
// headers included. connectTimeout is the shorter, so that its message
// wins when a server does not answer at all.
var (
	connectTimeout = 15 * time.Second
	idleTimeout    = 30 * time.Second
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
// temporary file and checked; other members are skipped. Once the whole
// archive has been read and its MD5 matches s.ArchiveMD5 (when recorded),
// the files are renamed into dir/s.Folder.
//
// A failure, a cancelled ctx included, leaves no temporary file behind; the
// temporary files of a download that was killed are removed by the next
// fetch into the folder. Fetches into one folder wait for each other (where
// the system locks folders: Linux, macOS and the BSDs), so that the second
// finds the files the first downloaded. No data for 30 seconds stops a
// download with an error. A nil client means a client like
// http.DefaultClient whose connections give up after 15 seconds. It panics
// if s is unusable.
func FetchSpec(ctx context.Context, s Spec, dir string, client *http.Client) error {
	s.check("FetchSpec")
	if len(missingFiles(&s, dir)) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	// Another fetch may have downloaded them while this one waited.
	missing := missingFiles(&s, dir)
	if len(missing) == 0 {
		return nil
	}
	if client == nil {
		c := newClient()
		defer c.CloseIdleConnections()
		client = c
	}
	if s.Format != IDX {
		return fetchArchive(ctx, client, &s, dir)
	}
	removeLeftovers(dir, s.Files())
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

// missingFiles returns the files of s that LoadSpec would not find in dir.
func missingFiles(s *Spec, dir string) []File {
	var missing []File
	for _, f := range slices.Concat(s.Train, s.Test) {
		if _, err := locate(s, dir, f); err != nil {
			missing = append(missing, f)
		}
	}
	return missing
}

// newClient returns the client FetchSpec uses when given none: that of
// http.DefaultTransport's settings, whose connections (TLS handshake
// included) give up after connectTimeout.
func newClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && ctx.Err() == nil {
			return nil, fmt.Errorf("connecting to %s: no answer in %v", addr, connectTimeout)
		}
		return c, err
	}
	tr.TLSHandshakeTimeout = connectTimeout
	return &http.Client{Transport: tr}
}

// download is the body of a response being read. It stops with the error
// "stalled: no data for 30s from URL" when no data arrives for idleTimeout.
type download struct {
	body  io.ReadCloser
	url   string
	ctx   context.Context
	stop  context.CancelCauseFunc
	timer *time.Timer
	stall error
	err   error // the first error reading the body (it names the URL)
}

// get starts a download and checks its status.
func get(ctx context.Context, client *http.Client, name, url string) (*download, error) {
	ctx, stop := context.WithCancelCause(ctx)
	d := &download{url: url, ctx: ctx, stop: stop, stall: fmt.Errorf("stalled: no data for %v from %s", idleTimeout, url)}
	d.timer = time.AfterFunc(idleTimeout, func() { stop(d.stall) })
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("%s: %v", name, d.cause(err))
	}
	d.body = resp.Body
	if resp.StatusCode != http.StatusOK {
		d.Close()
		return nil, fmt.Errorf("%s: GET %s: %s", name, url, resp.Status)
	}
	d.timer.Reset(idleTimeout)
	return d, nil
}

// cause returns the stall error when the download stalled, else err.
func (d *download) cause(err error) error {
	if context.Cause(d.ctx) == d.stall {
		return d.stall
	}
	return err
}

func (d *download) Read(p []byte) (int, error) {
	n, err := d.body.Read(p)
	if n > 0 {
		d.timer.Reset(idleTimeout)
	}
	if err != nil && err != io.EOF {
		if d.err == nil {
			if d.err = d.cause(err); d.err != d.stall {
				d.err = fmt.Errorf("downloading %s: %v", d.url, err)
			}
		}
		return n, d.err
	}
	return n, err
}

// Close stops the download.
func (d *download) Close() error {
	d.timer.Stop()
	d.stop(nil)
	if d.body == nil {
		return nil
	}
	return d.body.Close()
}

// failure returns the error of the download, naming the file name, when
// reading it failed (err is then a consequence), else err.
func (d *download) failure(name string, err error) error {
	if d.err != nil {
		return fmt.Errorf("%s: %v", name, d.err)
	}
	return err
}

// tempFile is a file being written that becomes final only by keep.
type tempFile struct {
	*os.File
	dst  string
	kept bool
}

// newTemp creates a hidden temporary file in dir for the file name:
// .NAME.part-RANDOM.
func newTemp(dir, name string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, "."+name+".part-*")
	if err != nil {
		return nil, err
	}
	return &tempFile{File: f, dst: filepath.Join(dir, name)}, nil
}

// keep closes the file and renames it to the file it stands for.
func (t *tempFile) keep() error {
	if err := t.Close(); err != nil {
		return err
	}
	if err := os.Rename(t.Name(), t.dst); err != nil {
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

// removeLeftovers removes from dir the temporary files (see newTemp) that
// a killed download left behind: those of the files names, or all with
// names nil. The caller holds the folder's lock (lockDir), so no download
// in progress owns one. Failures are ignored: a leftover is only litter.
func removeLeftovers(dir string, names []string) {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		n := e.Name()
		i := strings.LastIndex(n, ".part-")
		if !e.Type().IsRegular() || !strings.HasPrefix(n, ".") || i < 1 {
			continue
		}
		if names == nil || slices.Contains(names, n[1:i]) {
			os.Remove(filepath.Join(dir, n))
		}
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
		return body.failure(f.Name, fmt.Errorf("%s: %v", f.Name, err))
	}
	if n > maxDownload {
		return fmt.Errorf("%s: %s is larger than the limit of %d bytes", f.Name, url, int64(maxDownload))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	name := fmt.Sprintf("%s (downloaded from %s)", f.Name, url)
	dec, err := readIDX(name, tmp, n, magic, f.SHA256, s.fileCap())
	if err != nil {
		return err
	}
	if magic == idxImages && (dec.dims[1] != s.Shape[1] || dec.dims[2] != s.Shape[2]) {
		return fmt.Errorf("%s: images are %dx%d, %s has %dx%d", name, dec.dims[1], dec.dims[2], s.Name, s.Shape[1], s.Shape[2])
	}
	return tmp.keep()
}

// fetchArchive downloads a CIFAR archive, extracts its files and checks
// its MD5 before keeping them.
func fetchArchive(ctx context.Context, client *http.Client, s *Spec, dir string) error {
	url := s.BaseURL + s.Archive
	out := filepath.Join(dir, s.Folder)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	removeLeftovers(out, nil)
	body, err := get(ctx, client, s.Archive, url)
	if err != nil {
		return err
	}
	defer body.Close()
	sum := md5.New()
	files, err := extractArchive(s, url, io.TeeReader(io.LimitReader(body, maxDownload), sum), out)
	defer func() {
		for _, t := range files {
			t.discard()
		}
	}()
	if err != nil {
		return body.failure(s.Archive, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); s.ArchiveMD5 != "" && got != s.ArchiveMD5 {
		return fmt.Errorf("%s (from %s): MD5 is %s, expected %s, the published sum", s.Archive, url, got, s.ArchiveMD5)
	}
	for _, t := range files {
		if err := t.keep(); err != nil {
			return err
		}
	}
	return nil
}

// extractArchive reads the gzipped tar archive r to its end and extracts
// its files of s to temporary files in out, returned also on an error.
func extractArchive(s *Spec, url string, r io.Reader, out string) (files []*tempFile, err error) {
	zr, err := gunzip(fmt.Sprintf("%s (from %s)", s.Archive, url), r, s.fileCap())
	if err != nil {
		return nil, fmt.Errorf("%s (from %s): bad gzip data: %v", s.Archive, url, err)
	}
	defer func() {
		// The cap's message, however the readers above report it.
		if err != nil && zr.exceeded() {
			err = zr
		}
	}()
	want := map[string]File{}
	for _, f := range slices.Concat(s.Train, s.Test) {
		want[f.Name] = f
	}
	done := map[string]bool{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return files, fmt.Errorf("%s (from %s): %v", s.Archive, url, err)
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
		tmp, err := extract(name, tr, hdr.Size, out, base, s.Format, isData, f.SHA256)
		if err != nil {
			return files, err
		}
		files = append(files, tmp)
		done[base] = true
	}
	// Check the gzip trailer (CRC) too: gzip then reads r to its end (more
	// data there would have to be another gzip stream).
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return files, fmt.Errorf("%s (from %s): %v", s.Archive, url, err)
	}
	for _, f := range slices.Concat(s.Train, s.Test) {
		if !done[f.Name] {
			return files, fmt.Errorf("%s (from %s): the archive has no %s/%s", s.Archive, url, s.Folder, f.Name)
		}
	}
	return files, nil
}

// extract writes one archive member of size bytes to a temporary file for
// dir/base, checking the records of a data file.
func extract(name string, r io.Reader, size int64, dir, base string, f Format, isData bool, sha string) (*tempFile, error) {
	tmp, err := newTemp(dir, base)
	if err != nil {
		return nil, err
	}
	if isData {
		var recs int
		if recs, err = cifarRecords(name, size, f); err == nil {
			// Check the records as they are written.
			err = decodeCIFAR(name, io.TeeReader(r, tmp), recs, f, nil, nil, nil, sha)
		}
	} else if _, err = io.Copy(tmp, r); err != nil {
		err = fmt.Errorf("%s: %v", name, err)
	}
	if err != nil {
		tmp.discard()
		return nil, err
	}
	return tmp, nil
}
