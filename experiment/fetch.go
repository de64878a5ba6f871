//go:build !js

package experiment

import (
	"context"

	"github.com/deeplda/deeplda/data/images"
)

// fetchImages downloads the files of c.Data missing from c.DataDir from
// the official locations (images.Fetch).
func fetchImages(ctx context.Context, c ImageConfig) error {
	return images.Fetch(ctx, c.Data, c.DataDir, nil)
}
