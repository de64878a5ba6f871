package browsertest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/deeplda/deeplda/safetensors"
)

// TestDownloads trains a short run and downloads its report, checkpoint
// and a figure: the report must be #report, the checkpoint a safetensors
// file with the model's tensors, the figure an SVG document.
func TestDownloads(t *testing.T) {
	b := newBrowser(t, options{})
	dir := t.TempDir()
	c := chromedp.FromContext(b.ctx)
	if _, err := cdp.Call(b.ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	}); err != nil {
		t.Fatalf("allowing downloads: %v", err)
	}
	b.open("?backend=cpu&epochs=3&train=2000&autostart=1")
	b.waitFinished("done", time.Minute)
	b.click("#dl-report")
	b.click("#dl-checkpoint")
	b.click(`.card[data-name="embedding.svg"] figcaption button`)
	read := func(name string) []byte {
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
	rep := read("report.json")
	shown := eval[string](b, `document.getElementById('report').textContent`)
	if !bytes.Equal(rep, []byte(shown)) {
		t.Errorf("report.json differs from #report")
	}
	var r report
	if err := json.Unmarshal(rep, &r); err != nil || r.Status != "done" {
		t.Errorf("report.json: status %q, error %v", r.Status, err)
	}
	f, err := safetensors.Decode(read("checkpoint.safetensors"))
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	names := strings.Join(f.Names(), " ")
	for _, want := range []string{"enc.fc1.weight", "head.mu"} {
		if !strings.Contains(names, want) {
			t.Errorf("checkpoint tensors %s lack %s", names, want)
		}
	}
	if svg := read("embedding.svg"); !bytes.Contains(svg[:min(len(svg), 200)], []byte("<svg")) {
		t.Errorf("embedding.svg does not start as SVG: %.80s", svg)
	}
	b.checkClean()
}
