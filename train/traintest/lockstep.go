package traintest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/model"
)

// Lockstep trains the first steps of Trajectory's runs on be and on ref (a
// trusted backend: the CPU one) side by side and compares every step's
// gradients tensor by tensor, be being given ref's parameters before each
// step: each comparison measures be's kernels on the same inputs, not how
// far two runs have drifted apart. It logs each step's worst tensors and
// fails when a gradient is further than rel from ref's (relative L2),
// naming it; gradients that are zero in exact arithmetic (below 1e-5 of
// the largest: a convolution's bias before BatchNorm) are left out. Where the whole trajectory drifts, this tells which gradient
// starts it.
func Lockstep(t *testing.T, be, ref kernels.Backend, steps int, rel float64) {
	f, xs, _ := trajectoryData(t)
	for _, head := range []model.HeadKind{model.HeadLDA, model.HeadSoftmax} {
		kind := head.String()
		t.Run(kind, func(t *testing.T) {
			ms := [2]*model.Model{}
			xy := [2][2]kernels.Tensor{}
			for i, b := range []kernels.Backend{be, ref} {
				m, err := model.New(b, trajectorySpec(head))
				if err != nil {
					t.Fatal(err)
				}
				defer m.Release()
				if err := m.LoadState(f, kind+"/init/"); err != nil {
					t.Fatal(err)
				}
				ms[i] = m
				xy[i] = [2]kernels.Tensor{b.Alloc(kernels.Float32, trajBatch, 1, 28, 28), b.Alloc(kernels.Int32, trajBatch)}
				defer b.Free(xy[i][0])
				defer b.Free(xy[i][1])
			}
			buf := make([]float32, trajBatch*xs.Size())
			for s := range steps {
				rows := xs.Rows(buf, s*trajBatch, (s+1)*trajBatch)
				for i, m := range ms {
					m.Backend.Write(xy[i][0], rows)
					m.Backend.WriteInt(xy[i][1], xs.Y[s*trajBatch:(s+1)*trajBatch])
				}
				for _, p := range ms[1].Params {
					v, err := ref.Read(p.Value)
					if err != nil {
						t.Fatal(err)
					}
					be.Write(ms[0].Param(p.Name).Value, v)
				}
				for i, m := range ms {
					m.Gradients(xy[i][0], xy[i][1])
				}
				type diff struct {
					name string
					err  float64
				}
				var ds []diff
				var gots, wants [][]float32
				largest := 0.0
				for _, p := range ms[1].Params {
					want, err := ref.Read(p.Grad)
					if err != nil {
						t.Fatal(err)
					}
					got, err := be.Read(ms[0].Param(p.Name).Grad)
					if err != nil {
						t.Fatal(err)
					}
					gots, wants = append(gots, got), append(wants, want)
					largest = max(largest, norm(want))
				}
				for i, p := range ms[1].Params {
					got, want := gots[i], wants[i]
					if norm(want) < 1e-5*largest {
						// Zero in exact arithmetic (a convolution's bias
						// before BatchNorm): rounding noise on both sides.
						continue
					}
					d := diff{p.Name, RelErr(got, want)}
					if len(want) == 1 {
						d.name = fmt.Sprintf("%s (%.6g, %s %.6g)", p.Name, got[0], ref.Info().Name, want[0])
					}
					ds = append(ds, d)
					if !(d.err <= rel) {
						t.Errorf("step %d: gradient of %s: relative L2 error %.3g > %g", s, d.name, d.err, rel)
					}
				}
				slices.SortFunc(ds, func(a, b diff) int { return -cmpFloat(a.err, b.err) })
				line := fmt.Sprintf("step %d: worst gradients:", s)
				for _, d := range ds[:min(4, len(ds))] {
					line += fmt.Sprintf(" %s %.2e;", d.name, d.err)
				}
				t.Log(line)
				ms[1].AdamStep()
			}
		})
	}
}

// norm is the L2 norm of v.
func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// cmpFloat orders a and b, NaN last.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case a != a:
		return 1
	}
	return -1
}
