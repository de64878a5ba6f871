package plot

import "math"

// Row draws figures side by side, each in an equal share of fig's width
// and its full height (default 960 x 460): draw[i] receives the Figure of
// its place (Width and Height set) and returns its SVG, which the row
// nests as it is.
func Row(fig Figure, draw ...func(Figure) []byte) []byte {
	w, h := fig.size(960, 460)
	each := math.Floor(w / float64(max(len(draw), 1)))
	docs := make([][]byte, len(draw))
	at := make([][2]float64, len(draw))
	for i, d := range draw {
		docs[i], at[i] = d(Figure{Width: int(each), Height: int(h)}), [2]float64{float64(i) * each, 0}
	}
	return nest(w, h, docs, at)
}
