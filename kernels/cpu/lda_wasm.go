package cpu

// rows sets delta[n,c], LDA's discriminants of z[n,d], with rowsGo's sums
// in WebAssembly assembly (lda_wasm.s).
func (p *ldaParts) rows(delta, z []float32, n int) {
	if n == 0 || p.c == 0 || p.d == 0 {
		p.rowsGo(delta, z, n)
		return
	}
	_, _ = delta[n*p.c-1], z[n*p.d-1]
	if p.d == 2 {
		ldaRows2Wasm(n, p.c, &z[0], &p.w.A[0], &p.m[0], &p.off[0], &delta[0])
	} else {
		ldaRowsWasm(n, p.c, p.d, &z[0], &p.w.A[0], &p.m[0], &p.off[0], &p.scratch[0], &delta[0])
	}
}

// backwardRows sets dz[n,d] and the sums over the rows, with
// backwardRowsGo's sums in WebAssembly assembly (lda_wasm.s).
func (p *ldaParts) backwardRows(dz, ddelta, z []float32, n int) {
	if n == 0 || p.c == 0 || p.d == 0 {
		p.backwardRowsGo(dz, ddelta, z, n)
		return
	}
	_, _, _ = dz[n*p.d-1], ddelta[n*p.c-1], z[n*p.d-1]
	if p.d == 2 {
		ldaBackwardRows2Wasm(n, p.c, &z[0], &ddelta[0], &p.w.A[0], &p.m[0], &dz[0], &p.colSum[0], &p.dm[0], &p.dA[0], &p.total)
	} else {
		ldaBackwardRowsWasm(n, p.c, p.d, &z[0], &ddelta[0], &p.w.A[0], &p.m[0], &p.scratch[0], &dz[0], &p.colSum[0], &p.dm[0], &p.dA[0], &p.total)
	}
}

//go:noescape
func ldaRowsWasm(n, c, d int, z, a, m, off, w, delta *float32)

//go:noescape
func ldaRows2Wasm(n, c int, z, a, m, off, delta *float32)

//go:noescape
func ldaBackwardRowsWasm(n, c, d int, z, ddelta, a, m, dw, dz, colSum, dm, dA, total *float32)

//go:noescape
func ldaBackwardRows2Wasm(n, c int, z, ddelta, a, m, dz, colSum, dm, dA, total *float32)
