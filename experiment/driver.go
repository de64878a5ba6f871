package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/train"
)

// Trainable is a run that a Driver trains: a toy run (*Run) or an image run
// (*ImageRun), alone or as a member of a sweep.
type Trainable interface {
	// Base returns the part every run has: model, trainer and report.
	Base() *Run
	// Finish evaluates the trained model and completes the report.
	Finish() error
	// Figures returns the run's SVG figures by file name.
	Figures() map[string][]byte
	// MarshalJSON returns the run's report.json.
	json.Marshaler
}

// CheckpointFile is the name of the checkpoint, in a run's output folder,
// that a Driver with Save rewrites after every epoch.
const CheckpointFile = "checkpoint.safetensors"

// Driver trains runs epoch by epoch to their end, for the native command
// and the page alike. Its zero value trains and finishes a run and writes
// nothing.
type Driver struct {
	// Dir is the output folder of report.json (written at the end, and
	// when the run diverges), "" for none.
	Dir string
	// Save writes the checkpoint (CheckpointFile) and the resume file
	// (ResumeFile) to Dir after every epoch. A run that Save keeps is,
	// when cancelled mid-epoch, put back to its last whole epoch (what
	// the files hold) and finished and reported there; a run without Save
	// is left where it stopped, and Drive called again continues it at
	// the same step.
	Save bool
	// Figures writes the run's figures to Dir at the end.
	Figures bool
	// Progress is called between steps (train.Trainer.RunEpoch).
	Progress func(train.Progress)
	// Phase is told how the evaluations after each epoch and at the end
	// progress (Run.OnPhase).
	Phase func(Phase)
	// AfterEpoch is called after every whole epoch, evaluated and saved;
	// an error stops the run and Drive returns it.
	AfterEpoch func() error
	// Stopping is called when a run that Save keeps was cancelled, after
	// it was put back to its last whole epoch and before it is finished.
	Stopping func()
}

// Drive trains t from where it stands to its last epoch, then finishes it
// and writes its report and figures (see Driver). It returns nil when the
// run is done; the train.DivergedError when the loss became NaN or infinite
// (the report, written, says so in its status); ctx's error when ctx was
// cancelled; or the error that stopped it.
func (d Driver) Drive(ctx context.Context, t Trainable) error {
	r := t.Base()
	r.OnPhase = d.Phase
	var saved *train.Snapshot
	if d.Save {
		var err error
		if saved, err = r.Trainer.Snapshot(); err != nil {
			err = fmt.Errorf("reading the training state before epoch %d: %w", r.Trainer.Epoch()+1, err)
			if lost(err) {
				return d.diverged(t, err)
			}
			return err
		}
	}
	for !r.Done() {
		err := r.Epoch(ctx, d.Progress)
		switch {
		case lost(err):
			return d.diverged(t, err)
		case err != nil && ctx.Err() != nil:
			return d.stopped(t, saved, err)
		case err != nil:
			return err
		}
		if d.Save {
			if saved, err = r.SaveEpoch(filepath.Join(d.Dir, CheckpointFile), filepath.Join(d.Dir, ResumeFile)); err != nil {
				return err
			}
		}
		if d.AfterEpoch != nil {
			if err := d.AfterEpoch(); err != nil {
				return err
			}
		}
	}
	if err := t.Finish(); err != nil {
		return err
	}
	return d.write(t, d.Figures)
}

// lost reports whether err ends a run where it stands, keeping what was
// saved: the loss became NaN or infinite, or the GPU device was lost or
// failed.
func lost(err error) bool {
	var div *train.DivergedError
	return errors.As(err, &div) || errors.Is(err, kernels.ErrDeviceLost) || errors.Is(err, kernels.ErrDeviceFailed)
}

// diverged writes the report of a run that lost its training state (see
// lost; its status says why) and returns err, naming the last good
// checkpoint when there is one.
func (d Driver) diverged(t Trainable, err error) error {
	r := t.Base()
	r.Report.Status = err.Error()
	if werr := d.write(t, false); werr != nil {
		return werr
	}
	switch e := r.Trainer.Epoch(); {
	case !d.Save:
		return err
	case e == 0:
		return fmt.Errorf("%w; no epoch had finished, so no checkpoint was saved", err)
	default:
		return fmt.Errorf("%w; the last good checkpoint (epoch %d) is %s", err, e, filepath.Join(d.Dir, CheckpointFile))
	}
}

// stopped handles a cancelled run: one that Save keeps goes back to the
// saved state and is finished and reported there; err comes back.
func (d Driver) stopped(t Trainable, saved *train.Snapshot, err error) error {
	if !d.Save {
		return err
	}
	if rerr := t.Base().Trainer.Restore(saved); rerr != nil {
		return fmt.Errorf("%w; then, going back to the last whole epoch: %w", err, rerr)
	}
	if d.Stopping != nil {
		d.Stopping()
	}
	if ferr := t.Finish(); ferr != nil {
		return ferr
	}
	if werr := d.write(t, d.Figures); werr != nil {
		return werr
	}
	return err
}

// write writes report.json and, with figures, the figures to Dir (nothing
// without a Dir).
func (d Driver) write(t Trainable, figures bool) error {
	if d.Dir == "" {
		return nil
	}
	if err := report.WriteAs(d.Dir, t.Base().Report, t); err != nil {
		return err
	}
	if !figures {
		return nil
	}
	for name, svg := range t.Figures() {
		if err := report.WriteFileAtomic(filepath.Join(d.Dir, name), svg); err != nil {
			return err
		}
	}
	return nil
}

// ReportJSON returns the report.json of t, indented.
func ReportJSON(t Trainable) ([]byte, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the report: %w", err)
	}
	return append(b, '\n'), nil
}
