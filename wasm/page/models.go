package page

import (
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// ModelBoxHTML is the images demo's trained-model panel, which the page
// adds to the data box: the select of the site's models (#f-model), Open
// (#open-model), Open both heads (#open-both), Continue training
// (#continue-model, hidden until a model that can train on is shown), how
// the chosen model was trained (#model-status, folded, so that Train stays
// near the top of the form) and the panel's message (#e-model).
const ModelBoxHTML = `<div class="model-box" id="model-box"><label for="f-model">Trained model</label><div class="buttons">` +
	`<select id="f-model" style="max-width: 100%;" aria-describedby="e-model"></select>` +
	`<button type="button" id="open-model">Open</button>` +
	`<button type="button" id="open-both" title="open this model and the site's model of the other head on the same data set, side by side">Open both heads</button>` +
	`<button type="button" id="continue-model" title="train on from this model's weights and BatchNorm statistics for the epochs above; Adam's moments start afresh" hidden>Continue training</button>` +
	`</div><details class="help"><summary>How it was trained</summary><p class="data-status" id="model-status" role="status"></p></details>` +
	`<p class="field-error" id="e-model" role="alert"></p></div>`

// ModelOptionsHTML returns the options of the trained-model select: each
// model of index by its name (the value) and summary (ModelSummary), or
// one option of no value that says the site hosts none.
func ModelOptionsHTML(index []experiment.ModelInfo) string {
	if len(index) == 0 {
		return `<option value="">this site hosts no trained models</option>`
	}
	var b strings.Builder
	for i := range index {
		name := escaper.Replace(index[i].Name)
		b.WriteString(`<option value="` + name + `">` + name + ": " + escaper.Replace(ModelSummary(&index[i])) + "</option>")
	}
	return b.String()
}

// Models is the state of the trained-model panel: the site's models, the
// session of models being opened and the opened model shown.
type Models struct {
	Index []experiment.ModelInfo // the site's models; nil: none
	// Shown is the opened model's session while it is shown and can train
	// on (Continue training), with its data set Data.
	Shown *Session
	Data  string
	// Hosted names the opened model when the site hosts it: model= stays
	// in the URL while it is shown, so that the address reopens it.
	Hosted string
	// opening is the session of models being opened, with the session and
	// the state the page had before (restored when opening fails).
	opening, prev *Session
	prevState     string
}

// OpenHosted returns what opening the site's model name asks the engine for:
// with compare, the site's model of the other head on the same data set
// beside it, when there is one; data is the models' data set. It returns
// the message to show instead when the site hosts no such model.
func (m *Models) OpenHosted(name string, compare bool) (o *protocol.Open, data, msg string) {
	info := FindModel(m.Index, name)
	if info == nil {
		return nil, "", UnknownModel(m.Index, name)
	}
	o = &protocol.Open{Hosted: []string{name}}
	if other := Counterpart(m.Index, info); compare && other != nil {
		o.Hosted = append(o.Hosted, other.Name)
	}
	return o, info.Data, ""
}

// OpenSettings returns the settings that open the models of o on data set
// data ("": the form's, raw), planned as the form plans its runs: one, or
// both heads side by side.
func OpenSettings(raw config.Raw, data string, o *protocol.Open) (config.Settings, config.Errors) {
	if data != "" {
		raw["data"] = data
	}
	raw["compare"] = "0"
	if len(o.Hosted) == 2 {
		raw["compare"] = "1"
	}
	return config.Parse(config.Images, raw)
}

// Begin records that session s opens models, where the page showed
// session prev in state.
func (m *Models) Begin(s, prev *Session, state string) {
	m.opening, m.prev, m.prevState = s, prev, state
}

// Opening returns the session of models being opened, or nil.
func (m *Models) Opening() *Session { return m.opening }

// Fail ends the opening that failed: ok when one was under way, with the
// session and state the page goes back to.
func (m *Models) Fail() (prev *Session, state string, ok bool) {
	if m.opening == nil {
		return nil, "", false
	}
	prev, state = m.prev, m.prevState
	m.opening, m.prev = nil, nil
	return prev, state, true
}

// Opened takes the opened models op of session s, unless s is not the one
// being opened (false): a model that can train on becomes Shown.
func (m *Models) Opened(s *Session, op *protocol.Opened) bool {
	if m.opening != s {
		return false
	}
	m.opening, m.prev = nil, nil
	m.Hosted, m.Shown, m.Data = op.Hosted, nil, ""
	if op.Continuable {
		m.Shown, m.Data = s, s.Settings.Image.Data
	}
	return true
}

// Continue returns the settings that train the opened model on when
// session shown is it (ok): the form's raw settings on the model's data
// set, one run.
func (m *Models) Continue(shown *Session, raw config.Raw) (s config.Settings, errs config.Errors, ok bool) {
	if m.Shown == nil || shown != m.Shown {
		return s, nil, false
	}
	raw["data"] = m.Data
	s, errs = config.Parse(config.Images, raw)
	s.Compare = false
	return s, errs, true
}

// Forget records that the opened model is no longer shown, or trains on.
func (m *Models) Forget() { m.Shown, m.Hosted = nil, "" }

// SetIndex lists index, the trained models the site hosts, in the select
// (#f-model), which is off without any (and Open with it).
func (m *Models) SetIndex(d Doc, index []experiment.ModelInfo) {
	m.Index = index
	d.SetHTML("#f-model", ModelOptionsHTML(index))
	Enable(d, "#f-model", len(index) > 0)
	Enable(d, "#open-model", len(index) > 0)
	m.Describe(d)
}

// Describe says how the model the select shows was trained and what
// opening it downloads (#model-status); Open both heads is on where the
// site hosts its counterpart.
func (m *Models) Describe(d Doc) {
	info := FindModel(m.Index, d.Value("#f-model"))
	Enable(d, "#open-both", info != nil && Counterpart(m.Index, info) != nil)
	d.SetText("#model-status", ModelAbout(m.Index, info))
}
