package experiment

import (
	"context"
	"errors"
	"fmt"

	"github.com/deeplda/deeplda/data/images"
	"github.com/deeplda/deeplda/train"
)

// ImageData is a loaded image data set: both splits as uint8 pixels.
type ImageData struct {
	Train, Test *images.Set
}

// LoadImageData reads the data set c.Data from c.DataDir (verifying the
// files, see images.Load). With fetch, missing files are first downloaded
// from the official locations (images.Fetch). A missing file gives an error
// that says how to fetch it.
func LoadImageData(ctx context.Context, c ImageConfig, fetch bool) (ImageData, error) {
	if err := checkChoice("data", c.Data); err != nil {
		return ImageData{}, err
	}
	return loadImages(ctx, c, fetch, "data", "datadir")
}

// loadImages is LoadImageData for the data set and folder given by the
// flags -dataFlag and -dirFlag, which its messages name.
func loadImages(ctx context.Context, c ImageConfig, fetch bool, dataFlag, dirFlag string) (ImageData, error) {
	if fetch {
		if err := fetchImages(ctx, c); err != nil {
			return ImageData{}, fmt.Errorf("downloading %s into %s: %w", c.Data, c.DataDir, err)
		}
	}
	tr, te, err := images.Load(c.Data, c.DataDir)
	var missing *images.MissingError
	var wrong *images.WrongSetError
	switch {
	case errors.As(err, &missing):
		return ImageData{}, fmt.Errorf("%w\n(-%s %s lacks the published files of %s: add -fetch to download them)", err, dirFlag, c.DataDir, c.Data)
	case errors.As(err, &wrong):
		return ImageData{}, fmt.Errorf("%w\n(-%s %s reads them, or give -%s the files of %s)", err, dataFlag, wrong.Have, dirFlag, c.Data)
	case err != nil:
		return ImageData{}, err
	}
	return ImageData{Train: tr, Test: te}, nil
}

// splits returns the training, held-out and test sets of c.
func (d ImageData) splits(c ImageConfig) (trainSet, valSet, testSet train.Dataset, err error) {
	n := d.Train.Len()
	if c.Val >= n {
		return trainSet, valSet, testSet, settingError("val", "val %d leaves no training image of the %d", c.Val, n)
	}
	avail := n - c.Val
	if c.LimitTrain > avail {
		return trainSet, valSet, testSet, settingError("limit-train", "limit-train %d with val %d needs %d training images; %s has %d", c.LimitTrain, c.Val, c.LimitTrain+c.Val, c.Data, n)
	}
	limit := c.LimitTrain
	if limit == 0 {
		limit = avail
	}
	full := d.Train.Dataset(0) // shares the pixels
	trainSet = full.Slice(0, limit)
	if c.Val > 0 {
		valSet = full.Slice(avail, n)
	}
	testSet = d.Test.Dataset(c.LimitTest)
	return trainSet, valSet, testSet, nil
}

// LimitNote says, for a setting (limit-test, limit-train) that takes the
// first limit of the have images of a split, that the limit asks for more
// images than there are and all of them are used; "" when it does not.
func LimitNote(setting string, limit, have int, what string) string {
	if limit <= have {
		return ""
	}
	return fmt.Sprintf("-%s %d is more than the %d %s: using all %d", setting, limit, have, what, have)
}

// ClassNames returns the names of the classes of a data set for the
// figures' legends (nil when they do not fit a legend, see
// images.Spec.ClassNames).
func ClassNames(data string) []string {
	s, _ := images.Lookup(data)
	return s.ClassNames
}
