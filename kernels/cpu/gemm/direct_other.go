//go:build !wasm

package gemm

// set2Rows sets row i of C to v[i*vi] times row 0 of b plus v[i*vi+vq]
// times row 1 (row stride ldb, n columns), plus bias when it is not nil,
// and applies epi to the row.
func set2Rows(m int, v []float32, vi, vq int, b []float32, ldb, n int, bias []float32, epi epilogue, c []float32, ldc int) {
	x, y := b[:n], b[ldb:ldb+n]
	for i := 0; i < m; i++ {
		z, f0, f1 := c[i*ldc:i*ldc+n], v[i*vi], v[i*vi+vq]
		j := 0
		if bias == nil {
			for ; j+unroll <= n; j += unroll {
				d, s, t := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll]
				d[0], d[1], d[2], d[3] = f0*s[0]+f1*t[0], f0*s[1]+f1*t[1], f0*s[2]+f1*t[2], f0*s[3]+f1*t[3]
				d[4], d[5], d[6], d[7] = f0*s[4]+f1*t[4], f0*s[5]+f1*t[5], f0*s[6]+f1*t[6], f0*s[7]+f1*t[7]
			}
			for ; j < n; j++ {
				z[j] = f0*x[j] + f1*y[j]
			}
			epi.row(i, z)
			continue
		}
		e := bias[:n]
		for ; j+unroll <= n; j += unroll {
			d, s, t, u := z[j:j+unroll:j+unroll], x[j:j+unroll:j+unroll], y[j:j+unroll:j+unroll], e[j:j+unroll:j+unroll]
			d[0], d[1], d[2], d[3] = f0*s[0]+f1*t[0]+u[0], f0*s[1]+f1*t[1]+u[1], f0*s[2]+f1*t[2]+u[2], f0*s[3]+f1*t[3]+u[3]
			d[4], d[5], d[6], d[7] = f0*s[4]+f1*t[4]+u[4], f0*s[5]+f1*t[5]+u[5], f0*s[6]+f1*t[6]+u[6], f0*s[7]+f1*t[7]+u[7]
		}
		for ; j < n; j++ {
			z[j] = f0*x[j] + f1*y[j] + e[j]
		}
		epi.row(i, z)
	}
}

// add4Rows adds v[i*vi+q*vq] times row q of b (row stride ldb, n columns)
// to row i of C for q = 0, 1, 2, 3 in turn.
func add4Rows(m int, v []float32, vi, vq int, b []float32, ldb, n int, c []float32, ldc int) {
	x0, x1, x2, x3 := b[:n], b[ldb:ldb+n], b[2*ldb:2*ldb+n], b[3*ldb:3*ldb+n]
	for i := 0; i < m; i++ {
		z := c[i*ldc : i*ldc+n]
		f0, f1, f2, f3 := v[i*vi], v[i*vi+vq], v[i*vi+2*vq], v[i*vi+3*vq]
		j := 0
		for ; j+unroll <= n; j += unroll {
			d := z[j : j+unroll : j+unroll]
			a, b, e, g := x0[j:j+unroll:j+unroll], x1[j:j+unroll:j+unroll], x2[j:j+unroll:j+unroll], x3[j:j+unroll:j+unroll]
			d[0] = d[0] + f0*a[0] + f1*b[0] + f2*e[0] + f3*g[0]
			d[1] = d[1] + f0*a[1] + f1*b[1] + f2*e[1] + f3*g[1]
			d[2] = d[2] + f0*a[2] + f1*b[2] + f2*e[2] + f3*g[2]
			d[3] = d[3] + f0*a[3] + f1*b[3] + f2*e[3] + f3*g[3]
			d[4] = d[4] + f0*a[4] + f1*b[4] + f2*e[4] + f3*g[4]
			d[5] = d[5] + f0*a[5] + f1*b[5] + f2*e[5] + f3*g[5]
			d[6] = d[6] + f0*a[6] + f1*b[6] + f2*e[6] + f3*g[6]
			d[7] = d[7] + f0*a[7] + f1*b[7] + f2*e[7] + f3*g[7]
		}
		for ; j < n; j++ {
			z[j] = z[j] + f0*x0[j] + f1*x1[j] + f2*x2[j] + f3*x3[j]
		}
	}
}

