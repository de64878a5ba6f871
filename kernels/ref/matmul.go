package ref

// MatMul computes c[m,n] = op(a) op(b) (+ bias[n] per row when bias is not
// nil), where op(a) is m×k (a is k×m when transA) and op(b) is k×n (b is n×k
// when transB).
func MatMul[T Float](c, a, b, bias []T, m, n, k int, transA, transB bool) {
	need("MatMul", c, m*n)
	need("MatMul", a, m*k)
	need("MatMul", b, k*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for p := 0; p < k; p++ {
				av := a[i*k+p]
				if transA {
					av = a[p*m+i]
				}
				bv := b[p*n+j]
				if transB {
					bv = b[j*k+p]
				}
				s += av * bv
			}
			if bias != nil {
				s += bias[j]
			}
			c[i*n+j] = s
		}
	}
}

// BiasGrad computes db[c] = sum over o and i of dy[o, c, i] for dy of shape
// [outer, ch, inner].
func BiasGrad[T Float](db, dy []T, outer, ch, inner int) {
	need("BiasGrad", dy, outer*ch*inner)
	for c := 0; c < ch; c++ {
		var s T
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				s += dy[(o*ch+c)*inner+i]
			}
		}
		db[c] = s
	}
}
