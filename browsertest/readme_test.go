package browsertest

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// readmePicture is the README's picture of the page, which
// TestREADMEPicture makes.
const readmePicture = "docs/page.png"

// TestREADMEPicture trains demo 2 side by side in the page at 1366x900 and
// takes the picture of what a visitor sees: with DEEPLDA_README_PICTURE=1
// it writes it to docs/page.png for the README, otherwise to
// out/screenshots; either way it checks that README.md shows
// docs/page.png and that the committed file is a PNG of that size.
func TestREADMEPicture(t *testing.T) {
	b := newBrowser(t, options{})
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1366, 900)); err != nil {
		t.Fatal(err)
	}
	b.open("?demo=deep&compare=1&backend=cpu&epochs=20&train=4000&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(shotDir, "readme-page.png")
	if os.Getenv("DEEPLDA_README_PICTURE") == "1" {
		path = filepath.Join("..", readmePicture)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("picture %s", path)
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "("+readmePicture+")") {
		t.Errorf("README.md does not show %s", readmePicture)
	}
	committed, err := os.ReadFile(filepath.Join("..", readmePicture))
	if err != nil {
		t.Fatalf("%v (DEEPLDA_README_PICTURE=1 go test -run TestREADMEPicture ./browsertest makes it)", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(committed))
	if err != nil || cfg.Width != 1366 || cfg.Height != 900 {
		t.Errorf("%s: %dx%d (%v), want a 1366x900 PNG", readmePicture, cfg.Width, cfg.Height, err)
	}
}
