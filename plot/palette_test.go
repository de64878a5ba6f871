package plot

import "testing"

func TestTint(t *testing.T) {
	for _, c := range []struct {
		hex    string
		amount float64
		want   string
	}{
		{"#4e79a7", 0, "#4e79a7"},
		{"#4e79a7", 1, "#ffffff"},
		{"#000000", 0.5, "#808080"},
		{"#ff0010", 0.25, "#ff404c"},
		{"4e79a7", 0.5, "4e79a7"}, // not a colour: unchanged
		{"#4e79a", 0.5, "#4e79a"},
		{"#4e79zz", 0.5, "#4e79zz"},
	} {
		if got := tint(c.hex, c.amount); got != c.want {
			t.Errorf("tint(%q, %v) = %q, want %q", c.hex, c.amount, got, c.want)
		}
	}
}