// dotRows computes C = epi(alpha*A*B^T + bias) (bias may be nil) for the
// m×k matrix A (row stride lda, k > 0) and the n×k matrix B (row stride
// ldb): element (i, j) of C is the dot product of rows i of A and j of B.
// It computes 2×2 blocks of C, so that four independent sums are in
// flight; an odd last row or column is computed twice over and written
// once. The epilogue goes over each pair of rows once they are done.
func dotRows(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, bias []float32, epi epilogue, c []float32, ldc int) {
	for i := 0; i < m; i += 2 {
		i1 := min(i+1, m-1)
		x0, x1 := a[i*lda:i*lda+k], a[i1*lda:i1*lda+k]
		z0, z1 := c[i*ldc:i*ldc+n], c[i1*ldc:i1*ldc+n]
		for j := 0; j < n; j += 2 {
			j1 := min(j+1, n-1)
			s00, s01, s10, s11 := dot4(x0, x1, b[j*ldb:j*ldb+k], b[j1*ldb:j1*ldb+k])
			s00, s01, s10, s11 = alpha*s00, alpha*s01, alpha*s10, alpha*s11
			if bias != nil {
				s00, s01, s10, s11 = s00+bias[j], s01+bias[j1], s10+bias[j], s11+bias[j1]
			}
			z1[j1], z1[j] = s11, s10
			z0[j1], z0[j] = s01, s00
		}
		epi.row(i, z0)
		if i1 != i {
			epi.row(i1, z1)
		}
	}
}

// dot4 returns the dot products of x0 and x1 with y0 and y1: sij is xi·yj.
func dot4(x0, x1, y0, y1 []float32) (s00, s01, s10, s11 float32) {
	x1, y0, y1 = x1[:len(x0)], y0[:len(x0)], y1[:len(x0)]
	p := 0
	for ; p+unroll/2 <= len(x0); p += unroll / 2 {
		a, b := x0[p:p+unroll/2:p+unroll/2], x1[p:p+unroll/2:p+unroll/2]
		c, d := y0[p:p+unroll/2:p+unroll/2], y1[p:p+unroll/2:p+unroll/2]
		s00 += a[0] * c[0]
		s01 += a[0] * d[0]
		s10 += b[0] * c[0]
		s11 += b[0] * d[0]
		s00 += a[1] * c[1]
		s01 += a[1] * d[1]
		s10 += b[1] * c[1]
		s11 += b[1] * d[1]
		s00 += a[2] * c[2]
		s01 += a[2] * d[2]
		s10 += b[2] * c[2]
		s11 += b[2] * d[2]
		s00 += a[3] * c[3]
		s01 += a[3] * d[3]
		s10 += b[3] * c[3]
		s11 += b[3] * d[3]
	}
	for ; p < len(x0); p++ {
		s00 += x0[p] * y0[p]
		s01 += x0[p] * y1[p]
		s10 += x1[p] * y0[p]
		s11 += x1[p] * y1[p]
	}
	return s00, s01, s10, s11
}

// columnSums sets s[j], for j < n, to the sum of column j of the m×n
// matrix A (row stride lda, m > 0), from zero, adding the rows in order,
// for eight columns at a time (independent sums), then one.
func columnSums(m, n int, a []float32, lda int, s []float32) {
	j := 0
	for ; j+unroll <= n; j += unroll {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for i := 0; i < m; i++ {
			r := a[i*lda+j : i*lda+j+unroll : i*lda+j+unroll]
			s0, s1, s2, s3 = s0+r[0], s1+r[1], s2+r[2], s3+r[3]
			s4, s5, s6, s7 = s4+r[4], s5+r[5], s6+r[6], s7+r[7]
		}
		t := s[j : j+unroll : j+unroll]
		t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; j < n; j++ {
		var t float32
		for i := 0; i < m; i++ {
			t += a[i*lda+j]
		}
		s[j] = t
	}
}
