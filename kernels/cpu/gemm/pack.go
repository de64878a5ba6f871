package gemm

// packA copies the mb×kb block of op(A) that starts at row i0, column p0
// into dst as a sequence of micro-panels of mr rows. Within a micro-panel
// the mr values of one column are adjacent, so element (i, p) of the block
// lands at dst[(i/mr)*mr*kb + p*mr + i%mr]. Rows past mb in the last
// micro-panel are zero-filled.
//
// op(A) is A (m×k, row stride lda) when transA is false and the transpose
// of A (k×m, row stride lda) when it is true.
func packA(dst []float32, transA bool, a []float32, lda, i0, p0, mb, kb, mr int) {
	if transA {
		// Column p of the block is row p0+p of a.
		packRowPanels(dst, a[p0*lda+i0:], lda, mb, mr, kb)
		return
	}
	// Row i of the block is row i0+i of a.
	for ir := colPanels(dst, a[i0*lda+p0:], lda, mr, kb, mb/mr) * mr; ir < mb; ir += mr {
		packCols(dst[ir*kb:ir*kb+mr*kb], a[(i0+ir)*lda+p0:], lda, min(mr, mb-ir), mr, kb)
	}
}

// packB copies the kb×nb block of op(B) that starts at row p0, column j0
// into dst as a sequence of micro-panels of nr columns. Within a micro-panel
// the nr values of one row are adjacent, so element (p, j) of the block lands
// at dst[(j/nr)*nr*kb + p*nr + j%nr]. Columns past nb in the last
// micro-panel are zero-filled.
//
// op(B) is B (k×n, row stride ldb) when transB is false and the transpose
// of B (n×k, row stride ldb) when it is true.
func packB(dst []float32, transB bool, b []float32, ldb, p0, j0, kb, nb, nr int) {
	if !transB {
		// Row p of the block is row p0+p of b.
		packRowPanels(dst, b[p0*ldb+j0:], ldb, nb, nr, kb)
		return
	}
	// Column j of the block is row j0+j of b.
	for jr := colPanels(dst, b[j0*ldb+p0:], ldb, nr, kb, nb/nr) * nr; jr < nb; jr += nr {
		packCols(dst[jr*kb:jr*kb+nr*kb], b[(j0+jr)*ldb+p0:], ldb, min(nr, nb-jr), nr, kb)
	}
}

// packRowPanels copies kb rows of n contiguous values, src[p*lds : p*lds+n]
// for p < kb, into dst as a sequence of micro-panels of w columns, the last
// one zero-filled (see packRows): column j of row p lands at
// dst[(j/w)*w*kb + p*w + j%w]. Where copyPanels has a fast path, it copies
// the whole micro-panels in one go.
func packRowPanels(dst, src []float32, lds, n, w, kb int) {
	jr := copyPanels(dst, src, lds, w, kb, n/w) * w
	for ; jr < n; jr += w {
		packRows(dst[jr*kb:jr*kb+w*kb], src[jr:], lds, min(w, n-jr), w, kb)
	}
}

// packRows copies kb rows of n contiguous values, src[p*lds : p*lds+n] for
// p < kb, into dst with row stride w, zero-filling columns n..w-1:
//
//	dst[p*w+j] = src[p*lds+j]  for j < n
//	dst[p*w+j] = 0             for n <= j < w
func packRows(dst, src []float32, lds, n, w, kb int) {
	dst = dst[:kb*w]
	if n == w && copyRows(dst, src, lds, w, kb) {
		return
	}
	for p := 0; p < kb; p++ {
		d := dst[p*w : p*w+w]
		s := src[p*lds : p*lds+n]
		if n <= 8 {
			// Too short to be worth a call to copy.
			for j, v := range s {
				d[j] = v
			}
		} else {
			copy(d, s)
		}
		if n < w {
			clear(d[n:])
		}
	}
}

// packCols transposes n rows of kb contiguous values, src[r*lds : r*lds+kb]
// for r < n, into dst with row stride w, zero-filling columns n..w-1:
//
//	dst[p*w+r] = src[r*lds+p]  for r < n
//	dst[p*w+r] = 0             for n <= r < w
func packCols(dst, src []float32, lds, n, w, kb int) {
	dst = dst[:kb*w]
	r := 0
	for ; r+4 <= n; r += 4 {
		transpose4(dst[r:], w, src[r*lds:], lds, kb)
	}
	for ; r < n; r++ {
		s := src[r*lds : r*lds+kb]
		for p, v := range s {
			dst[p*w+r] = v
		}
	}
	if n < w {
		for p := 0; p < kb; p++ {
			clear(dst[p*w+n : p*w+w])
		}
	}
}

// transpose4Go is the portable form of transpose4: it transposes four rows
// of kb values (row stride lds) into kb rows of four values (row stride
// ldd):
//
//	dst[p*ldd+r] = src[r*lds+p]  for r < 4, p < kb
func transpose4Go(dst []float32, ldd int, src []float32, lds, kb int) {
	s0 := src[:kb]
	s1 := src[lds : lds+kb]
	s2 := src[2*lds : 2*lds+kb]
	s3 := src[3*lds : 3*lds+kb]
	for p := range s0 {
		d := dst[p*ldd : p*ldd+4 : p*ldd+4]
		d[0], d[1], d[2], d[3] = s0[p], s1[p], s2[p], s3[p]
	}
}
