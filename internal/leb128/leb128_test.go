package leb128

import (
	"bytes"
	"testing"
)

// TestLEB128 checks the variable-length integer encodings against values
// worked out by hand from the WebAssembly specification.
func TestLEB128(t *testing.T) {
	for _, c := range []struct {
		v    int
		u, s []byte
	}{
		{0, []byte{0x00}, []byte{0x00}},
		{63, []byte{0x3f}, []byte{0x3f}},
		{64, []byte{0x40}, []byte{0xc0, 0x00}},
		{127, []byte{0x7f}, []byte{0xff, 0x00}},
		{128, []byte{0x80, 0x01}, []byte{0x80, 0x01}},
		{0x105, []byte{0x85, 0x02}, []byte{0x85, 0x02}},
		{624485, []byte{0xe5, 0x8e, 0x26}, []byte{0xe5, 0x8e, 0x26}},
	} {
		if got := AppendUnsigned(nil, uint64(c.v)); !bytes.Equal(got, c.u) {
			t.Errorf("AppendUnsigned(%d) = % x, want % x", c.v, got, c.u)
		}
		if got := AppendSigned(nil, int64(c.v)); !bytes.Equal(got, c.s) {
			t.Errorf("AppendSigned(%d) = % x, want % x", c.v, got, c.s)
		}
	}
	for v, want := range map[int][]byte{-1: {0x7f}, -64: {0x40}, -65: {0xbf, 0x7f}, -123456: {0xc0, 0xbb, 0x78}} {
		if got := AppendSigned(nil, int64(v)); !bytes.Equal(got, want) {
			t.Errorf("AppendSigned(%d) = % x, want % x", v, got, want)
		}
	}
}
