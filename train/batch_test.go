package train

import (
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/model"
)

// TestBatchGathers checks that batch copies the examples and labels of the
// shuffled order, for every way it gathers them (2-D points, small and
// large examples, examples held as bytes) and for the last, shorter batch.
func TestBatchGathers(t *testing.T) {
	for _, size := range []int{1, 2, 3, 9, -9} {
		const n, classes, b = 23, 3, 8
		bytes := size < 0 // 9 values as bytes in 1 channel
		size = max(size, -size)
		d := Dataset{Y: make([]int32, n), Shape: []int{size}, Classes: classes}
		want := make([]float32, n*size)
		if bytes {
			d.Shape, d.Pixels, d.Levels = []int{1, size}, make([]uint8, n*size), make([][256]float32, 1)
			for p := range 256 {
				d.Levels[0][p] = float32(p) + 0.5
			}
		} else {
			d.X = want
		}
		for i := range n {
			d.Y[i] = int32(i % classes)
			for j := range size {
				want[i*size+j] = float32(100*i + j)
				if bytes {
					d.Pixels[i*size+j] = uint8(7*i + j)
					want[i*size+j] = float32(7*i+j) + 0.5
				}
			}
		}
		m, err := model.New(cpu.New(), model.Spec{Encoder: model.EncoderMLP, Input: []int{size}, Classes: classes, Dim: 2,
			Head: model.HeadLDA, Cov: kernels.Full, Loss: kernels.DNLL, Lambda: 0.01, LR: 1e-3, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := New(m, d, Config{Epochs: 1, Batch: b, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		tr.perm = make([]int, n)
		permInto(tr.perm, newPCG(3, 4))
		for lo := 0; lo < n; lo += b {
			hi := min(lo+b, n)
			x, y := tr.batch(lo, hi)
			xs, _ := m.Backend.Read(x)
			ys, _ := m.Backend.ReadInt(y)
			if len(xs) != (hi-lo)*size || len(ys) != hi-lo {
				t.Fatalf("size %d, batch [%d, %d): %d values and %d labels", size, lo, hi, len(xs), len(ys))
			}
			for i, idx := range tr.perm[lo:hi] {
				if ys[i] != d.Y[idx] {
					t.Fatalf("size %d, batch [%d, %d): label %d is %d, want %d", size, lo, hi, i, ys[i], d.Y[idx])
				}
				for j := range size {
					if got, want := xs[i*size+j], want[idx*size+j]; got != want {
						t.Fatalf("size %d, batch [%d, %d): x[%d][%d] = %v, want %v", size, lo, hi, i, j, got, want)
					}
				}
			}
		}
	}
}
