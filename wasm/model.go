//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/report"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/wasm/config"
)

// This file opens trained models in the images demo: the ones this site
// hosts (site/models/<name>/, listed in site/models/index.json by the
// build; model=<name> in the URL opens one when the page loads) and the
// checkpoints the user drops or chooses (.safetensors written by deeplda
// train, or by PyTorch with the reference names). An opened model is
// evaluated on the test set of its data set and shown as a run, with the
// history of its report when the site hosts it; Continue training trains
// it on from its weights and BatchNorm statistics for the form's epochs,
// with Adam starting afresh and a new history.

// modelsDir is where the site keeps its trained models.
const modelsDir = "site/models/"

// models is the trained-model panel of the images demo.
type models struct {
	a     *app
	index []experiment.ModelInfo // the site's models; nil: none
	// The opened model, while it is shown: its session, its checkpoint
	// and its data set (Continue training starts from them).
	sess *session
	file *safetensors.File
	data string

	pick, openBtn, cont dom.HTMLElement
	about, msg          dom.HTMLElement
}

// newModels adds the trained-model panel to the data box.
func newModels(a *app) *models {
	m := &models{a: a, pick: el("select", "", ""), openBtn: el("button", "", "Open"),
		cont: el("button", "", "Continue training"), about: el("p", "data-status", ""), msg: el("p", "field-error", "")}
	box := el("div", "model-box", "")
	box.SetID("model-box")
	label := el("label", "", "Trained model")
	label.SetAttribute("for", "f-model")
	m.pick.SetID("f-model")
	m.pick.Style().SetProperty("max-width", "100%", "")
	m.pick.SetAttribute("aria-describedby", "e-model")
	m.openBtn.SetID("open-model")
	m.cont.SetID("continue-model")
	m.about.SetID("model-status")
	m.about.SetAttribute("role", "status")
	m.msg.SetID("e-model")
	m.msg.SetAttribute("role", "alert")
	for _, b := range []dom.HTMLElement{m.openBtn, m.cont} {
		b.SetAttribute("type", "button")
	}
	m.cont.SetAttribute("title", "train on from this model's weights and BatchNorm statistics for the epochs above; Adam's moments start afresh")
	show(m.cont, false)
	row := el("div", "buttons", "")
	row.AppendChild(m.pick)
	row.AppendChild(m.openBtn)
	row.AppendChild(m.cont)
	for _, e := range []dom.HTMLElement{label, row, m.about, m.msg} {
		box.AppendChild(e)
	}
	a.data.box.AppendChild(box)
	in := a.data.input
	in.SetAttribute("accept", in.GetAttribute("accept")+",.safetensors")
	a.on(m.pick, "change", func(dom.Event) { m.describe() })
	a.on(m.openBtn, "click", func(dom.Event) {
		if name := m.pick.Underlying().Get("value").String(); name != "" {
			go m.openHosted(name)
		}
	})
	a.on(m.cont, "click", func(dom.Event) { m.continueTraining() })
	m.fill()
	return m
}

// probe reads site/models/index.json: the trained models the site hosts.
func (m *models) probe() {
	b, err := fetchBytes(modelsDir + experiment.ModelsIndex)
	if err != nil {
		return // no models on this site
	}
	var idx []experiment.ModelInfo
	if err := json.Unmarshal(b, &idx); err != nil {
		m.msg.SetTextContent(modelsDir + experiment.ModelsIndex + ": " + err.Error())
		return
	}
	m.index = idx
	m.fill()
}

// fill lists the site's models in the select.
func (m *models) fill() {
	m.pick.SetInnerHTML("") // the options
	if len(m.index) == 0 {
		m.pick.AppendChild(el("option", "", "this site hosts no trained models"))
		m.pick.Underlying().Get("options").Index(0).Set("value", "")
	}
	for _, info := range m.index {
		opt := el("option", "", fmt.Sprintf("%s: %s", info.Name, summary(info)))
		opt.SetAttribute("value", info.Name)
		m.pick.AppendChild(opt)
	}
	enable(m.pick, len(m.index) > 0)
	enable(m.openBtn, len(m.index) > 0)
	m.describe()
}

