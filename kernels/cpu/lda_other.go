//go:build !wasm

package cpu

// rows sets delta[n,c], LDA's discriminants of z[n,d] (rowsGo).
func (p *ldaParts) rows(delta, z []float32, n int) { p.rowsGo(delta, z, n) }

// backwardRows sets dz[n,d] and the sums over the rows (backwardRowsGo).
func (p *ldaParts) backwardRows(dz, ddelta, z []float32, n int) { p.backwardRowsGo(dz, ddelta, z, n) }
