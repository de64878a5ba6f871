//go:build js

package experiment

import (
	"context"
	"errors"
)

// fetchImages refuses to download in the browser: the page leaves the
// fetcher (net/http) out of its build and reads the data sets its site
// hosts or the user's files.
func fetchImages(context.Context, ImageConfig) error {
	return errors.New("the browser build does not download data sets")
}
