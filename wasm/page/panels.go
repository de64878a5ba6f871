package page

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
	"github.com/deeplda/deeplda/wasm/config"
)

// DataText says where the data set name (the form's) comes from, as the
// engine's data sets stand (st), and what the data panel's data-hosted
// says ("" until the site's index was read).
func DataText(st *protocol.DataState, name string) (text, hosted string) {
	names := slices.Sorted(maps.Keys(st.Hosted))
	switch {
	case st.Busy:
		text = "Reading the files…"
	case st.Loading != "":
		text = fmt.Sprintf("Downloading %s from this site (%s)…", st.Loading, st.Hosted[st.Loading])
	case !st.Probed && st.Picked == "":
		text = "Looking for the data sets this site hosts…"
	case st.Picked != "" && st.Picked == name:
		text = "Using your files: " + st.From + "."
	case st.Hosted[name] != "" && slices.Contains(st.Loaded, name):
		text = fmt.Sprintf("Using %s as hosted by this site (loaded).", name)
	case st.Hosted[name] != "":
		text = fmt.Sprintf("This site hosts %s: Train downloads it (%s) once.", name, st.Hosted[name])
	case len(names) > 0:
		text = fmt.Sprintf("This site hosts only %s, not %s: choose its files below, or drop them here.", strings.Join(names, " and "), name)
	default:
		text = "This site hosts no image data: choose the data set's files below, or drop them here (nothing leaves this page)."
	}
	if st.Picked != "" && st.Picked != name {
		text += fmt.Sprintf(" (Your files hold %s.)", st.Picked)
	}
	if st.Probed {
		hosted = fmt.Sprint(len(names) > 0)
	}
	return text, hosted
}

// ModelSummary says what a hosted model is, in one line.
func ModelSummary(info *experiment.ModelInfo) string {
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

// FindModel returns the model name of index, or nil.
func FindModel(index []experiment.ModelInfo, name string) *experiment.ModelInfo {
	for i := range index {
		if index[i].Name == name {
			return &index[i]
		}
	}
	return nil
}

// Counterpart returns the first model of index (by name) of the same data
// set as info with the other kind of head (LDA for softmax, softmax for
// LDA), or nil.
func Counterpart(index []experiment.ModelInfo, info *experiment.ModelInfo) *experiment.ModelInfo {
	for i := range index {
		o := &index[i]
		if o.Data == info.Data && (o.Head == experiment.CompareHeads[0]) != (info.Head == experiment.CompareHeads[0]) {
			return o
		}
	}
	return nil
}

// ModelAbout says how the chosen model (nil: none) was trained and what
// opening it downloads.
func ModelAbout(index []experiment.ModelInfo, info *experiment.ModelInfo) string {
	s := "Drop a checkpoint (.safetensors, written by deeplda train or by PyTorch with the reference names) here to open it."
	if info == nil {
		return s
	}
	open := fmt.Sprintf("Open downloads its checkpoint (%.1f MB) and evaluates it on the test images. Trained with: %s. ",
		float64(info.CheckpointBytes)/1e6, info.Command)
	if other := Counterpart(index, info); other != nil {
		open += fmt.Sprintf("Open both heads (or Open with Side by side checked) also opens %s (%s head) beside it. ", other.Name, other.Head)
	}
	return open + s
}

// UnknownModel says that the site hosts no model name.
func UnknownModel(index []experiment.ModelInfo, name string) string {
	var names []string
	for _, i := range index {
		names = append(names, i.Name)
	}
	have := "none"
	if len(names) > 0 {
		have = strings.Join(names, ", ")
	}
	return fmt.Sprintf("model=%s: this site hosts no trained model of that name (it hosts: %s)", name, have)
}

// Opened takes the opened models of the session: their configurations
// become the runs' (and the form's settings, with the form's held-out
// images); it returns the line under the bar.
func (s *Session) Opened(op *protocol.Opened) string {
	var lines []string
	for i, c := range op.Configs {
		if i >= len(s.Jobs) {
			break
		}
		c := c
		s.Jobs[i].Image, s.Jobs[i].Label = &c, config.ImageLabel(c)
		s.Runs[i].Label = s.Jobs[i].Label
		om := op.Models[i]
		lines = append(lines, fmt.Sprintf("%s (%s head): test accuracy %.2f%%, ECE %.2f%% on %d test images of %s%s",
			om.Label, om.Head, 100*om.Accuracy, 100*om.ECE, om.Images, om.Data, trainedBN(om.Info)))
	}
	c := op.Configs[0]
	c.Val = s.Settings.Image.Val
	s.Settings.Image = c
	s.Settings.Compare = len(op.Configs) == 2
	if len(lines) == 1 {
		return "Opened " + lines[0] + ". Continue training trains it on (Adam starts afresh)."
	}
	return "Opened side by side: " + strings.Join(lines, "; ") + "."
}

// Data is the images demo's data panel: where the engine's data sets
// stand.
type Data struct{ protocol.DataState }

// Update takes where the engine's data sets stand now, st, where the form
// names the data set form: it returns the panel's new message ("": it
// stays) and, when the user's files turned out to hold another data set
// than the form's, that data set, which the form follows ("": none).
func (d *Data) Update(st *protocol.DataState, form string) (msg, pick string) {
	was := d.DataState
	d.DataState = *st
	if st.Error != "" && st.Error != was.Error {
		msg = st.Error
	}
	if st.Picked != "" && (st.Picked != was.Picked || st.From != was.From) && form != st.Picked {
		pick = st.Picked
	}
	return msg, pick
}

// Describe writes the panel's line on where data set name comes from
// (DataText) into #data-status, and what the site hosts into
// #data-box's data-hosted once the engine has probed it.
func (d *Data) Describe(doc Doc, name string) {
	text, hosted := DataText(&d.DataState, name)
	doc.SetText("#data-status", text)
	if hosted != "" {
		doc.SetAttr("#data-box", "data-hosted", hosted)
	}
}

// IsCheckpoint reports whether a file's name is a checkpoint's.
func IsCheckpoint(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".safetensors")
}
