package page

import (
	"strconv"
	"strings"
)

// escaper writes text as HTML (package html would bring its table of
// entities into the page's WebAssembly).
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// SummaryHTML returns the summary box of session s as HTML: the table of
// runs (each run's label a button with data-run, its index, that shows its
// figures; the shown run's row has class shown), the shown run's test
// evaluations (#extras) and out-of-distribution scores (#ood), each in a
// box that scrolls sideways on its own, and for two heads side by side
// their gap (#compare-gap) and scores (#compare-ood). The page sets
// it in one go: building it element by element from WebAssembly took tens
// of milliseconds of the page's thread.
func SummaryHTML(s *Session) string {
	var b strings.Builder
	rows := make([][]string, len(s.Runs))
	for i, jr := range s.Runs {
		rows[i] = SummaryCells(jr)
	}
	writeTable(&b, "summary", "", SummaryHeader, rows, func(i int) (class, first string) {
		if i == s.Shown() {
			class = "shown"
		}
		first = `<button type="button" class="link" data-run="` + strconv.Itoa(i) + `" title="show this run's figures and report">` + escaper.Replace(s.Runs[i].Label) + `</button>`
		return class, first
	})
	if jr := s.Runs[s.Shown()]; jr.Rep != nil {
		if t := Extras(jr.Rep); t != nil {
			writeTableOf(&b, "summary extras", "extras", t)
		}
		if t := OOD(jr.Rep); t != nil {
			writeTableOf(&b, "summary ood", "ood", t)
		}
	}
	if gap := Gap(s); gap != "" {
		writeP(&b, "gap", "compare-gap", gap)
		if t := OODComparison(s); t != nil {
			writeTableOf(&b, "summary ood", "compare-ood", t)
		}
	}
	return b.String()
}

// writeTableOf writes table t in a box of its own, which scrolls sideways
// where the table is wider than the page, under its caption.
func writeTableOf(b *strings.Builder, class, id string, t *Table) {
	b.WriteString(`<div class="table-box">`)
	if t.Caption != "" {
		b.WriteString(`<p class="table-caption">` + escaper.Replace(t.Caption) + "</p>")
	}
	writeTable(b, class, id, t.Header, t.Rows, nil)
	b.WriteString("</div>")
}

// writeTable writes a table of text; lead, when not nil, gives each row's
// class and the HTML of a cell before the row's cells.
func writeTable(b *strings.Builder, class, id string, header []string, rows [][]string, lead func(int) (class, first string)) {
	b.WriteString(`<table class="` + class + `"`)
	if id != "" {
		b.WriteString(` id="` + id + `"`)
	}
	b.WriteString("><thead><tr>")
	for _, h := range header {
		b.WriteString("<th>" + escaper.Replace(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for i, r := range rows {
		b.WriteString("<tr")
		first := ""
		if lead != nil {
			var c string
			c, first = lead(i)
			if c != "" {
				b.WriteString(` class="` + c + `"`)
			}
		}
		b.WriteString(">")
		if lead != nil {
			b.WriteString("<td>" + first + "</td>")
		}
		for _, cell := range r {
			b.WriteString("<td>" + escaper.Replace(cell) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
}

// writeP writes a paragraph of text, nothing when text is "".
func writeP(b *strings.Builder, class, id, text string) {
	if text != "" {
		b.WriteString(`<p class="` + class + `" id="` + id + `">` + escaper.Replace(text) + "</p>")
	}
}
