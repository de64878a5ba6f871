package plot

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// encodePNG returns the PNG file of the w×h image rgb: 8-bit RGB pixels,
// 3 bytes each, rows from the top. Every row carries PNG's Sub filter (each
// byte less the one of the pixel on its left), which on the density
// shading gives files smaller than image/png's adaptive choice and takes
// less time. It writes the file itself rather than through image/png,
// whose decoder and generic encoder would add about 55 KB gzipped to the
// page's WebAssembly. It panics if len(rgb) != 3*w*h.
func encodePNG(w, h int, rgb []byte) []byte {
	stride := 3 * w
	if w < 1 || h < 1 || len(rgb) != stride*h {
		panic("plot: encodePNG: the pixels do not fill the image")
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	row := make([]byte, 1+stride)
	row[0] = 1 // Sub
	for y := 0; y < h; y++ {
		cur := rgb[y*stride : (y+1)*stride]
		copy(row[1:4], cur[:3])
		for i := 3; i < stride; i++ {
			row[1+i] = cur[i] - cur[i-3]
		}
		zw.Write(row) // a bytes.Buffer does not fail
	}
	zw.Close()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits a sample, RGB; compression, filter and interlace 0
	chunk(&out, "IHDR", ihdr[:])
	chunk(&out, "IDAT", z.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// chunk appends the PNG chunk typ with data to out: length, type, data and
// the CRC of type and data.
func chunk(out *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	out.WriteString(typ)
	out.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}
