package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train"
)

// modelsDir is where the site keeps its trained models.
const modelsDir = "site/models/"

// models are the trained models the engine opens: the site's (listed in
// site/models/index.json by the build) and the checkpoints the user drops.
// An opened model is evaluated on the test set of its data set and shown
// as a session; continue trains it on from its weights and BatchNorm
// statistics, with Adam starting afresh and a new history.
type models struct {
	e     *Engine
	index []experiment.ModelInfo // the site's models; nil: none
	// The model opened last, while its session is the engine's: its
	// checkpoint and its data set (continue starts from them).
	sess *session
	file *safetensors.File
	data string
}

// probe reads the site's list of trained models and sends it.
func (m *models) probe() {
	b, err := m.e.host.Fetch(modelsDir + experiment.ModelsIndex)
	if err != nil {
		return // no models on this site
	}
	var idx []experiment.ModelInfo
	if err := json.Unmarshal(b, &idx); err != nil {
		m.e.emit(protocol.Event{Kind: protocol.EvOpenFailed, Error: modelsDir + experiment.ModelsIndex + ": " + err.Error()})
		return
	}
	m.index = idx
	m.e.emit(protocol.Event{Kind: protocol.EvModels, Models: idx})
}

// find returns the site's model name, or nil.
func (m *models) find(name string) *experiment.ModelInfo {
	for i := range m.index {
		if m.index[i].Name == name {
			return &m.index[i]
		}
	}
	return nil
}

// checkpoint is a trained model to open: its label, its bytes, the site's
// information on it (nil for a dropped file) and what its report says of
// its training (none for a dropped file).
type checkpoint struct {
	label   string
	bytes   []byte
	file    *safetensors.File
	info    *experiment.ModelInfo
	trained training
}

// training is what a trained model's report.json says of its training:
// the history and the training wall time.
type training struct {
	History []report.Epoch `json:"history"`
	Seconds report.Float   `json:"seconds"`
}

// open opens the models of c.Open (the site's, or the file that came with
// the command) and evaluates them as session c.Session: one as a run whose
// history is its report's; two (an LDA head and a softmax head of one data
// set) side by side. c.Start's jobs are the runs as the form plans them
// (one, or both heads); each checkpoint's own spec overrides its job's
// settings.
func (m *models) open(c protocol.Command, files []File) {
	o, st := c.Open, c.Start
	if o == nil || st == nil || len(st.Jobs) == 0 || st.Jobs[0].Image == nil {
		m.failed("open", fmt.Errorf("nothing to open"))
		return
	}
	var cps []checkpoint
	for _, name := range o.Hosted {
		info := m.find(name)
		if info == nil {
			var names []string
			for _, i := range m.index {
				names = append(names, i.Name)
			}
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			m.failed("model="+name, fmt.Errorf("this site hosts no trained model of that name (it hosts: %s)", have))
			return
		}
		m.e.emit(protocol.Event{Kind: protocol.EvLoading, Text: fmt.Sprintf("Downloading the model %s…", name)})
		dir := modelsDir + name + "/"
		b, err := m.e.host.Fetch(dir + experiment.CheckpointFile)
		var trained training
		if err == nil {
			trained, err = m.readTraining(dir + experiment.ModelReportFile)
		}
		if err != nil {
			m.failed(name, err)
			return
		}
		cps = append(cps, checkpoint{label: name, bytes: b, info: info, trained: trained})
	}
	for _, f := range files {
		b, err := f.Read()
		if err != nil {
			m.failed(f.Name, fmt.Errorf("cannot read the file: %v", err))
			return
		}
		cps = append(cps, checkpoint{label: f.Name, bytes: b})
	}
	if len(cps) == 0 || len(cps) > 2 {
		m.failed("open", fmt.Errorf("open takes one or two models, got %d", len(cps)))
		return
	}
	for i := range cps {
		f, err := safetensors.Decode(cps[i].bytes)
		if err != nil {
			m.failed(cps[i].label, fmt.Errorf("not a safetensors checkpoint: %w", err))
			return
		}
		cps[i].file = f
	}
	jobs, byRun, label, err := m.plan(st.Jobs, cps)
	if err != nil {
		m.failed(label, err)
		return
	}
	start := *st
	start.Jobs = jobs
	s, err := newSession(c.Session, start)
	if err != nil {
		m.failed(cps[0].label, err)
		return
	}
	be, why := m.e.backends.get(start.Backend)
	s.be = be
	m.e.emit(protocol.Event{Kind: protocol.EvBackend, Session: s.id, Backend: backendOf(be, why)})
	if label, err := m.evaluate(s, byRun); err != nil {
		s.release()
		m.failed(label, err)
		return
	}
	m.sess, m.file, m.data = nil, nil, ""
	if len(cps) == 1 {
		m.sess, m.file, m.data = s, cps[0].file, jobs[0].Image.Data
	}
	op := &protocol.Opened{Continuable: len(cps) == 1}
	var labels []string
	for _, cp := range cps {
		labels = append(labels, cp.label)
	}
	op.Label = strings.Join(labels, ",")
	if len(o.Hosted) > 0 {
		op.Hosted = o.Hosted[0]
	}
	for i, jr := range s.runs {
		r := jr.run.Report
		op.Configs = append(op.Configs, *jr.job.Image)
		op.Models = append(op.Models, protocol.OpenedModel{Label: byRun[i].label, Info: byRun[i].info, Head: jr.job.Image.Head,
			Accuracy: float64(r.Test.Accuracy), ECE: float64(r.Test.ECE), Images: r.Test.Examples, Data: jr.job.Image.Data})
	}
	for i := range s.runs {
		m.e.sendRun(s, i)
	}
	m.e.emit(protocol.Event{Kind: protocol.EvOpened, Session: s.id, Opened: op})
}

