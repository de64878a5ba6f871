package webgpu

import "testing"
import "github.com/deeplda/deeplda/kernels"

func TestSmoke(t *testing.T) {
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Log(b.Info())
	x := b.Alloc(kernels.Float32, 1000)
	y := b.Alloc(kernels.Float32, 1000)
	data := make([]float32, 1000)
	for i := range data {
		data[i] = float32(i - 500)
	}
	b.Write(x, data)
	b.ReLU(y, x)
	b.ReLU(x, x)
	b.Fill(b.View(y, 64, 10), 7)
	got, err := b.Read(y)
	if err != nil {
		t.Fatal(err)
	}
	got2, _ := b.Read(x)
	t.Log(got[60:80], got[990:], got2[495:505])
}
