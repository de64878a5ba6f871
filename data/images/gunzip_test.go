package images

import (
	"bytes"
	"path/filepath"
	"testing"
)

// gzipBomb returns gzip data that decompresses to head then mib MiB of
// zeros, small: a stream of head and one of 1 MiB of zeros repeated (gzip
// readers read concatenated streams as one).
func gzipBomb(head []byte, mib int) []byte {
	return append(gzipBytes(head), bytes.Repeat(gzipBytes(make([]byte, 1<<20)), mib)...)
}

// gunzipAll runs a Gunzip to its end, as the page does, and counts its
// chunks.
func gunzipAll(g *Gunzip) ([]byte, int, error) {
	chunks := 1
	for g.Next() {
		chunks++
	}
	out, err := g.Result()
	return out, chunks, err
}

// TestGunzipBomb decompresses 100 MiB gzip bombs, about 100 kB each, as
// the page and the command read them: both stop at the size of the largest
// file of the data set, 47,040,016 bytes for (Fashion-)MNIST, with one
// message.
func TestGunzipBomb(t *testing.T) {
	const name = "train-images-idx3-ubyte.gz"
	d, err := Identify([]string{name, "train-labels-idx1-ubyte.gz"})
	if err != nil {
		t.Fatal(err)
	}
	header := idxBytes(idxImages, []uint32{60000, 28, 28}, nil)
	for _, tc := range []struct {
		what string
		bomb []byte
	}{
		{"zeros", gzipBomb(nil, 100)},
		{"an IDX header then zeros", gzipBomb(header, 100)},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if len(tc.bomb) > 200_000 {
				t.Fatalf("the bomb is %d bytes", len(tc.bomb))
			}
			out, _, err := gunzipAll(d.Gunzip(name, tc.bomb))
			want := name + ": decompresses to more than 47040016 bytes, the size of the largest fashion-mnist or mnist file"
			if out != nil || err == nil || err.Error() != want {
				t.Errorf("page: %d bytes, error %v\nwant the error %s", len(out), err, want)
			}
		})
	}

	// The command reads the same file of a valid header, whose data ends
	// in zeros, with the same cap.
	dir := t.TempDir()
	s, _ := Lookup("mnist")
	for k, split := range [][]File{s.Train, s.Test} {
		img, lbl := tinyIDX(2, 28, 28)
		writeFile(t, dir, split[0].Name, gzipBytes(img))
		writeFile(t, dir, split[1].Name, gzipBytes(lbl))
		split[0].SHA256, split[1].SHA256 = "", ""
		if k == 0 {
			writeFile(t, dir, split[0].Name, gzipBomb(header, 100))
		}
	}
	_, _, err = LoadSpec(s, dir)
	want := filepath.Join(dir, name) + ": decompresses to more than 47040016 bytes, the size of the largest mnist file"
	if err == nil || err.Error() != want {
		t.Errorf("command: %v\nwant %s", err, want)
	}
}

func TestGunzip(t *testing.T) {
	d, err := Identify([]string{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
	if err != nil {
		t.Fatal(err)
	}
	img, _ := tinyIDX(3000, 28, 28) // over 2 MiB: three chunks
	gz := gzipBytes(img)
	for _, tc := range []struct {
		what   string
		in     []byte
		want   []byte
		chunks int
	}{
		{"gzip", gz, img, 3},
		{"raw", img, img, 1},
		{"damaged gzip, as it is", gz[:len(gz)/2], gz[:len(gz)/2], 2},
		{"bad gzip header, as it is", []byte{0x1f, 0x8b, 1}, []byte{0x1f, 0x8b, 1}, 1},
		{"empty", nil, nil, 1},
	} {
		out, chunks, err := gunzipAll(d.Gunzip("t10k-images-idx3-ubyte.gz", tc.in))
		if err != nil || !bytes.Equal(out, tc.want) || chunks != tc.chunks {
			t.Errorf("%s: %d bytes in %d chunks, %v; want %d bytes in %d chunks", tc.what, len(out), chunks, err, len(tc.want), tc.chunks)
		}
	}
}