// mustHead returns the head of a decoded checkpoint ("" when its spec
// cannot be read).
func mustHead(cp checkpoint) string {
	c, err := experiment.OpenedConfig(experiment.DefaultImages(), cp.file)
	if err != nil {
		return ""
	}
	return c.Head
}

// plan returns the jobs that evaluate cps: for one checkpoint, the form's
// job on the checkpoint's data set (the hosted model's, or the one a
// dropped file's shapes fit, preferring the form's) with the checkpoint's
// spec; for two, the form's jobs of both heads, each with the checkpoint
// of its head. It returns the jobs and their checkpoints in the same order;
// on failure, the label of the checkpoint at fault.
func (m *models) plan(jobs []protocol.Job, cps []checkpoint) ([]protocol.Job, []checkpoint, string, error) {
	base := *jobs[0].Image
	if len(cps) == 1 {
		cp := cps[0]
		var err error
		if cp.info != nil {
			base.Data = cp.info.Data
		} else if base.Data, err = experiment.CheckpointData(cp.file, base.Data); err != nil {
			return nil, nil, cp.label, err
		}
		c, err := experiment.OpenedConfig(base, cp.file)
		if err != nil {
			return nil, nil, cp.label, err
		}
		c = experiment.WithHeldOut(c)
		return []protocol.Job{{Label: cp.label, Image: &c}}, cps, "", nil
	}
	if len(jobs) != 2 {
		return nil, nil, cps[0].label, fmt.Errorf("side by side needs the jobs of both heads")
	}
	out := make([]protocol.Job, 2)
	order := make([]checkpoint, 2)
	for _, cp := range cps {
		head := mustHead(cp)
		k := -1
		for i, j := range jobs {
			if j.Image != nil && j.Image.Head == head && out[i].Image == nil {
				k = i
			}
		}
		if k < 0 {
			return nil, nil, cp.label, fmt.Errorf("side by side needs an LDA head and a softmax head; %s and %s both have a %s head", cps[0].label, cps[1].label, head)
		}
		c, err := experiment.OpenedConfig(*jobs[k].Image, cp.file)
		if err != nil {
			return nil, nil, cp.label, err
		}
		out[k], order[k] = protocol.Job{Label: cp.label, Image: &c}, cp
	}
	return out, order, "", nil
}

