package cpu

import (
	"github.com/deeplda/deeplda/kernels/cpu/gemm"
	"github.com/deeplda/deeplda/kernels/ref"
)

// winograd is the layout of the 3x3, stride 1, pad 1 convolutions computed
// with Winograd's minimal filtering algorithm F(2x2, 3x3) (Lavin and Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2016): each 2x2
// tile of outputs is
//
//	Y = A^T [(G g G^T) ⊙ (B^T d B)] A
//
// for the 3x3 filter g and the 4x4 patch d of the padded input around the
// tile, so that the products are 16 GEMMs, one per point xi of the 4x4
// transformed tile, with K = the input channels, instead of one with K =
// 9 times them: 2.25 times fewer multiply-adds (fewer where the planes
// are odd, 7x7 planes make 4x4 tiles of 2x2). The transforms are sums and
// halvings, so that the result is the convolution up to float32 rounding
// (of terms up to 4 times the products' size), not bit for bit the
// unfolded GEMM's.
//
// The data layout is channels last, so that the transforms are the same
// arithmetic on runs of channels: the input of a group of images is
// transposed into zero-framed planes of [hp, wp] pixels of C channels,
// the transformed tiles are v[xi][t][C] (t = the tiles of the group, row
// by row, image by image), the products m[xi][t][D], and the output is
// transposed back from [pixel][D] (transposeImages).
//
// The filter gradient is the adjoint of the same algorithm: with dY the
// 2x2 tile of output gradients,
//
//	dg = G^T [(A dY A^T) ⊙ (B^T d B)] G
//
// summed over the tiles: 16 GEMMs [C, t] x [t, D] over the tiles.
type winograd struct {
	n, h, w int // images, and the height and width of input and output
	th, tw  int // tiles per column and per row: ceil(h/2), ceil(w/2)
	hp, wp  int // framed plane: 2*th+2 rows of 2*tw+2 pixels
	group   int // images per group
}

// winogradTiles is the number of tiles a group aims at: enough rows for
// the GEMMs' M, while a group's transformed tiles (16 floats a tile and
// channel) stay within the caches.
var winogradTiles = 256

// winogradMinChannels is the fewest input and output channels of a
// convolution computed with F(2x2, 3x3): with fewer, the GEMMs are too
// small to pay for the transforms (the ConvNet's first convolution, of one
// input channel, stays unfolded).
const winogradMinChannels = 16

// newWinograd returns the layout of g, cut into at least min(parts, N)
// groups, and whether F(2x2, 3x3) computes g.
func newWinograd(g ref.Conv, parts int) (winograd, bool) {
	if g.K != 3 || g.Stride != 1 || g.Pad != 1 || g.N == 0 || g.H < 1 || g.W < 1 ||
		g.Ci < winogradMinChannels || g.Co < winogradMinChannels {
		return winograd{}, false
	}
	wg := winograd{n: g.N, h: g.H, w: g.W, th: ceilDiv(g.H, 2), tw: ceilDiv(g.W, 2)}
	wg.hp, wg.wp = 2*wg.th+2, 2*wg.tw+2
	wg.group = min(ceilDiv(winogradTiles, wg.th*wg.tw), ceilDiv(g.N, parts))
	return wg, true
}

// groups returns the number of groups of images.
func (wg *winograd) groups() int { return ceilDiv(wg.n, wg.group) }

// images returns the first image of group i and the number of its images.
func (wg *winograd) images(i int) (n0, imgs int) {
	n0 = i * wg.group
	return n0, min(wg.group, wg.n-n0)
}

// tiles returns the number of tiles of imgs images.
func (wg *winograd) tiles(imgs int) int { return imgs * wg.th * wg.tw }

