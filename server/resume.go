package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// resumeList is the file of the runs folder that names the runs that
// closing deeplda ui stopped, which it resumes when started again.
const resumeList = ".resume.json"

// resumeSession is the session number of the runs resumed at start, above
// those that pages number theirs from.
const resumeSession = 1 << 20

// RunPath returns the path of the run folder name, which must be a folder
// right in the runs folder.
func (h *host) RunPath(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("%q is not a run of the runs folder", name)
	}
	st, err := h.runs.Stat(name)
	if err != nil {
		return "", fmt.Errorf("run %s: %w", name, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("run %s is not a folder", name)
	}
	return filepath.Join(h.cfg.Runs, name), nil
}

// Resume puts run where the resume file of the run folder name left it
// (engine.RunFolders).
func (h *host) Resume(name string, run *experiment.Run) (string, error) {
	dir, err := h.RunPath(name)
	if err != nil {
		return "", err
	}
	return dir, run.Resume(filepath.Join(dir, experiment.ResumeFile))
}

// noteUnfinished records the run folders of the last session that are not
// done (the run that trains, or that a stop left), so that the next start
// resumes them; with none, it removes the record.
func (h *host) noteUnfinished() error {
	h.mu.Lock()
	var names []string
	for k, d := range h.dirs {
		if k[0] == h.current {
			names = append(names, d)
		}
	}
	h.mu.Unlock()
	names = slices.DeleteFunc(names, func(name string) bool { return h.runFolder(name, false).Status == "done" })
	if len(names) == 0 {
		if err := h.runs.Remove(resumeList); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	slices.Sort(names)
	b, err := json.Marshal(names)
	if err != nil {
		return err
	}
	return h.runs.WriteFile(resumeList, b, 0o644)
}

// resumeJobs reads and removes the list of runs to resume, and returns
// their jobs (the configuration each report.json holds); a run that
// cannot be resumed is skipped with the reason in skipped.
func (h *host) resumeJobs() (jobs []protocol.Job, skipped []string) {
	b, err := h.runs.ReadFile(resumeList)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	h.runs.Remove(resumeList)
	var names []string
	if err == nil {
		err = json.Unmarshal(b, &names)
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", resumeList, err)}
	}
	for _, name := range names {
		job, err := h.resumeJob(name)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		jobs = append(jobs, job)
	}
	return jobs, skipped
}

// completeResumes gives each job of st that names only a run folder to
// resume (a page's Resume of a run in the runs list) that run's
// configuration, from its report.json; st may be nil.
func (h *host) completeResumes(st *protocol.Start) error {
	if st == nil {
		return nil
	}
	for i, j := range st.Jobs {
		if j.Resume == "" || j.Synth != nil || j.Image != nil {
			continue
		}
		job, err := h.resumeJob(j.Resume)
		if err != nil {
			return err
		}
		st.Jobs[i] = job
	}
	return nil
}

// resumeJob returns the job that resumes the run folder name, with the
// kind and configuration that its resume file holds (a run killed mid-run
// has no report.json).
func (h *host) resumeJob(name string) (protocol.Job, error) {
	job := protocol.Job{Label: runLabel(name), Resume: name}
	dir, err := h.RunPath(name)
	if err != nil {
		return job, err
	}
	if _, err := h.runs.Stat(filepath.Join(name, experiment.ResumeFile)); err != nil {
		return job, fmt.Errorf("run %s stopped before its first epoch ended: nothing to resume", name)
	}
	kind, config, err := experiment.ResumedRun(filepath.Join(dir, experiment.ResumeFile))
	if err != nil {
		return job, fmt.Errorf("run %s: %w", name, err)
	}
	switch kind {
	case experiment.ReportSynth:
		job.Synth = &experiment.SynthConfig{}
		err = json.Unmarshal(config, job.Synth)
	case experiment.ReportTrain:
		job.Image = &experiment.ImageConfig{}
		err = json.Unmarshal(config, job.Image)
	default:
		err = fmt.Errorf("a %q run cannot be resumed here", kind)
	}
	if err != nil {
		return job, fmt.Errorf("run %s: %w", name, err)
	}
	return job, nil
}

// runLabel is the label part of a run folder's name (see RunDir), or the
// name.
func runLabel(name string) string {
	parts := strings.SplitN(name, "-", 5)
	if len(parts) == 5 {
		return parts[4]
	}
	return name
}
