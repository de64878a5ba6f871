package server

import (
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/protocol"
)

// runsIndex is the runs folder's list, which GET /runs/index.json serves,
// newest first.
func (s *Server) runsIndex(w http.ResponseWriter, _ *http.Request) {
	list, err := s.host.listRuns(s.engine.Training())
	if err != nil {
		http.Error(w, "deeplda ui: reading the runs folder: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(list)
}

// listRuns returns the runs of the runs folder, newest first; training
// says whether the engine trains (the last session's runs that are not
// done then train, or wait their turn).
func (h *host) listRuns(training bool) ([]protocol.RunFolder, error) {
	entries, err := fs.ReadDir(h.runs.FS(), ".")
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	current := map[string]bool{}
	if training {
		for k, d := range h.dirs {
			current[d] = current[d] || k[0] == h.current
		}
	}
	failures := maps.Clone(h.failures)
	h.mu.Unlock()
	list := []protocol.RunFolder{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r := h.runFolder(e.Name(), current[e.Name()])
		if err := failures[e.Name()]; err != "" && r.Status != "done" && r.Status != "training" {
			r.Status = "failed: " + err
		}
		list = append(list, r)
	}
	slices.Reverse(list) // the names start with the time
	return list, nil
}

// dateLayout is how the list writes a run's date.
const dateLayout = "2006-01-02 15:04"

// runFolder describes the run folder name from its files; current: the
// run is of the session that trains.
func (h *host) runFolder(name string, current bool) protocol.RunFolder {
	r := protocol.RunFolder{Name: name, Path: "runs/" + url.PathEscape(name) + "/", Label: runLabel(name), Status: "unfinished"}
	if len(name) >= len(stampLayout) {
		if t, err := time.ParseInLocation(stampLayout, name[:len(stampLayout)], time.Local); err == nil {
			r.Date = t.Format(dateLayout)
		}
	}
	files, _ := fs.ReadDir(h.runs.FS(), name)
	for _, f := range files {
		switch n := f.Name(); {
		case path.Ext(n) == ".svg" && !unsafeName.MatchString(n):
			r.Figures = append(r.Figures, n)
		case n == experiment.ResumeFile:
			r.Resumable = true
		}
	}
	if b, err := h.runs.ReadFile(path.Join(name, "report.json")); err == nil {
		var rep struct {
			Kind      string                     `json:"kind"`
			Timestamp string                     `json:"timestamp"`
			Status    string                     `json:"status"`
			History   []any                      `json:"history"`
			Config    map[string]json.RawMessage `json:"config"`
			Test      struct {
				Accuracy float64 `json:"accuracy"`
				ECE      float64 `json:"ece"`
			} `json:"test"`
		}
		if json.Unmarshal(b, &rep) == nil {
			r.Kind, r.Status, r.Trained = rep.Kind, rep.Status, len(rep.History)
			r.TestAccuracy, r.TestECE, r.Report = rep.Test.Accuracy, rep.Test.ECE, true
			r.Settings = map[string]string{}
			for k, v := range rep.Config {
				var s string
				if json.Unmarshal(v, &s) != nil {
					s = string(v) // a number or a boolean
				}
				r.Settings[k] = s
			}
			json.Unmarshal(rep.Config["epochs"], &r.Epochs)
			if t, err := time.Parse(time.RFC3339, rep.Timestamp); err == nil {
				r.Date = t.Local().Format(dateLayout)
			}
		}
	}
	training := current && r.Status != "done"
	if training {
		r.Status = "training"
	}
	r.Resumable = r.Resumable && r.Status != "done" && !training
	return r
}