// summary says what a hosted model is, in one line.
func summary(info experiment.ModelInfo) string {
	head := info.Head + " head"
	if info.Cov != "" {
		head += " (" + info.Cov + ")"
	}
	loss := info.Loss
	if info.Lambda != 0 {
		loss += fmt.Sprintf(", λ = %g", info.Lambda)
	}
	epochs := "epochs"
	if info.Epochs == 1 {
		epochs = "epoch"
	}
	return fmt.Sprintf("%s, %s, %s, %d %s; test accuracy %.2f%%, ECE %.2f%%",
		info.Data, head, loss, info.Epochs, epochs, 100*info.TestAccuracy, 100*info.TestECE)
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

// describe says how the chosen model was trained and what opening it
// downloads.
func (m *models) describe() {
	s := "Drop a checkpoint (.safetensors, written by deeplda train or by PyTorch with the reference names) here to open it."
	if info := m.find(m.pick.Underlying().Get("value").String()); info != nil {
		s = fmt.Sprintf("Open downloads its checkpoint (%.1f MB) and evaluates it on the test images. Trained with: %s. ",
			float64(info.CheckpointBytes)/1e6, info.Command) + s
	}
	m.about.SetTextContent(s)
}

// openHosted opens the site's model name (model=name in the URL, or the
// Open button).
func (m *models) openHosted(name string) {
	defer m.a.guard()
	if !m.ready() {
		return
	}
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
		m.msg.SetTextContent(fmt.Sprintf("model=%s: this site hosts no trained model of that name (it hosts: %s)", name, have))
		return
	}
	m.pick.Underlying().Set("value", name)
	m.describe()
	m.a.setProgressText(fmt.Sprintf("Downloading the model %s…", name))
	ckpt, err := fetchBytes(modelsDir + name + "/" + experiment.CheckpointFile)
	var history []report.Epoch
	if err == nil {
		history, err = readHistory(modelsDir + name + "/" + experiment.ModelReportFile)
	}
	if err != nil {
		m.failed(name, err)
		return
	}
	m.open(name, ckpt, info, history)
}

