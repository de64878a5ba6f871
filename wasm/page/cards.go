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
// format (svg, the card's name, or png; DownloadName).
func FigureFile(s *Session, name, format string, perRun bool) string {
	if format == "png" {
		name = strings.TrimSuffix(name, ".svg") + ".png"
	}
	return DownloadName(s, name, perRun)
}

// DownloadName returns the download name of file name: of session s's
// shown run when perRun (FileName), else the file's own.
func DownloadName(s *Session, name string, perRun bool) string {
	if perRun && s != nil {
		return s.FileName(s.Shown(), name)
	}
	return name
}

// ShownRun returns the run of s whose figures are shown, nil when s is.
func ShownRun(s *Session) *Run {
	if s == nil {
		return nil
	}
	return s.Runs[s.Shown()]
}

// Downloads enables the download buttons that have something to give:
// report.json (#dl-report) and Download all (#dl-all) once session s's
// shown run has its report, its checkpoint (#dl-checkpoint) where the
// page has it (ckpt).
func Downloads(d Doc, s *Session, ckpt bool) {
	jr := ShownRun(s)
	Enable(d, "#dl-report", jr != nil && jr.Report != nil)
	Enable(d, "#dl-checkpoint", jr != nil && ckpt)
	Enable(d, "#dl-all", jr != nil && jr.Report != nil)
}

// Cards is what the page's figure cards (CardsHTML) show: each card's
// figure (SVG) by name, and whether it is of the shown run.
type Cards struct {
	svg    map[string]string
	perRun map[string]bool
}

// card selects the figure card name.
func card(name string) string { return `figure.card[data-name="` + name + `"]` }

// Reset clears the results and lays out the (empty, hidden) cards of
// session s (nil: none, and the results hide) in #overview and #figures;
// the hint before training shows without a session where the demo
// trains (trainable).
func (c *Cards) Reset(d Doc, s *Session, trainable bool) {
	d.SetHTML("#summary", "")
	d.SetText("#report", "")
	Show(d, "#figures-title", false)
	Show(d, "#results", s != nil)
	Show(d, "#hint", s == nil && trainable)
	c.svg, c.perRun = map[string]string{}, map[string]bool{}
	var overview, detail []Slot
	if s != nil {
		overview, detail = Layout(s)
	}
	d.SetHTML("#overview", CardsHTML(overview))
	d.SetHTML("#figures", CardsHTML(detail))
	for _, sl := range overview {
		c.svg[sl.Name] = ""
	}
	for _, sl := range detail {
		c.svg[sl.Name], c.perRun[sl.Name] = "", true
	}
}

// ShowResults shows session s's results apart from its figures: the
// summary, the shown run's report.json (#report, which the summary's row
// of the shown run changes with) and the figures' heading.
func ShowResults(d Doc, s *Session) {
	Show(d, "#results", true)
	Show(d, "#hint", false)
	d.SetText("#report", string(s.Runs[s.Shown()].Report))
	d.SetHTML("#summary", SummaryHTML(s))
	title := FiguresTitle(s)
	d.SetText("#figures-title", title)
	Show(d, "#figures-title", title != "")
}

// Changes reports whether svg changes card name (there is such a card,
// svg is a figure and not the one it shows).
func (c *Cards) Changes(name, svg string) bool {
	old, ok := c.svg[name]
	return ok && svg != "" && svg != old
}

// Set shows svg in card name, with its text alternative (Label).
func (c *Cards) Set(d Doc, name, svg string) {
	c.svg[name] = svg
	d.SetHTML(card(name)+" .plot", svg)
	label(d, name)
	Show(d, card(name), true)
}

// Caption gives card name the caption, unless it has it (the shown run
// changed: so does whose figure it says it is).
func (c *Cards) Caption(d Doc, name, caption string) {
	sel := card(name) + " figcaption > span:first-child"
	if _, ok := c.svg[name]; ok && d.Text(sel) != caption {
		d.SetText(sel, caption)
		label(d, name)
	}
}

// label gives card name's figure its text alternative: role img,
// labelled by the caption.
func label(d Doc, name string) {
	fig := card(name) + " .plot > svg"
	d.SetAttr(fig, "role", "img")
	d.SetAttr(fig, "aria-label", d.Text(card(name)+" figcaption > span:first-child"))
}

// Figure returns the figure card name shows ("" when none) and whether
// it is of the shown run.
func (c *Cards) Figure(name string) (svg string, perRun bool) { return c.svg[name], c.perRun[name] }
