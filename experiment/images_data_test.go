package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/internal/sharedtest"
)

// TestLoadImageDataMessages checks the messages of a missing data set and
// of another data set's files: they name the flags to use, not Go
// functions.
func TestLoadImageDataMessages(t *testing.T) {
	c := DefaultImages()
	c.Data, c.DataDir = "mnist", t.TempDir()
	_, err := LoadImageData(context.Background(), c, false)
	if err == nil || !strings.Contains(err.Error(), "add -fetch to download them") || !strings.Contains(err.Error(), "-datadir "+c.DataDir) ||
		strings.Contains(err.Error(), "images.") || strings.Contains(err.Error(), "Fetch") {
		t.Errorf("missing files: %v", err)
	}
	c.DataDir = filepath.Join(sharedtest.Dir(t, "datasets"), "fashion-mnist")
	_, err = LoadImageData(context.Background(), c, false)
	if err == nil || !strings.Contains(err.Error(), "holds fashion-mnist data, not mnist") || !strings.Contains(err.Error(), "-data fashion-mnist reads them") {
		t.Errorf("Fashion-MNIST as MNIST: %v", err)
	}
}
