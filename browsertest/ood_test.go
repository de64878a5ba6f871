package browsertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// siteWith returns the URL of the site with the data sets sets in
// site/data: the built site when it hosts them all (build.sh copies them
// from $DEEPLDA_DATA or ../shared/datasets), else the built site with the
// data served beside it from one of those folders. It skips the test when
// neither has the data.
func siteWith(t *testing.T, sets ...string) string {
	t.Helper()
	files := []string{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}
	built := !slices.ContainsFunc(sets, func(s string) bool {
		_, err := os.Stat(filepath.Join(siteDir, "site", "data", s, files[0]))
		return err != nil
	})
	if built {
		return baseURL
	}
	src := os.Getenv("DEEPLDA_DATA")
	if src == "" {
		src = filepath.Join("..", "..", "shared", "datasets")
	}
	index := map[string][]string{}
	mux := http.NewServeMux()
	for _, s := range sets {
		dir := filepath.Join(src, s)
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Skipf("SKIPPED: no %s in the built site or in %s (%v)", s, dir, err)
			}
		}
		index[s] = files
		mux.Handle(prefix+"site/data/"+s+"/", http.StripPrefix(prefix+"site/data/"+s+"/", http.FileServer(http.Dir(dir))))
	}
	body, _ := json.Marshal(index)
	mux.HandleFunc(prefix+"site/data/index.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.Handle("/", NewHandler(siteDir, prefix))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + prefix
}

// densityShown reports whether the shown embedding figure is shaded by the
// log density, with its legend.
func (b *browser) densityShown() bool {
	return eval[bool](b, `(() => { const c = document.querySelector('.card[data-name="embedding.svg"]:not([hidden]) svg');
		return !!c && !!c.querySelector('g.density image') && c.textContent.includes('log density'); })()`)
}

// TestDensityToggle trains the Deep LDA demo briefly: the density
// checkbox is on by default and the embedding is shaded by the head's log
// density while training and at the end; with density=0 it is not.
func TestDensityToggle(t *testing.T) {
	b := newBrowser(t, options{})
	b.open("?demo=deep&backend=cpu&epochs=40&train=2000&test=500&autostart=1")
	if !eval[bool](b, `document.getElementById('f-density').checked`) {
		t.Error("the density checkbox is off by default in demo 2")
	}
	b.waitFor(`document.body.dataset.state !== 'training' || !!document.querySelector('.card[data-name="embedding.svg"]:not([hidden]) svg g.density')`, 2*time.Minute)
	live := b.state() == "training"
	b.waitFinished("done", 5*time.Minute)
	if !live {
		t.Log("the run ended before the first live figure was seen")
	}
	if !b.densityShown() {
		t.Error("the embedding is not shaded by the log density")
	}
	b.open("?demo=deep&backend=cpu&epochs=2&train=1000&test=300&density=0&autostart=1")
	b.waitFinished("done", 5*time.Minute)
	if eval[bool](b, `document.getElementById('f-density').checked`) {
		t.Error("density=0: the checkbox is on")
	}
	if b.densityShown() {
		t.Error("density=0: the embedding is shaded")
	}
	b.checkClean()
}

// TestImagesOOD trains a tiny ConvNet on Fashion-MNIST on a site that also
// hosts MNIST: the report has the out-of-distribution scores of 64 test
// images of each, and the page shows their two figures.
func TestImagesOOD(t *testing.T) {
	site := siteWith(t, "fashion-mnist", "mnist")
	b := newBrowser(t, options{})
	b.openURL(site + "?demo=images&data=fashion-mnist&backend=cpu&limit-train=128&limit-test=64&epochs=1&batch=64&autostart=1")
	b.waitFinished("done", 8*time.Minute)
	r := b.oodReport()
	if o := r.OOD; o == nil || o.Dataset != "mnist" || o.NIn != 64 || o.NOut != 64 || o.MaxSoftmax == nil || o.Density == nil {
		t.Fatalf("report's ood: %+v", o)
	}
	t.Logf("AUROC: max_softmax %.3f, density %.3f", r.OOD.MaxSoftmax.AUROC, r.OOD.Density.AUROC)
	b.checkOODFigures()
	b.checkClean()
}

// oodReport is the "ood" part of the page's report.json.
type oodReport struct {
	OOD *struct {
		Dataset    string `json:"dataset"`
		NIn        int    `json:"n_in"`
		NOut       int    `json:"n_out"`
		MaxSoftmax *struct {
			AUROC float64 `json:"auroc"`
		} `json:"max_softmax"`
		Density *struct {
			AUROC float64 `json:"auroc"`
		} `json:"density"`
	} `json:"ood"`
}

// oodReport reads the "ood" part of the report the page shows.
func (b *browser) oodReport() oodReport {
	b.t.Helper()
	var r oodReport
	raw := eval[string](b, `document.getElementById('report').textContent`)
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		b.t.Fatalf("#report: %v", err)
	}
	return r
}

// checkOODFigures checks that the page shows both out-of-distribution
// figures, drawn.
func (b *browser) checkOODFigures() {
	b.t.Helper()
	for _, name := range []string{"ood_scores.svg", "ood_roc.svg"} {
		if n := eval[int](b, `document.querySelectorAll('.card[data-name="`+name+`"]:not([hidden]) svg path').length`); n < 3 {
			b.t.Errorf("%s: %d paths shown", name, n)
		}
	}
}
