package page

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// svgElements are the SVG elements that a figure of the runs folder keeps:
// those that draw (what package plot writes, and their kin), none that
// runs script, loads a document or changes an attribute later (script,
// foreignObject, a, use, animate, set, style...).
var svgElements = map[string]bool{
	"svg": true, "g": true, "defs": true, "clipPath": true, "title": true, "desc": true,
	"path": true, "rect": true, "line": true, "circle": true, "ellipse": true, "polyline": true, "polygon": true,
	"text": true, "tspan": true, "image": true, "linearGradient": true, "radialGradient": true, "stop": true,
}

// SafeSVG returns the figure svg, read from a file that anyone may have
// written (a run folder of deeplda ui's runs folder), as SVG that the page
// can insert without running anything: it keeps the drawing elements
// (svgElements) and their attributes, but no event handler (on...), no
// link other than a PNG or JPEG image's data, no style that loads a URL,
// no comment, processing instruction or DOCTYPE; text is escaped anew. A
// file that is not SVG gives an empty figure.
func SafeSVG(svg string) string {
	var b strings.Builder
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = true
	skip := 0 // the depth inside an element dropped whole
	root := true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// Malformed: what was read so far is closed by the parser
			// that inserts it; keep nothing rather than half a figure.
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || !svgElements[t.Name.Local] || (root && t.Name.Local != "svg") {
				skip++
				continue
			}
			root = false
			b.WriteString("<" + t.Name.Local)
			for _, a := range t.Attr {
				if safeAttr(t.Name.Local, a) {
					b.WriteString(" " + a.Name.Local + `="`)
					xml.EscapeText(&b, []byte(a.Value))
					b.WriteString(`"`)
				}
			}
			b.WriteString(">")
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			b.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			if skip == 0 && !root {
				xml.EscapeText(&b, t)
			}
		}
	}
	return b.String()
}

// safeAttr reports whether SafeSVG keeps the attribute a of an element el.
func safeAttr(el string, a xml.Attr) bool {
	name, v := strings.ToLower(a.Name.Local), strings.ToLower(a.Value)
	switch {
	case a.Name.Space != "" && a.Name.Space != "xmlns" && name != "href":
		// xml:space and the like; xmlns:xlink is written as xmlns.
		return false
	case a.Name.Space == "xmlns":
		return false
	case strings.HasPrefix(name, "on"):
		return false
	case name == "href":
		return el == "image" && (strings.HasPrefix(v, "data:image/png;") || strings.HasPrefix(v, "data:image/jpeg;"))
	case strings.Contains(v, "javascript:"):
		return false
	}
	// A style or a paint may point into the figure (url(#clip)), not out.
	for rest := v; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return true
		}
		rest = strings.TrimLeft(rest[i+4:], ` '"`)
		if !strings.HasPrefix(rest, "#") {
			return false
		}
	}
}
