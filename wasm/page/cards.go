package page

import (
	"strconv"
	"strings"
)

// PNGScale is how many pixels of a figure's PNG make one pixel (CSS px)
// of the figure: twice as sharp as the page shows it.
const PNGScale = 2

// CardsHTML returns the figure cards of slots as HTML, hidden and empty:
// each a figure.card with data-name (the slot's name) holding its plot
// (div.plot) and the caption, with the buttons that download the figure
// as SVG and as PNG (data-download, the format).
func CardsHTML(slots []Slot) string {
	var b strings.Builder
	for _, sl := range slots {
		b.WriteString(`<figure class="card" data-name="` + escaper.Replace(sl.Name) + `" hidden><div class="plot"></div><figcaption><span>` + escaper.Replace(sl.Caption) + `</span><span class="fig-buttons">`)
		writeFigButton(&b, "svg", "download this figure as SVG")
		writeFigButton(&b, "png", "download this figure as PNG, "+strconv.Itoa(PNGScale)+" times its size")
		b.WriteString("</span></figcaption></figure>")
	}
	return b.String()
}

// writeFigButton writes the button that downloads a card's figure in
// format (svg or png).
func writeFigButton(b *strings.Builder, format, title string) {
	b.WriteString(`<button class="link" type="button" title="` + title + `" data-download="` + format + `">` + strings.ToUpper(format) + " ⤓</button>")
}

// FigureFile returns the download name of the figure of card name in
// format (svg, the card's name, or png): of session s's shown run when
// perRun (FileName), else the card's own.
func FigureFile(s *Session, name, format string, perRun bool) string {
	if format == "png" {
		name = strings.TrimSuffix(name, ".svg") + ".png"
	}
	if perRun && s != nil {
		return s.FileName(s.Shown(), name)
	}
	return name
}