// winogradG is G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], and
// winogradT[tap][xi] = G[r][kh] * G[c][kw] for tap (kh, kw) of a 3x3
// filter and point xi = (r, c) of the 4x4 transformed tile: the filter
// transform G f G^T is f (9 taps) times winogradT, and the filter
// gradient's G^T M G is M (16 points) times its transpose. winogradFlip
// is winogradT of the filters flipped by 180 degrees (rows 8-tap).
var (
	winogradG               = [4][3]float32{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	winogradT, winogradFlip = winogradTaps()
)

// winogradTaps returns winogradT and winogradFlip.
func winogradTaps() (t, flip [9 * 16]float32) {
	for tap := 0; tap < 9; tap++ {
		for xi := 0; xi < 16; xi++ {
			v := winogradG[xi/4][tap/3] * winogradG[xi%4][tap%3]
			t[tap*16+xi], flip[(8-tap)*16+xi] = v, v
		}
	}
	return t, flip
}

// filterTransform sets u[xi][ci][co] = (G f G^T)[xi] for each 3x3 filter
// f[co][ci] of w[Co, Ci, 3, 3], the forward convolution's transformed
// filters from its input to its output channels; with back set it sets
// u[xi][co][ci] from the filters flipped by 180 degrees, the backward
// convolution's from the output channels to the input channels. The
// transform is one GEMM, u = winogradT^T w^T (then, forward, each
// [co][ci] plane transposed).
func (b *Backend) filterTransform(u, w []float32, co, ci int, back bool) {
	if back {
		gemm.Sgemm(true, true, 16, co*ci, 9, 1, winogradFlip[:], 16, w, 9, 0, u, co*ci)
		return
	}
	t := b.scratch(16 * co * ci)
	defer b.release(t)
	gemm.Sgemm(true, true, 16, co*ci, 9, 1, winogradT[:], 16, w, 9, 0, *t, co*ci)
	transposeImages(u, *t, 16, co, ci, nil)
}

// frameChannelsLast writes images n0..n0+imgs-1 of x[N, c, h, w] into
// planes (imgs framed planes of [hp, wp] pixels of c channels), pixel
// (y, x) at framed pixel (y+1, x+1); the frame's pixels are zeros. The
// SIMD module transposes the images where it runs (frameSIMD).
func (wg *winograd) frameChannelsLast(planes, x []float32, n0, imgs, c int) {
	wg.clearFrame(planes, imgs, c)
	if frameSIMD(wg, planes, x, n0, imgs, c) {
		return
	}
	hw := wg.h * wg.w
	for i := 0; i < imgs; i++ {
		for y := 0; y < wg.h; y++ {
			row := planes[((i*wg.hp+y+1)*wg.wp+1)*c:]
			for ch := 0; ch < c; ch++ {
				src := x[((n0+i)*c+ch)*hw+y*wg.w:][:wg.w]
				for xx, v := range src {
					row[xx*c+ch] = v
				}
			}
		}
	}
}

// clearFrame zeroes the frame of imgs framed planes of c channels: the
// first row and the rows past the plane, and the first pixel and the
// pixels past the plane of every row between.
func (wg *winograd) clearFrame(planes []float32, imgs, c int) {
	row := wg.wp * c
	for i := 0; i < imgs; i++ {
		p := planes[i*wg.hp*row:][:wg.hp*row]
		clear(p[:row])
		clear(p[(wg.h+1)*row:])
		for y := 1; y <= wg.h; y++ {
			clear(p[y*row:][:c])
			clear(p[y*row+(wg.w+1)*c : (y+1)*row])
		}
	}
}

// pointLen is the floats from one point's transformed tiles to the next
// point's, for nt tiles of c channels (v[xi][t][ch] is at xi*pointLen(nt,
// c) + t*c + ch): a cache line more than they take, so that the 16 runs
// that a transform reads or writes at once, whose sizes are multiples of
// 4 KiB in the ConvNet, do not all fall on the same cache sets.
func pointLen(nt, c int) int { return nt*c + 16 }

// inputTransform sets v[xi][t][ch] = (B^T d B)[xi] for every tile t of
// imgs images and channel ch < c, d the tile's 4x4 patch of the framed
// planes, where B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], in the
// SIMD module where it runs (inputSIMD).
func (wg *winograd) inputTransform(v, planes []float32, imgs, c int) {
	if !inputSIMD(wg, v, planes, imgs, c) {
		wg.inputTransformGo(v, planes, imgs, c)
	}
}

// inputTransformGo is inputTransform in Go, its arithmetic along the
// channels (tileInput).
func (wg *winograd) inputTransformGo(v, planes []float32, imgs, c int) {
	nt := wg.tiles(imgs)
	var d, o [16][]float32
	t := 0
	for i := 0; i < imgs; i++ {
		for ty := 0; ty < wg.th; ty++ {
			for tx := 0; tx < wg.tw; tx++ {
				base := ((i*wg.hp+2*ty)*wg.wp + 2*tx) * c
				for k := range d {
					d[k] = planes[base+(k/4*wg.wp+k%4)*c:][:c]
					o[k] = v[k*pointLen(nt, c)+t*c:][:c]
				}
				tileInput(&o, &d, c)
				t++
			}
		}
	}
}

// tileInput sets o[xi][ch] = (B^T d B)[xi] for the 4x4 patch d[.][ch]
// of each channel ch < c.
func tileInput(o, d *[16][]float32, c int) {
	for ch := 0; ch < c; ch++ {
		// e = B^T d, then o = e B.
		var e [16]float32
		for q := 0; q < 4; q++ {
			d0, d1, d2, d3 := d[q][ch], d[4+q][ch], d[8+q][ch], d[12+q][ch]
			e[q], e[4+q], e[8+q], e[12+q] = d0-d2, d1+d2, d2-d1, d1-d3
		}
		for r := 0; r < 4; r++ {
			e0, e1, e2, e3 := e[4*r], e[4*r+1], e[4*r+2], e[4*r+3]
			o[4*r][ch], o[4*r+1][ch], o[4*r+2][ch], o[4*r+3][ch] = e0-e2, e1+e2, e2-e1, e1-e3
		}
	}
}

// outputTransform writes the 2x2 output tiles Y = A^T m A of the products
// m[xi][t][d] into out[pixel][d] (imgs images of h*w pixels, the tiles'
// pixels past the planes' edges dropped), where A^T = [1 1 1 0; 0 1 -1
// -1], in the SIMD module where it runs (outputSIMD).
func (wg *winograd) outputTransform(out, m []float32, imgs, d int) {
	if !outputSIMD(wg, out, m, imgs, d) {
		wg.outputTransformGo(out, m, imgs, d)
	}
}

// outputTransformGo is outputTransform in Go, its arithmetic along the
// channels.
func (wg *winograd) outputTransformGo(out, m []float32, imgs, d int) {
	spare := make([]float32, d) // where the pixels past the edges go
	wg.eachTile(imgs, d, m, out, spare, func(mt *[16][]float32, y *[4][]float32) {
		for ch := 0; ch < d; ch++ {
			var s [8]float32 // s = A^T m (2x4)
			for q := 0; q < 4; q++ {
				m0, m1, m2, m3 := mt[q][ch], mt[4+q][ch], mt[8+q][ch], mt[12+q][ch]
				s[q], s[4+q] = m0+m1+m2, m1-m2-m3
			}
			for a := 0; a < 2; a++ {
				s0, s1, s2, s3 := s[4*a], s[4*a+1], s[4*a+2], s[4*a+3]
				y[2*a][ch], y[2*a+1][ch] = s0+s1+s2, s1-s2-s3
			}
		}
	})
}

// eachTile calls fn for every tile of imgs images in order, with the
// tile's 16 points of d channels in points ([xi][t][d], pointLen apart)
// and its 2x2 pixels, row by row, in pixels ([pixel][d], imgs images of
// h*w pixels; alt for the pixels past the planes' edges).
func (wg *winograd) eachTile(imgs, d int, points, pixels, alt []float32, fn func(pt *[16][]float32, px *[4][]float32)) {
	nt := wg.tiles(imgs)
	var pt [16][]float32
	var px [4][]float32
	t := 0
	for i := 0; i < imgs; i++ {
		for ty := 0; ty < wg.th; ty++ {
			for tx := 0; tx < wg.tw; tx++ {
				for k := range pt {
					pt[k] = points[k*pointLen(nt, d)+t*d:][:d]
				}
				for k := range px {
					px[k] = alt
					if y, x := 2*ty+k/2, 2*tx+k%2; y < wg.h && x < wg.w {
						px[k] = pixels[((i*wg.h+y)*wg.w+x)*d:][:d]
					}
				}
				fn(&pt, &px)
				t++
			}
		}
	}
}

// gradTransform sets z[xi][t][ch] = (A dY A^T)[xi] for every tile t of
// imgs images and channel ch < d, dY the tile's 2x2 output gradients in
// dyt[pixel][d] (zero past the planes' edges), where A = [1 0; 1 1; 1 -1;
// 0 -1], in the SIMD module where it runs (gradSIMD).
func (wg *winograd) gradTransform(z, dyt []float32, imgs, d int) {
	if !gradSIMD(wg, z, dyt, imgs, d) {
		wg.gradTransformGo(z, dyt, imgs, d)
	}
}

// gradTransformGo is gradTransform in Go, its arithmetic along the
// channels.
func (wg *winograd) gradTransformGo(z, dyt []float32, imgs, d int) {
	zero := make([]float32, d) // the gradients past the edges
	wg.eachTile(imgs, d, z, dyt, zero, func(zt *[16][]float32, g *[4][]float32) {
		for ch := 0; ch < d; ch++ {
			g0, g1, g2, g3 := g[0][ch], g[1][ch], g[2][ch], g[3][ch]
			// e = A dY (4x2), then z = e A^T (4x4).
			e := [8]float32{g0, g1, g0 + g2, g1 + g3, g0 - g2, g1 - g3, -g2, -g3}
			for r := 0; r < 4; r++ {
				e0, e1 := e[2*r], e[2*r+1]
				zt[4*r][ch], zt[4*r+1][ch], zt[4*r+2][ch], zt[4*r+3][ch] = e0, e0+e1, e0-e1, -e1
			}
		}
	})
}

// winogradConv computes the convolution of w[co, ci, 3, 3] (the forward
// one, from ci to co channels, with the bias, nil for none) or with back
// set its backward one (from co to ci channels): out[N, d, h, w] from
// in[N, c, h, w], the groups of images shared out between the workers.
func (b *Backend) winogradConv(out, in, w, bias []float32, wg winograd, co, ci int, back bool) {
	c, d := ci, co
	if back {
		c, d = co, ci
	}
	u := b.scratch(16 * c * d)
	defer b.release(u)
	b.filterTransform(*u, w, co, ci, back)
	if b.winogradConvCalls(out, in, *u, bias, wg, c, d) {
		return
	}
	hw := wg.h * wg.w
	b.parallel(wg.groups(), 1, func(lo, hi int) {
		nt := wg.tiles(wg.group)
		planes, v := b.scratch(wg.group*wg.hp*wg.wp*c), b.scratch(16*pointLen(nt, c))
		m, yt := b.scratch(16*pointLen(nt, d)), b.scratch(wg.group*hw*d)
		defer b.release(planes)
		defer b.release(v)
		defer b.release(m)
		defer b.release(yt)
		for grp := lo; grp < hi; grp++ {
			n0, imgs := wg.images(grp)
			nt := wg.tiles(imgs)
			wg.frameChannelsLast(*planes, in, n0, imgs, c)
			wg.inputTransform(*v, *planes, imgs, c)
			for xi := 0; xi < 16; xi++ {
				gemm.Sgemm(false, false, nt, d, c, 1, (*v)[xi*pointLen(nt, c):], c, (*u)[xi*c*d:], d, 0, (*m)[xi*pointLen(nt, d):], d)
			}
			wg.outputTransform(*yt, *m, imgs, d)
			transposeImages(out[n0*d*hw:], *yt, imgs, hw, d, bias)
		}
	})
}

// winogradFilter computes dw[Co, Ci, 3, 3] = the sum over images of the
// filter gradients for the layout wg (made for filterParts groups): each
// of filterParts partial sums accumulates the products m[xi][co][ci] over
// a run of groups, the workers sharing out the partials; then one GEMM
// adds them and transforms the sums (G^T M G): dw[co,ci][tap] = sum over
// the partials p and points xi, in that order, of m_p[xi][co][ci] *
// winogradT[tap][xi].
func (b *Backend) winogradFilter(dw, dy, x []float32, wg winograd, ci, co int) {
	cc := ci * co
	parts := min(filterParts, wg.groups())
	acc := b.scratch(parts * 16 * cc)
	defer b.release(acc)
	if b.winogradFilterCalls(dw, *acc, dy, x, wg, ci, co, parts) {
		return
	}
	b.winogradFilterParts(*acc, dy, x, wg, ci, co, parts)
	gemm.Sgemm(true, false, cc, 9, parts*16, 1, *acc, cc, winogradSums[:parts*16*9], 9, 0, dw, 9)
}

// winogradFilterParts computes winogradFilter's partial sums into acc
// (parts of [16][co][ci]), the workers sharing out the parts.
func (b *Backend) winogradFilterParts(acc, dy, x []float32, wg winograd, ci, co, parts int) {
	hw, cc := wg.h*wg.w, ci*co
	b.parallel(parts, 1, func(lo, hi int) {
		nt := wg.tiles(wg.group)
		planes, v := b.scratch(wg.group*wg.hp*wg.wp*ci), b.scratch(16*pointLen(nt, ci))
		dyt, z := b.scratch(wg.group*hw*co), b.scratch(16*pointLen(nt, co))
		defer b.release(planes)
		defer b.release(v)
		defer b.release(dyt)
		defer b.release(z)
		for part := lo; part < hi; part++ {
			m := acc[part*16*cc:]
			beta := float32(0)
			for grp := part * wg.groups() / parts; grp < (part+1)*wg.groups()/parts; grp++ {
				n0, imgs := wg.images(grp)
				nt := wg.tiles(imgs)
				wg.frameChannelsLast(*planes, x, n0, imgs, ci)
				wg.inputTransform(*v, *planes, imgs, ci)
				transposeImages(*dyt, dy[n0*co*hw:], imgs, co, hw, nil)
				wg.gradTransform(*z, *dyt, imgs, co)
				for xi := 0; xi < 16; xi++ {
					gemm.Sgemm(true, false, co, ci, nt, 1, (*z)[xi*pointLen(nt, co):], co, (*v)[xi*pointLen(nt, ci):], ci, beta, m[xi*cc:], ci)
				}
				beta = 1
			}
		}
	})
}

// winogradSums is the transpose of winogradT, filterParts times one
// under the other: element (p*16+xi, tap) is winogradT[tap][xi].
var winogradSums = func() []float32 {
	s := make([]float32, filterParts*16*9)
	for k := 0; k < filterParts*16; k++ {
		for tap := 0; tap < 9; tap++ {
			s[k*9+tap] = winogradT[tap*16+k%16]
		}
	}
	return s
}()
