package plot

import (
	"bytes"
	"math"
	"strings"
)

// Panel is one plot of a Stack: curves against its own y axis.
type Panel struct {
	YLabel string
	// YLim fixes the y range when YLim[0] < YLim[1].
	YLim [2]float64
	// ZeroY stretches the y axis to zero (see Figure.ZeroY).
	ZeroY bool
	LogY  bool
	// Weight is the panel's share of the height (0 counts as 1).
	Weight float64
	Series []Series
}

// Stack draws panels one above the other over one x axis, so that
// quantities of different ranges (accuracy and ECE, say) each get their own
// y axis: fig's Title goes on top; its XLabel and Caption under the bottom
// panel; its LogX, XLim and IntegerX, and the x range, apply to every
// panel, whose plot areas line up. Series get colours in order across the
// panels, so that each panel's legend tells its curves apart from the
// others'.
func Stack(fig Figure, panels []Panel) []byte {
	w, h := fig.size(640, 520)
	if len(panels) == 0 {
		return Lines(fig, nil, false)
	}
	var all []Series
	weights := 0.0
	for _, p := range panels {
		all = append(all, p.Series...)
		weights += panelWeight(p)
	}
	x0, x1 := xRange(fig, all)
	figs := make([]Figure, len(panels))
	heights := make([]float64, len(panels))
	for i, p := range panels {
		f := Figure{YLabel: p.YLabel, YLim: p.YLim, ZeroY: p.ZeroY, LogX: fig.LogX, XLim: [2]float64{x0, x1}, IntegerX: fig.IntegerX}
		if i == 0 {
			f.Title = fig.Title
		}
		if i == len(panels)-1 {
			f.XLabel, f.Caption = fig.XLabel, fig.Caption
		}
		figs[i], heights[i] = f, math.Round(h*panelWeight(p)/weights)
	}
	// Lay the panels out twice: the second time with the widest left
	// margin and legend, so that the x axes line up.
	plots := make([]*linePlot, len(panels))
	for range 2 {
		left, legend, color := 0.0, 0.0, 0
		for i, p := range panels {
			plots[i] = newLinePlot(figs[i], w, heights[i], p.Series, p.LogY, color)
			left, legend = math.Max(left, plots[i].a.left), math.Max(legend, plots[i].a.legendW)
			color += len(p.Series)
		}
		for i := range figs {
			figs[i].minLeft, figs[i].minLegend = left, legend
		}
	}
	y := 0.0
	docs := make([][]byte, len(plots))
	at := make([][2]float64, len(plots))
	for i, p := range plots {
		docs[i], at[i] = p.draw(), [2]float64{0, y}
		y += heights[i]
	}
	return nest(w, h, docs, at)
}

// nest returns a w x h document holding the documents docs, each nested
// as it is (with its own clip path) with its top left corner at at[i].
func nest(w, h float64, docs [][]byte, at [][2]float64) []byte {
	var out bytes.Buffer
	out.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + num(w) + `" height="` + num(h) + `" viewBox="0 0 ` + num(w) + " " + num(h) + `" font-family="Helvetica, Arial, sans-serif">` + "\n")
	for i, doc := range docs {
		out.WriteString(strings.Replace(string(doc), "<svg ", `<svg x="`+num(at[i][0])+`" y="`+num(at[i][1])+`" `, 1))
	}
	out.WriteString("</svg>\n")
	return out.Bytes()
}

func panelWeight(p Panel) float64 {
	if p.Weight > 0 {
		return p.Weight
	}
	return 1
}
