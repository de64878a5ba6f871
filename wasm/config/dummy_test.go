package config

import (
	"slices"
	"testing"

	"github.com/deeplda/deeplda/experiment"
)

// TestDummySetting adds a setting to experiment.Settings as one row, bound
// in the image run's configuration, and finds it as a field of the images
// demo's form with the row's Doc as its hint, in the URL query of the
// form's text and read back from it, and under its field for a value out
// of its bounds. (The row's variable is the test's own, one for every
// configuration: the defaults the query leaves out are read from it.)
func TestDummySetting(t *testing.T) {
	dummy := 3
	defer func(s []experiment.Setting, f []Field) { experiment.Settings, Fields = s, f }(experiment.Settings, Fields)
	experiment.Settings = append(slices.Clip(experiment.Settings), experiment.Setting{
		Name: "dummy-setting", Kind: experiment.KindInt, Min: 1, Max: 9, Doc: "a setting that TestDummySetting adds",
		Var: func(c any) any {
			if _, ok := c.(*experiment.ImageConfig); ok {
				return &dummy
			}
			return nil
		},
	})
	Fields = pageFields()

	i := slices.IndexFunc(Fields, func(f Field) bool { return f.Name == "dummy-setting" })
	if i < 0 {
		t.Fatal("no field for the setting")
	}
	if f := Fields[i]; !f.Shown(Images) || f.Shown(Deep) || f.Control != Number || f.Help != "a setting that TestDummySetting adds" || f.Label == "" {
		t.Errorf("field %+v", f)
	}

	raw := Defaults(Images).Raw()
	raw["dummy-setting"] = "5"
	q := RawQuery(Images, raw)
	if q.Get("dummy-setting") != "5" {
		t.Errorf("the form's query %v lacks dummy-setting=5", q)
	}
	if _, _, errs := FromQuery(q); len(errs) > 0 || dummy != 5 {
		t.Errorf("from %v: the setting is %d, errors %v", q, dummy, errs)
	}

	q.Set("dummy-setting", "10")
	if _, _, errs := FromQuery(q); errs["dummy-setting"] != "dummy-setting must be at most 9, got 10" {
		t.Errorf("dummy-setting=10: errors %v", errs)
	}
}