// readTraining downloads a report.json and returns what it says of the
// training.
func (m *models) readTraining(path string) (training, error) {
	var t training
	b, err := m.e.host.Fetch(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// failed says why the model label did not open; nothing changes.
func (m *models) failed(label string, err error) {
	m.e.emit(protocol.Event{Kind: protocol.EvOpenFailed, Error: label + ": " + err.Error()})
}

// evaluate builds each run of s from its checkpoint (cps, in the runs'
// order) and evaluates it as deeplda eval does (experiment.EvaluateImages:
// the test set with the checkpoint's BatchNorm statistics, and the hosted
// out-of-distribution set, when there is one); its report keeps the
// history and the training time of the checkpoint's report. Then it makes
// s the engine's session. On failure it returns the label of the
// checkpoint that failed, with the error.
func (m *models) evaluate(s *session, cps []checkpoint) (string, error) {
	e := m.e
	for i, cp := range cps {
		jr := s.runs[i]
		s.cur = i
		if err := e.newRun(s, jr); err != nil {
			return cp.label, err
		}
		img := jr.image()
		if err := img.Load(cp.file); err != nil {
			return cp.label, err
		}
		img.Report.Kind, img.Report.Status = experiment.ReportEval, "opened "+cp.label
		img.Report.History, img.Report.Seconds = cp.trained.History, cp.trained.Seconds
		img.Report.Backend.Engine = m.e.host.Engine()
		e.emit(protocol.Event{Kind: protocol.EvLoading, Session: s.id, Run: i, Text: fmt.Sprintf("Evaluating %s on %d %s test images on %s…",
			cp.label, img.TestSet.Len(), img.Config.Data, experiment.BackendOf(s.be))})
		res, err := experiment.EvaluateImages(img.Model, img.TestSet, train.Dataset{}, img.OOD, img.Config.EvalConfig(), func(p experiment.Phase) {
			e.emit(protocol.Event{Kind: protocol.EvPhase, Session: s.id, Run: i, Phase: &p})
			e.host.Yield()
		})
		if err != nil {
			return cp.label, err
		}
		img.SetEvaluation(res)
		jr.status, jr.opened = "opened: "+cp.label, true
		figs := jr.t.Figures()
		if len(cp.trained.History) == 0 {
			for _, name := range []string{"curves.svg", "accuracy.svg", "logdet.svg"} {
				delete(figs, name)
			}
		}
		jr.figs, jr.report, jr.ckpt, jr.newCkpt = figs, reportJSON(jr.t), cp.bytes, true
	}
	s.cur = 0
	e.begin(s)
	return "", nil
}

// continueTraining trains the model opened last on from its checkpoint
// with c.Start's one job (its data set and model are the checkpoint's): a
// new session, with its own history, and Adam from zero.
func (m *models) continueTraining(ctx context.Context, c protocol.Command) {
	e := m.e
	if m.sess == nil || e.sess != m.sess || c.Start == nil || len(c.Start.Jobs) != 1 || c.Start.Jobs[0].Image == nil {
		e.emit(protocol.Event{Kind: protocol.EvRefused, Session: c.Session, Error: "continue: no opened model to train on"})
		return
	}
	job := c.Start.Jobs[0]
	base := *job.Image
	base.Data = m.data
	cfg, err := experiment.OpenedConfig(base, m.file)
	if err != nil {
		m.failed("continue", err)
		return
	}
	job.Image = &cfg
	start := *c.Start
	start.Jobs = []protocol.Job{job}
	s, err := newSession(c.Session, start)
	if err != nil {
		m.failed("continue", err)
		return
	}
	f := m.file
	m.forget()
	e.begin(s)
	be, why := e.backends.get(start.Backend)
	s.be = be
	e.emit(protocol.Event{Kind: protocol.EvBackend, Session: s.id, Backend: backendOf(be, why)})
	jr := s.runs[0]
	err = e.newRun(s, jr)
	if err == nil {
		err = jr.image().Load(f)
	}
	if err != nil {
		e.failed(s, err)
		return
	}
	e.train(ctx, s)
}

// forget drops the opened model: its session is no longer shown, or
// trains on.
func (m *models) forget() {
	m.sess, m.file, m.data = nil, nil, ""
}
