package page

import (
	"strings"
	"testing"

	"github.com/deeplda/deeplda/wasm/config"
)

func TestFormHTML(t *testing.T) {
	basic, advanced := FormHTML()
	for _, fd := range config.Fields {
		in, out := basic, advanced
		if fd.Advanced {
			in, out = advanced, basic
		}
		row := `<div class="field`
		if fd.Control == config.Checkbox {
			row += ` check`
		}
		row += `" data-field="` + fd.Name + `">`
		if !strings.Contains(in, row) || strings.Contains(out, `data-field="`+fd.Name+`"`) {
			t.Errorf("field %s: its row is not in its part alone", fd.Name)
		}
		for _, want := range []string{`id="f-` + fd.Name + `"`, `name="` + fd.Name + `"`, `<p class="field-error" id="e-` + fd.Name + `" role="alert"></p>`} {
			if !strings.Contains(in, want) {
				t.Errorf("field %s: no %s", fd.Name, want)
			}
		}
	}
	if !strings.Contains(basic, `<input type="checkbox" id="f-compare"`) || !strings.Contains(basic, `<label for="f-epochs">`) {
		t.Errorf("the basic fields lack compare's checkbox or epochs' label:\n%s", basic)
	}
	if strings.Contains(basic+advanced, "<script") || strings.Count(basic+advanced, "<div") != len(config.Fields) {
		t.Errorf("the form's HTML is not one row a field")
	}
}

func TestFieldErrors(t *testing.T) {
	fields, general := FieldErrors(config.Deep, config.Errors{"epochs": "too many", "data": "unknown", "": "fix them.", "demo": " no demo"})
	if fields["epochs"] != "too many" || fields["data"] != "" || len(fields) != len(config.Fields) {
		t.Errorf("fields: %v", fields)
	}
	if want := "data: unknown fix them. no demo"; general != want {
		t.Errorf("general = %q, want %q", general, want)
	}
	if _, general := FieldErrors(config.Images, config.Errors{"data": "unknown"}); general != "" {
		t.Errorf("images: data's message went to the general line: %q", general)
	}
}

func TestEditable(t *testing.T) {
	for _, c := range []struct {
		name              string
		training, compare bool
		want              bool
	}{{"loss", false, false, true}, {"loss", false, true, false}, {"head", false, true, false}, {"epochs", false, true, true}, {"epochs", true, false, false}} {
		if got := Editable(c.name, c.training, c.compare); got != c.want {
			t.Errorf("Editable(%s, %v, %v) = %v", c.name, c.training, c.compare, got)
		}
	}
}
