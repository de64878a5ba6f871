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
	// hosted names the opened model when the site hosts it: model= stays
	// in the URL while it is shown, so that the address reopens it.
	hosted string

	pick, openBtn, bothBtn, cont dom.HTMLElement
	about, msg                   dom.HTMLElement
}

// newModels adds the trained-model panel to the data box.
func newModels(a *app) *models {
	m := &models{a: a, pick: el("select", "", ""), openBtn: el("button", "", "Open"), bothBtn: el("button", "", "Open both heads"),
		cont: el("button", "", "Continue training"), about: el("p", "data-status", ""), msg: el("p", "field-error", "")}
	box := el("div", "model-box", "")
	box.SetID("model-box")
	label := el("label", "", "Trained model")
	label.SetAttribute("for", "f-model")
	m.pick.SetID("f-model")
	m.pick.Style().SetProperty("max-width", "100%", "")
	m.pick.SetAttribute("aria-describedby", "e-model")
	m.openBtn.SetID("open-model")
	m.bothBtn.SetID("open-both")
	m.bothBtn.SetAttribute("title", "open this model and the site's model of the other head on the same data set, side by side")
	m.cont.SetID("continue-model")
	m.about.SetID("model-status")
	m.about.SetAttribute("role", "status")
	m.msg.SetID("e-model")
	m.msg.SetAttribute("role", "alert")
	for _, b := range []dom.HTMLElement{m.openBtn, m.bothBtn, m.cont} {
		b.SetAttribute("type", "button")
	}
	m.cont.SetAttribute("title", "train on from this model's weights and BatchNorm statistics for the epochs above; Adam's moments start afresh")
	show(m.cont, false)
	row := el("div", "buttons", "")
	row.AppendChild(m.pick)
	row.AppendChild(m.openBtn)
	row.AppendChild(m.bothBtn)
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
	a.on(m.bothBtn, "click", func(dom.Event) {
		if name := m.pick.Underlying().Get("value").String(); name != "" && state() != "training" {
			// Side by side is what reopens both from the URL.
			a.form.value("compare").Set("checked", true)
			a.form.lock(false)
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
		opt := el("option", "", fmt.Sprintf("%s: %s", info.Name, summary(&info)))
		opt.SetAttribute("value", info.Name)
		m.pick.AppendChild(opt)
	}
	enable(m.pick, len(m.index) > 0)
	enable(m.openBtn, len(m.index) > 0)
	m.describe()
}

// summary says what a hosted model is, in one line.
func summary(info *experiment.ModelInfo) string {
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
	return fmt.Sprintf("%s, %s, %s, %d %s; test accuracy %.2f%%, ECE %.2f%%%s",
		info.Data, head, loss, info.Epochs, epochs, 100*info.TestAccuracy, 100*info.TestECE, trainedBN(info))
}

// trainedBN says, for a checkpoint with recalibrated BatchNorm statistics,
// what its report gives with the statistics as trained.
func trainedBN(info *experiment.ModelInfo) string {
	if info == nil || info.Trained == nil {
		return ""
	}
	return fmt.Sprintf(" (BatchNorm recalibrated; with the statistics as trained %.2f%%, ECE %.2f%%)", 100*info.Trained.Accuracy, 100*info.Trained.ECE)
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
		open := fmt.Sprintf("Open downloads its checkpoint (%.1f MB) and evaluates it on the test images. Trained with: %s. ",
			float64(info.CheckpointBytes)/1e6, info.Command)
		other := m.counterpart(info)
		if other != nil {
			open += fmt.Sprintf("Open both heads (or Open with Side by side checked) also opens %s (%s head) beside it. ", other.Name, other.Head)
		}
		enable(m.bothBtn, other != nil)
		s = open + s
	} else {
		enable(m.bothBtn, false)
	}
	m.about.SetTextContent(s)
}

// openHosted opens the site's model name (model=name in the URL, or the
// Open button). With compare on in the form, it opens the site's model of
// the other head on the same data set beside it, when there is one.
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
	infos := []*experiment.ModelInfo{info}
	if m.a.form.raw()["compare"] == "1" {
		if other := m.counterpart(info); other != nil {
			infos = append(infos, other)
		}
	}
	var cps []checkpoint
	for _, info := range infos {
		m.a.setProgressText(fmt.Sprintf("Downloading the model %s…", info.Name))
		b, err := fetchBytes(modelsDir + info.Name + "/" + experiment.CheckpointFile)
		var history []report.Epoch
		if err == nil {
			history, err = readHistory(modelsDir + info.Name + "/" + experiment.ModelReportFile)
		}
		if err != nil {
			m.failed(info.Name, err)
			return
		}
		cps = append(cps, checkpoint{label: info.Name, bytes: b, info: info, history: history})
	}
	m.open(name, cps...)
}

