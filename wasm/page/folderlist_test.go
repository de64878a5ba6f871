package page

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/protocol"
)

func TestFolderList(t *testing.T) {
	l := &FolderList{}
	if err := l.Set([]byte("{")); err == nil {
		t.Error("a broken index.json was read")
	}
	index := `[{"name":"a","path":"runs/a/","label":"A","status":"done","report":true},{"name":"b","path":"runs/b/","label":"B","status":"done","report":true},{"name":"c","path":"runs/c/","label":"C","status":"stopped","report":true,"resumable":true}]`
	if err := l.Set([]byte(index)); err != nil {
		t.Fatal(err)
	}
	html, changed := l.HTML()
	if !changed || !strings.Contains(html, `data-resume="c"`) {
		t.Errorf("first HTML: changed %v\n%s", changed, html)
	}
	if _, changed := l.HTML(); changed {
		t.Error("the same list changed")
	}
	l.Tick("b", true)
	if l.CanCompare() {
		t.Error("one run compares")
	}
	l.Tick("a", true)
	l.Tick("c", true)
	l.Tick("c", false)
	if !l.CanCompare() || !reflect.DeepEqual(l.Picked, []string{"b", "a"}) {
		t.Errorf("picked %v", l.Picked)
	}
	if html, changed := l.HTML(); !changed || !strings.Contains(html, `data-pick="a" title="pick for the side-by-side view" checked`) {
		t.Errorf("ticked runs unchanged or unticked:\n%s", html)
	}
	if runs := l.Runs([]string{"b", "x", "a"}); len(runs) != 2 || runs[0].Name != "b" || runs[1].Name != "a" {
		t.Errorf("Runs = %v", runs)
	}
	if err := l.Set([]byte(`[{"name":"a","path":"runs/a/"}]`)); err != nil || !reflect.DeepEqual(l.Picked, []string{"a"}) || l.CanCompare() {
		t.Errorf("after b left: %v %v", err, l.Picked)
	}
	for i := range 5 {
		l.Tick(string(rune('p'+i)), true)
	}
	if l.CanCompare() {
		t.Errorf("%d runs compare", len(l.Picked))
	}
}

func TestReadFolders(t *testing.T) {
	files := map[string]string{"runs/a/report.json": "{}", "runs/a/curves.svg": "<svg/>"}
	var asked []string
	fetch := func(p string) ([]byte, error) {
		asked = append(asked, p)
		if f, ok := files[p]; ok {
			return []byte(f), nil
		}
		return nil, errors.New("HTTP 404")
	}
	runs := []protocol.RunFolder{{Name: "a", Path: "runs/a/", Figures: []string{"curves.svg"}}}
	read, err := ReadFolders(runs, fetch)
	if err != nil || len(read) != 1 || string(read[0].ReportJSON) != "{}" || read[0].Figs["curves.svg"] != "<svg/>" {
		t.Errorf("ReadFolders = %+v, %v", read, err)
	}
	runs = append(runs, protocol.RunFolder{Name: "b", Path: "runs/b/"})
	if _, err := ReadFolders(runs, fetch); err == nil || err.Error() != "run b: HTTP 404" {
		t.Errorf("a missing report: %v", err)
	}
	if len(asked) != 5 {
		t.Errorf("asked for %v", asked)
	}
}

func TestResumeStart(t *testing.T) {
	st := ResumeStart("run-1")
	if len(st.Jobs) != 1 || st.Jobs[0].Resume != "run-1" || !st.Density {
		t.Errorf("ResumeStart = %+v", st)
	}
}
