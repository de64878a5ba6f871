package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// TestProgressToAFile: written to a file, the progress is a line per epoch
// plus, while an epoch or an evaluation lasts longer than the interval, a
// line per interval; nothing with quiet.
func TestProgressToAFile(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf, false)
	p.every = time.Hour
	p.update(train.Progress{Epoch: 1, Epochs: 2, Step: 3, Steps: 10})
	p.phase(experiment.Phase{Name: experiment.PhaseTest, Done: 256, Total: 1000})
	if buf.Len() != 0 {
		t.Fatalf("lines within the interval: %q", buf.String())
	}
	p.every = 0
	p.update(train.Progress{Epoch: 1, Epochs: 2, Step: 4, Steps: 10, Loss: 1.5})
	p.phase(experiment.Phase{Name: experiment.PhaseTest, Done: 512, Total: 1000})
	p.update(train.Progress{Epoch: 1, Epochs: 2, Step: 10, Steps: 10, Loss: 1.25})
	want := []string{"epoch 1/2 step 4/10  loss 1.5000", "evaluating the test set: 512/1000 images", "epoch 1/2  loss 1.2500"}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("lines %q, want %d", lines, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d %q, want it to start with %q", i, lines[i], w)
		}
	}

	// The test figures after each epoch, every epoch of a short run;
	// every epochs/20 and the last of a long one.
	buf.Reset()
	p.epochEnd(report.Epoch{Epoch: 1, TestAccuracy: 0.8611, TestECE: 0.0857}, 2)
	if got := buf.String(); got != "epoch 1/2  test accuracy 86.11%  ECE 8.57%\n" {
		t.Errorf("the epoch's test line %q", got)
	}
	buf.Reset()
	long := newProgressBar(&buf, false)
	for e := 1; e <= 100; e++ {
		long.epochEnd(report.Epoch{Epoch: e}, 100)
	}
	if n := strings.Count(buf.String(), "test accuracy"); n != 20 || !strings.HasSuffix(buf.String(), "epoch 100/100  test accuracy 0.00%  ECE 0.00%\n") {
		t.Errorf("100 epochs gave %d test lines, want 20 ending with the last:\n%s", n, buf.String())
	}

	buf.Reset()
	q := newProgressBar(&buf, true)
	q.every = 0
	q.update(train.Progress{Epoch: 1, Epochs: 2, Step: 4, Steps: 10})
	q.phase(experiment.Phase{Name: experiment.PhaseTest, Done: 512, Total: 1000})
	q.epochEnd(report.Epoch{Epoch: 2}, 2)
	q.finish()
	if buf.Len() != 0 {
		t.Errorf("quiet: %q", buf.String())
	}
}

// TestProgressOnATerminal: on a terminal each phase redraws the one line
// with its bar, clearing what a longer line left.
func TestProgressOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progressBar{w: &buf, tty: true}
	p.phase(experiment.Phase{Name: experiment.PhaseRecalibrate, Done: 5120, Total: 5120})
	p.finish()
	got := buf.String()
	if !strings.HasPrefix(got, "\r"+strings.Repeat("█", 30)+" 100%  recomputing the BatchNorm statistics: 5120/5120 images\033[K") || !strings.HasSuffix(got, "\n") {
		t.Errorf("terminal line %q", got)
	}
}
