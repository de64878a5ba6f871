package plot

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// clipToken is written where the figure's clip-path id belongs; finish
// replaces it with an id derived from the content, so that several figures
// shown inline in one HTML page do not share ids, while the output stays
// deterministic. Text never contains NUL because esc drops control bytes.
const clipToken = "\x00"

// num formats a coordinate with at most two decimals and no trailing zeros.
func num(v float64) string {
	return fixed(v, 100)
}

// num1 formats a coordinate with at most one decimal (used for dense point
// clouds to keep the output small).
func num1(v float64) string {
	return fixed(v, 10)
}

func fixed(v, mul float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(math.Round(v*mul)/mul, 'f', -1, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}

// esc escapes s for use in XML text and attribute values and drops
// characters that XML 1.0 does not allow.
func esc(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF:
			// not allowed in XML 1.0
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// textWidth estimates the rendered width of s in pixels for a sans-serif
// font of the given size (there are no font metrics in the browser-free
// build, so this is deliberately a little generous).
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// svg accumulates the body of one SVG document.
type svg struct {
	w, h float64
	b    strings.Builder
}

func newSVG(w, h float64) *svg {
	s := &svg{w: w, h: h}
	s.printf(`<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", num(w), num(h))
	return s
}

func (s *svg) printf(format string, args ...any) {
	fmt.Fprintf(&s.b, format, args...)
}

// text writes a text element; anchor is start, middle or end and extra holds
// further attributes (already escaped).
func (s *svg) text(x, y, size float64, anchor, extra, content string) {
	if content == "" {
		return
	}
	s.printf(`<text x="%s" y="%s" font-size="%s" text-anchor="%s"%s>%s</text>`+"\n",
		num(x), num(y), num(size), anchor, extra, esc(content))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, width float64, extra string) {
	s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>`+"\n",
		num(x1), num(y1), num(x2), num(y2), stroke, num(width), extra)
}

func (s *svg) rect(x, y, w, h float64, extra string) {
	s.printf(`<rect x="%s" y="%s" width="%s" height="%s"%s/>`+"\n", num(x), num(y), num(w), num(h), extra)
}

// group opens a <g> with a class attribute (used by tests and for styling)
// and further attributes.
func (s *svg) group(class, extra string) {
	s.printf(`<g class="%s"%s>`+"\n", class, extra)
}

func (s *svg) end() { s.b.WriteString("</g>\n") }

// finish wraps the body in the root element, with the clip rectangle of the
// plot area as its only definition, and returns the document.
func (s *svg) finish(clipX, clipY, clipW, clipH float64) []byte {
	body := s.b.String()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s %s %s %s %s %s\n", num(s.w), num(s.h), num(clipX), num(clipY), num(clipW), num(clipH))
	h.Write([]byte(body))
	id := fmt.Sprintf("plotclip-%016x", h.Sum64())
	var out strings.Builder
	out.Grow(len(body) + 512)
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="Helvetica, Arial, sans-serif">`+"\n",
		num(s.w), num(s.h), num(s.w), num(s.h))
	fmt.Fprintf(&out, `<defs><clipPath id="%s"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath></defs>`+"\n",
		id, num(clipX), num(clipY), num(clipW), num(clipH))
	out.WriteString(strings.ReplaceAll(body, clipToken, id))
	out.WriteString("</svg>\n")
	return []byte(out.String())
}
