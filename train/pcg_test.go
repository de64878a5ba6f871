package train

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPCG checks that pcg draws what rand.PCG draws from the same seeds,
// with the same MarshalBinary bytes along the way, and that each reads the
// other's bytes back.
func TestPCG(t *testing.T) {
	seeds := rand.New(rand.NewPCG(1, 2))
	for s := 0; s < 200; s++ {
		a, b := seeds.Uint64(), seeds.Uint64()
		if s < 4 { // the edges of the seeds too
			a, b = -uint64(s&1), -uint64(s>>1)
		}
		want, got := rand.NewPCG(a, b), newPCG(a, b)
		for d := 0; d < 300; d++ {
			if w, g := want.Uint64(), got.Uint64(); w != g {
				t.Fatalf("seeds %#x, %#x, draw %d: pcg gives %#x, rand.PCG %#x", a, b, d, g, w)
			}
			if d%50 != 0 {
				continue
			}
			wb, _ := want.MarshalBinary()
			gb, err := got.MarshalBinary()
			if err != nil || !bytes.Equal(gb, wb) {
				t.Fatalf("seeds %#x, %#x, draw %d: pcg marshals to %x (%v), rand.PCG to %x", a, b, d, gb, err, wb)
			}
			var back pcg
			if err := back.UnmarshalBinary(wb); err != nil || back != *got {
				t.Fatalf("seeds %#x, %#x, draw %d: pcg reads rand.PCG's bytes as %+v (%v), want %+v", a, b, d, back, err, *got)
			}
			var backW rand.PCG
			if err := backW.UnmarshalBinary(gb); err != nil || backW.Uint64() != back.Uint64() {
				t.Fatalf("seeds %#x, %#x, draw %d: rand.PCG reads pcg's bytes differently (%v)", a, b, d, err)
			}
		}
	}
	var p pcg
	for _, bad := range [][]byte{nil, []byte("pcg:0123456789abcde"), []byte("PCG:0123456789abcdef"), []byte("pcg:0123456789abcdef0")} {
		if err := p.UnmarshalBinary(bad); err == nil {
			t.Errorf("pcg reads %q", bad)
		}
	}
}