// readHistory downloads a report.json and returns its history.
func readHistory(url string) ([]report.Epoch, error) {
	b, err := fetchBytes(url)
	if err != nil {
		return nil, err
	}
	var r struct {
		History []report.Epoch `json:"history"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return r.History, nil
}

// isCheckpoint reports whether a file's name is a checkpoint's.
func isCheckpoint(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".safetensors")
}

// openFile opens the checkpoint the user dropped or chose (a File).
func (m *models) openFile(f js.Value) {
	defer m.a.guard()
	if !m.ready() {
		return
	}
	name := f.Get("name").String()
	buf, err := await(f.Call("arrayBuffer"))
	if err != nil {
		m.failed(name, fmt.Errorf("cannot read the file: %v", err))
		return
	}
	m.open(name, jsBytes(buf), nil, nil)
}

// ready reports whether a model can be opened now (the app has started and
// nothing trains), clearing the last message.
func (m *models) ready() bool {
	if !m.a.ready || state() == "training" {
		return false
	}
	m.msg.SetTextContent("")
	return true
}

// failed shows why the model label did not open; the page stays as it
// was.
func (m *models) failed(label string, err error) {
	m.msg.SetTextContent(label + ": " + err.Error())
	m.a.setProgressText("")
}

// open evaluates the checkpoint ckpt (named label) on the test set of its
// data set (the hosted model info's, or for a dropped one, info nil, the
// one its shapes fit, preferring the form's) and shows it as a run whose
// history is history.
func (m *models) open(label string, ckpt []byte, info *experiment.ModelInfo, history []report.Epoch) {
	a := m.a
	f, err := safetensors.Decode(ckpt)
	if err != nil {
		m.failed(label, fmt.Errorf("not a safetensors checkpoint: %w", err))
		return
	}
	raw := a.form.raw()
	if info != nil {
		raw["data"] = info.Data
	} else if raw["data"], err = experiment.CheckpointData(f, raw["data"]); err != nil {
		m.failed(label, err)
		return
	}
	s, errs := config.Parse(config.Images, raw)
	if len(errs) > 0 {
		m.failed(label, fmt.Errorf("fix the settings marked in red first: %w", errs.Err()))
		return
	}
	if s.Image, err = experiment.OpenedConfig(s.Image, f); err != nil {
		m.failed(label, err)
		return
	}
	sess, err := newSession(s)
	if err != nil {
		m.failed(label, err)
		return
	}
	was := state()
	a.setTraining()
	enable(a.stopBtn, false)
	be, why := a.backends.get(s.Backend)
	sess.be = be
	a.showBackend(be, why)
	if err := m.evaluate(sess, label, ckpt, f, history); err != nil {
		sess.release()
		m.failed(label, err)
		show(a.progressBox, false)
		a.setIdle(false)
		setState(was)
		return
	}
	a.form.setRaw(s.Raw())
	a.edited()
	if info != nil {
		q := config.RawQuery(config.Images, s.Raw())
		q.Set("model", label)
		a.replaceURL(q)
	}
	a.setIdle(false)
	show(m.cont, true)
	doc.(dom.HTMLDocument).Body().SetAttribute("data-model", label)
	setState("done")
}

// evaluate builds sess's run from the checkpoint f (decoded from ckpt,
// which the page then offers for download), evaluates it on the test set
// with the progress bar and shows it.
func (m *models) evaluate(sess *session, label string, ckpt []byte, f *safetensors.File, history []report.Epoch) error {
	a := m.a
	jr := sess.runs[0]
	if err := a.newRun(sess, jr); err != nil {
		return err
	}
	img := jr.image()
	if err := img.Load(f); err != nil {
		return err
	}
	img.Report.Kind, img.Report.Status, img.Report.History = experiment.CmdEval, "opened "+label, history
	n := img.TestSet.Len()
	a.setProgress(0)
	a.setProgressText(fmt.Sprintf("Evaluating %s on %d %s test images on %s…", label, n, img.Config.Data, experiment.BackendOf(sess.be)))
	err := img.EvaluateTest(func(done, total int) {
		a.setProgress(float64(done) / float64(total))
		a.setProgressText(fmt.Sprintf("Evaluating %s: %d / %d test images", label, done, total))
		a.yield.maybe()
	})
	if err != nil {
		return err
	}
	if a.sess != nil {
		a.sess.release()
	}
	a.sess, m.sess, m.file, m.data = sess, sess, f, img.Config.Data
	jr.status = "opened: " + label
	a.view.reset(sess)
	figs := jr.t.Figures()
	if len(history) == 0 {
		for _, name := range []string{"curves.svg", "accuracy.svg", "logdet.svg"} {
			delete(figs, name)
		}
	}
	jr.figs, jr.report, jr.ckpt = figs, reportJSON(jr.t), ckpt
	a.view.update(sess)
	a.setProgressText(fmt.Sprintf("Opened %s (%s head): test accuracy %.2f%%, ECE %.2f%% on %d test images of %s. Continue training trains it on (Adam starts afresh).",
		label, img.Model.Spec.Head, 100*float64(img.Report.Test.Accuracy), 100*float64(img.Report.Test.ECE), n, img.Config.Data))
	return nil
}

// continueTraining trains the opened model on from its checkpoint with
// the form's settings (its data set and model stay): a new run, with its
// own history, and Adam from zero.
func (m *models) continueTraining() {
	a := m.a
	if m.sess == nil || a.sess != m.sess || state() == "training" {
		return
	}
	raw := a.form.raw()
	raw["data"] = m.data
	s, errs := config.Parse(config.Images, raw)
	if len(errs) > 0 {
		a.form.showErrors(config.Images, errs)
		return
	}
	c, err := experiment.OpenedConfig(s.Image, m.file)
	if err != nil {
		m.msg.SetTextContent(err.Error())
		return
	}
	s.Image = c
	sess, err := newSession(s)
	if err != nil {
		m.msg.SetTextContent(err.Error())
		return
	}
	f := m.file
	m.forget()
	a.sess.release()
	a.sess = sess
	a.view.reset(sess)
	a.setTraining()
	go func() {
		defer a.guard()
		sess.be, _ = a.backends.get(s.Backend)
		jr := sess.runs[0]
		err := a.newRun(sess, jr)
		if err == nil {
			err = jr.image().Load(f)
		}
		if err != nil {
			a.failed(sess, err)
			return
		}
		a.train(sess)
	}()
}

// forget hides Continue training: the opened model is no longer shown, or
// trains on.
func (m *models) forget() {
	m.sess, m.file = nil, nil
	show(m.cont, false)
	doc.(dom.HTMLDocument).Body().RemoveAttribute("data-model")
}
