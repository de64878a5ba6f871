package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// lineEvery is how often the progress goes to a file (or a pipe) as a line
// while an epoch or an evaluation runs.
const lineEvery = 30 * time.Second

// progressBar draws the progress of training and of the evaluations on a
// terminal (one line redrawn with \r); to a file it writes a line per
// epoch and, while an epoch or an evaluation lasts, one every lineEvery.
type progressBar struct {
	w         io.Writer
	quiet     bool
	tty       bool
	every     time.Duration // between lines to a file
	lastEpoch int
	lastTest  int       // the last epoch whose test figures were written
	last      time.Time // last redraw (terminal) or line (file)
	drawn     bool
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progressBar{w: w, quiet: quiet, tty: tty, every: lineEvery, last: time.Now()}
}

// update is the trainer's progress callback.
func (p *progressBar) update(pr train.Progress) {
	if p.quiet {
		return
	}
	endOfEpoch := pr.Step == pr.Steps
	if !p.tty {
		switch {
		case endOfEpoch && (pr.Epoch == pr.Epochs || pr.Epoch-p.lastEpoch >= max(1, pr.Epochs/20)):
			p.lastEpoch = pr.Epoch
			p.line("epoch %d/%d  loss %.4f  acc %.2f%%  %.0f ex/s  %s elapsed",
				pr.Epoch, pr.Epochs, pr.Loss, 100*pr.Accuracy, pr.ExamplesPerSecond, time.Duration(pr.Elapsed).Round(time.Second))
		case !endOfEpoch && time.Since(p.last) >= p.every:
			p.line("epoch %d/%d step %d/%d  loss %.4f  acc %.2f%%  %.0f ex/s  %s elapsed, about %s to go",
				pr.Epoch, pr.Epochs, pr.Step, pr.Steps, pr.Loss, 100*pr.Accuracy, pr.ExamplesPerSecond, time.Duration(pr.Elapsed).Round(time.Second), time.Duration(pr.Remaining).Round(time.Second))
		}
		return
	}
	if time.Since(p.last) < 100*time.Millisecond && !endOfEpoch {
		return
	}
	total := pr.Epochs * pr.Steps
	p.redraw(float64(pr.TotalStep)/float64(max(total, 1)), "epoch %d/%d step %d/%d  loss %.4f  acc %.2f%%  %.0f ex/s  ETA %s",
		pr.Epoch, pr.Epochs, pr.Step, pr.Steps, pr.Loss, 100*pr.Accuracy, pr.ExamplesPerSecond, time.Duration(pr.Remaining).Round(time.Second))
}

// epochEnd writes the test figures of the epoch that h records (the
// history's row, evaluated after the epoch) as a line, at the pace of the
// epoch lines to a file: every epoch, or every epochs/20 for long runs,
// and the last.
func (p *progressBar) epochEnd(h report.Epoch, epochs int) {
	if p.quiet || (h.Epoch != epochs && h.Epoch-p.lastTest < max(1, epochs/20)) {
		return
	}
	p.lastTest = h.Epoch
	p.finish()
	p.line("epoch %d/%d  test accuracy %.2f%%  ECE %.2f%%", h.Epoch, epochs, 100*float64(h.TestAccuracy), 100*float64(h.TestECE))
}

// phase is the progress callback of the evaluations (experiment.Phase).
func (p *progressBar) phase(ph experiment.Phase) {
	if p.quiet {
		return
	}
	end := ph.Done == ph.Total
	if !p.tty {
		if !end && time.Since(p.last) >= p.every {
			p.line("%s: %d/%d images", ph.Name, ph.Done, ph.Total)
		}
		return
	}
	if time.Since(p.last) < 100*time.Millisecond && !end {
		return
	}
	p.redraw(float64(ph.Done)/float64(max(ph.Total, 1)), "%s: %d/%d images", ph.Name, ph.Done, ph.Total)
}

// line writes one line of progress to a file.
func (p *progressBar) line(format string, args ...any) {
	p.last = time.Now()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// redraw draws the terminal's line: a bar filled to frac and the text.
func (p *progressBar) redraw(frac float64, format string, args ...any) {
	p.last = time.Now()
	const width = 30
	filled := int(min(max(frac, 0), 1) * width)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	// \033[K clears what a longer line drew before.
	fmt.Fprintf(p.w, "\r%s %3.0f%%  "+format+"\033[K", append([]any{bar, 100 * frac}, args...)...)
	p.drawn = true
}

// finish ends the bar's line (once, however often it is called).
func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
