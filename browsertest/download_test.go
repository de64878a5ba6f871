package browsertest

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/wasm/page"
)

// allowDownloads has the browser save downloads into a new folder, which
// it returns.
func (b *browser) allowDownloads() string {
	b.t.Helper()
	dir := b.t.TempDir()
	c := chromedp.FromContext(b.ctx)
	if _, err := cdp.Call(b.ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	}); err != nil {
		b.t.Fatalf("allowing downloads: %v", err)
	}
	return dir
}

// readDownload waits up to 30 s for the download name in dir and returns
// its bytes.
func readDownload(t testing.TB, dir, name string) []byte {
	t.Helper()
	path := filepath.Join(dir, name)
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil && len(data) > 0 {
			return data
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dir)
			t.Fatalf("no download %s (folder holds %v)", name, entries)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// tableText returns the text of the table sel as the page shows it: its
// header's cells and its rows' cells, with their spaces collapsed.
func (b *browser) tableText(sel string) [][]string {
	q, _ := json.Marshal(sel)
	return eval[[][]string](b, `Array.from(document.querySelector(`+string(q)+`).rows).map(r => Array.from(r.cells).map(c => c.textContent.replace(/\s+/g, ' ').trim()))`)
}

// checkCSV checks that the CSV file name of dir says what the page's
// table sel shows, cell for cell (with their spaces collapsed).
func (b *browser) checkCSV(dir, name, sel string) {
	t := b.t
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(readDownload(t, dir, name))).ReadAll()
	if err != nil {
		t.Fatalf("%s is not CSV: %v", name, err)
	}
	for _, r := range rows {
		for i, cell := range r {
			r[i] = strings.Join(strings.Fields(cell), " ")
		}
	}
	if shown := b.tableText(sel); !reflect.DeepEqual(rows, shown) {
		t.Errorf("%s says\n%q\nthe page's table %s shows\n%q", name, rows, sel, shown)
	}
}

// TestDownloads trains a short run and downloads its report, checkpoint,
// a figure as SVG and as PNG, its tables as CSV and all of it as a zip:
// the report must be #report, the checkpoint a safetensors file with the
// model's tensors, the figure an SVG document, its PNG twice its size,
// each CSV the table the page shows, and the zip all of these in a folder
// of the run's name.
func TestDownloads(t *testing.T) {
	b := newBrowser(t, options{})
	dir := b.allowDownloads()
	b.open("?backend=cpu&epochs=3&train=2000&autostart=1")
	b.waitFinished("done", time.Minute)
	// The settings panel stays in view as the page scrolls, and ends with
	// the downloads where the page ends.
	eval[bool](b, `(window.scrollTo(0, document.documentElement.scrollHeight), true)`)
	b.click("#dl-report")
	b.click("#dl-checkpoint")
	b.click("#dl-all")
	b.click(`.card[data-name="embedding.svg"] figcaption button[data-download="svg"]`)
	b.click(`.card[data-name="embedding.svg"] figcaption button[data-download="png"]`)
	b.click(`#summary button[data-csv="summary-table"]`)
	b.click(`#summary button[data-csv="extras"]`)
	read := func(name string) []byte { return readDownload(t, dir, name) }
	rep := read("report.json")
	shown := eval[string](b, `document.getElementById('report').textContent`)
	if !bytes.Equal(rep, []byte(shown)) {
		t.Errorf("report.json differs from #report")
	}
	var r report
	if err := json.Unmarshal(rep, &r); err != nil || r.Status != "done" {
		t.Errorf("report.json: status %q, error %v", r.Status, err)
	}
	ckpt := read("checkpoint.safetensors")
	f, err := safetensors.Decode(ckpt)
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	names := strings.Join(f.Names(), " ")
	for _, want := range []string{"enc.fc1.weight", "head.mu"} {
		if !strings.Contains(names, want) {
			t.Errorf("checkpoint tensors %s lack %s", names, want)
		}
	}
	svg := read("embedding.svg")
	if !bytes.Contains(svg[:min(len(svg), 200)], []byte("<svg")) {
		t.Errorf("embedding.svg does not start as SVG: %.80s", svg)
	}
	img, err := png.DecodeConfig(bytes.NewReader(read("embedding.png")))
	size := eval[[]int](b, `(s => [s.width.baseVal.value, s.height.baseVal.value])(document.querySelector('.card[data-name="embedding.svg"] svg'))`)
	if err != nil || img.Width != 2*size[0] || img.Height != 2*size[1] {
		t.Errorf("embedding.png: %dx%d (%v), want twice the figure's %dx%d", img.Width, img.Height, err, size[0], size[1])
	}
	b.checkCSV(dir, "summary.csv", "#summary-table")
	b.checkCSV(dir, "test-evaluation.csv", "#extras")
	// Download all: the same files, and the figures and tables beside.
	label := b.text(`#summary button[data-run="0"]`)
	zipped := read(page.Slug(label) + ".zip")
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatalf("the zip of %q: %v", label, err)
	}
	inZip := map[string][]byte{}
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", zf.Name, err)
		}
		inZip[zf.Name] = data
	}
	folder := page.Slug(label) + "/"
	for name, want := range map[string][]byte{"report.json": rep, "checkpoint.safetensors": ckpt, "embedding.svg": svg,
		"summary.csv": read("summary.csv"), "test-evaluation.csv": read("test-evaluation.csv")} {
		if got, ok := inZip[folder+name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("the zip's %s: %d bytes, want the %d downloaded alone (the zip holds %v)", folder+name, len(got), len(want), slices.Sorted(maps.Keys(inZip)))
		}
	}
	for _, name := range eval[[]string](b, `Array.from(document.querySelectorAll('#figures .card:not([hidden])')).map(c => c.dataset.name)`) {
		if len(inZip[folder+name]) == 0 {
			t.Errorf("the zip lacks the figure %s", name)
		}
	}
	b.checkClean()
}