// counterpart returns the site's first model (by name) of the same data set
// as info with the other kind of head (LDA for softmax, softmax for LDA),
// or nil.
func (m *models) counterpart(info *experiment.ModelInfo) *experiment.ModelInfo {
	for i := range m.index {
		o := &m.index[i]
		if o.Data == info.Data && (o.Head == experiment.CompareHeads[0]) != (info.Head == experiment.CompareHeads[0]) {
			return o
		}
	}
	return nil
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
	m.open("", checkpoint{label: name, bytes: jsBytes(buf)})
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

// checkpoint is a trained model to open: its label, its bytes (which the
// page then offers for download), the site's information on it (nil for a
// dropped file) and the history of its report.
type checkpoint struct {
	label   string
	bytes   []byte
	file    *safetensors.File
	info    *experiment.ModelInfo
	history []report.Epoch
}

// open evaluates the checkpoints cps on the test set of their data set
// (the hosted model's, or for a dropped one the one its shapes fit,
// preferring the form's) and shows them: one as a run whose history is
// its report's; two (an LDA head and a softmax head of one data set) side
// by side, as compare=1 shows two heads that trained. hosted names the
// site's model that model= keeps in the URL ("" for a dropped file).
func (m *models) open(hosted string, cps ...checkpoint) {
	a := m.a
	for i := range cps {
		f, err := safetensors.Decode(cps[i].bytes)
		if err != nil {
			m.failed(cps[i].label, fmt.Errorf("not a safetensors checkpoint: %w", err))
			return
		}
		cps[i].file = f
	}
	first := cps[0]
	raw := a.form.raw()
	var err error
	if first.info != nil {
		raw["data"] = first.info.Data
	} else if raw["data"], err = experiment.CheckpointData(first.file, raw["data"]); err != nil {
		m.failed(first.label, err)
		return
	}
	raw["compare"] = "0"
	if len(cps) == 2 {
		raw["compare"] = "1"
	}
	s, errs := config.Parse(config.Images, raw)
	if len(errs) > 0 {
		m.failed(first.label, fmt.Errorf("fix the settings marked in red first: %w", errs.Err()))
		return
	}
	if s.Image, err = experiment.OpenedConfig(s.Image, first.file); err != nil {
		m.failed(first.label, err)
		return
	}
	sess, err := newSession(s)
	if err != nil {
		m.failed(first.label, err)
		return
	}
	byRun := cps
	if len(cps) == 2 {
		// A comparison's runs are in experiment.CompareHeads' order; each
		// takes the checkpoint of its head.
		if s.Image.Head != sess.runs[0].job.Image.Head {
			byRun = []checkpoint{cps[1], cps[0]}
		}
		for i, cp := range byRun {
			jr := sess.runs[i]
			c, err := experiment.OpenedConfig(*jr.job.Image, cp.file)
			if err == nil && c.Head != jr.job.Image.Head {
				err = fmt.Errorf("side by side needs an LDA head and a softmax head; %s and %s both have a %s head", cps[0].label, cps[1].label, c.Head)
			}
			if err != nil {
				m.failed(cp.label, err)
				return
			}
			jr.job.Image, jr.job.Label = &c, config.ImageLabel(c)
		}
		// The form shows the LDA head's settings (covariance, lambda), as
		// for two heads that train side by side.
		s.Image = *sess.runs[0].job.Image
	}
	was := state()
	a.setTraining()
	enable(a.stopBtn, false)
	be, why := a.backends.get(s.Backend)
	sess.be = be
	a.showBackend(be, why)
	if label, err := m.evaluate(sess, byRun); err != nil {
		sess.release()
		m.failed(label, err)
		show(a.progressBox, false)
		a.setIdle(false)
		setState(was)
		return
	}
	m.hosted = hosted
	m.sess, m.file, m.data = nil, nil, ""
	if len(cps) == 1 {
		// Continue training trains one opened model on.
		m.sess, m.file, m.data = sess, first.file, s.Image.Data
	}
	a.form.setRaw(s.Raw())
	a.edited()
	a.setIdle(false)
	show(m.cont, len(cps) == 1)
	label := first.label
	for _, cp := range cps[1:] {
		label += "," + cp.label
	}
	doc.(dom.HTMLDocument).Body().SetAttribute("data-model", label)
	setState("done")
}

// evaluate builds each run of sess from its checkpoint (cps, in the runs'
// order), evaluates it on the test set (and scores the hosted
// out-of-distribution set, when there is one) with the progress bar, and
// shows sess. On failure it returns the label of the checkpoint that
// failed, with the error.
func (m *models) evaluate(sess *session, cps []checkpoint) (string, error) {
	a := m.a
	var done []string
	for i, cp := range cps {
		jr := sess.runs[i]
		if err := a.newRun(sess, jr); err != nil {
			return cp.label, err
		}
		img := jr.image()
		if err := img.Load(cp.file); err != nil {
			return cp.label, err
		}
		img.Report.Kind, img.Report.Status, img.Report.History = experiment.CmdEval, "opened "+cp.label, cp.history
		n := img.TestSet.Len()
		a.setProgress(0)
		a.setProgressText(fmt.Sprintf("Evaluating %s on %d %s test images on %s…", cp.label, n, img.Config.Data, experiment.BackendOf(sess.be)))
		err := img.EvaluateTest(func(p experiment.Phase) {
			a.setProgress(float64(p.Done) / float64(p.Total))
			a.setProgressText(fmt.Sprintf("%s: %s, %d / %d images", cp.label, p.Name, p.Done, p.Total))
			a.yield.maybe()
		})
		if err != nil {
			return cp.label, err
		}
		jr.status, jr.opened = "opened: "+cp.label, true
		figs := jr.t.Figures()
		if len(cp.history) == 0 {
			for _, name := range []string{"curves.svg", "accuracy.svg", "logdet.svg"} {
				delete(figs, name)
			}
		}
		jr.figs, jr.report, jr.ckpt = figs, reportJSON(jr.t), cp.bytes
		done = append(done, fmt.Sprintf("%s (%s head): test accuracy %.2f%%, ECE %.2f%% on %d test images of %s%s",
			cp.label, img.Model.Spec.Head, 100*float64(img.Report.Test.Accuracy), 100*float64(img.Report.Test.ECE), n, img.Config.Data, trainedBN(cp.info)))
	}
	if a.sess != nil {
		a.sess.release()
	}
	a.sess = sess
	a.view.reset(sess)
	a.view.update(sess)
	if len(cps) == 1 {
		a.setProgressText("Opened " + done[0] + ". Continue training trains it on (Adam starts afresh).")
	} else {
		a.setProgressText("Opened side by side: " + strings.Join(done, "; ") + ".")
	}
	return "", nil
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
	m.sess, m.file, m.hosted = nil, nil, ""
	show(m.cont, false)
	doc.(dom.HTMLDocument).Body().RemoveAttribute("data-model")
}
