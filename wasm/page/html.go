package page

import (
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// escaper writes text as HTML (package html would bring its table of
// entities into the page's WebAssembly).
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// SummaryHTML returns the summary box of session s as HTML: its tables
// (SessionTables) each under a line with its caption and a CSV button
// (data-csv, the table's id): the table of runs (each run's label a
// button with data-run, its index, that shows its figures, after its
// colour's marker (runMark) where the runs have colours, RunColors; the
// shown run's row has class shown), for two heads side by side their gap
// (#compare-gap), the shown run's test evaluations (#extras) and
// out-of-distribution scores (#ood), each in a box that scrolls sideways
// on its own, and both heads' scores (#compare-ood). The page sets it in
// one go: building it element by element from WebAssembly took tens of
// milliseconds of the page's thread.
func SummaryHTML(s *Session) string {
	var b strings.Builder
	for _, t := range SessionTables(s) {
		if t.ID != TableSummary {
			writeTableOf(&b, "summary "+t.ID, t)
			continue
		}
		// The box scrolls sideways itself: the table of runs is its own.
		writeTableHead(&b, t)
		writeTable(&b, "summary", t, func(i int) (class, first string) {
			if i == s.Shown() {
				class = "shown"
			}
			first = `<button type="button" class="link" data-run="` + strconv.Itoa(i) + `" title="show this run's figures and report">` + escaper.Replace(s.Runs[i].Label) + `</button>`
			if s.RunColors() {
				first = runMark(i) + first
			}
			return class, first
		})
		writeP(&b, "gap", "compare-gap", Gap(s))
	}
	return b.String()
}

// runMark returns the marker of the run of a table's row: a square of
// the colour of run i of the runs laid side by side (RunMarkStyle), or for
// i < 0 an empty square's place. The page outlines it (.run-mark), so that
// it reads in light and dark mode; the run's name says the same to a
// screen reader.
func runMark(i int) string {
	style := RunMarkStyle(i)
	if style != "" {
		style = ` style="` + style + `"`
	}
	return `<span class="run-mark"` + style + ` title="this run's colour in the figures of the runs side by side" aria-hidden="true"></span>`
}

// RunMarkStyle returns the style of the marker of run i of the runs laid
// side by side: experiment.RunColor(i), that of its lines in the figures,
// as its background; "" (no colour) for i < 0.
func RunMarkStyle(i int) string {
	if i < 0 {
		return ""
	}
	return "background:" + experiment.RunColor(i)
}

// writeTableOf writes table t in a box of its own, which scrolls sideways
// where the table is wider than the page, under its caption and CSV
// button.
func writeTableOf(b *strings.Builder, class string, t *Table) {
	b.WriteString(`<div class="table-box">`)
	writeTableHead(b, t)
	writeTable(b, class, t, nil)
	b.WriteString("</div>")
}

// writeTableHead writes the line above table t: its caption and the
// button that downloads it as CSV (data-csv, its id).
func writeTableHead(b *strings.Builder, t *Table) {
	b.WriteString(`<div class="table-head"><p class="table-caption">` + escaper.Replace(t.Caption) + `</p>`)
	b.WriteString(`<button type="button" class="link" data-csv="` + t.ID + `" title="download this table as CSV (` + escaper.Replace(t.File) + `)">CSV ⤓</button></div>`)
}

// writeTable writes table t with its id; lead, when not nil, gives each
// row's class and the HTML of its first cell in place of its text.
func writeTable(b *strings.Builder, class string, t *Table, lead func(int) (class, first string)) {
	b.WriteString(`<table class="` + class + `" id="` + t.ID + `"><thead><tr>`)
	for _, h := range t.Header {
		b.WriteString("<th>" + escaper.Replace(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for i, r := range t.Rows {
		b.WriteString("<tr")
		first := escaper.Replace(r[0])
		if lead != nil {
			var c string
			c, first = lead(i)
			if c != "" {
				b.WriteString(` class="` + c + `"`)
			}
		}
		b.WriteString("><td>" + first + "</td>")
		for _, cell := range r[1:] {
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
