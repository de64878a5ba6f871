package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/deeplda/deeplda/train"
)

// progressBar draws training progress on a terminal (one line redrawn with
// \r), or a line per epoch when stderr is not a terminal.
type progressBar struct {
	w         io.Writer
	quiet     bool
	tty       bool
	lastEpoch int
	last      time.Time
	drawn     bool
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progressBar{w: w, quiet: quiet, tty: tty}
}

// update is the trainer's progress callback.
func (p *progressBar) update(pr train.Progress) {
	if p.quiet {
		return
	}
	endOfEpoch := pr.Step == pr.Steps
	if !p.tty {
		if endOfEpoch && (pr.Epoch == pr.Epochs || pr.Epoch-p.lastEpoch >= max(1, pr.Epochs/20)) {
			p.lastEpoch = pr.Epoch
			fmt.Fprintf(p.w, "epoch %d/%d  loss %.4f  acc %.2f%%  %.0f ex/s  %s elapsed\n",
				pr.Epoch, pr.Epochs, pr.Loss, 100*pr.Accuracy, pr.ExamplesPerSecond, pr.Elapsed.Round(time.Second))
		}
		return
	}
	if time.Since(p.last) < 100*time.Millisecond && !endOfEpoch {
		return
	}
	p.last = time.Now()
	total := pr.Epochs * pr.Steps
	frac := float64(pr.TotalStep) / float64(max(total, 1))
	const width = 30
	filled := int(frac * width)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	fmt.Fprintf(p.w, "\r%s %3.0f%%  epoch %d/%d step %d/%d  loss %.4f  acc %.2f%%  %.0f ex/s  ETA %s   ",
		bar, 100*frac, pr.Epoch, pr.Epochs, pr.Step, pr.Steps, pr.Loss, 100*pr.Accuracy, pr.ExamplesPerSecond, pr.Remaining.Round(time.Second))
	p.drawn = true
}

// finish ends the bar's line (once, however often it is called).
func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
