package ref

// MaxPool2 computes the 2x2 stride-2 max pool of x[nc,h,w] (floor mode).
func MaxPool2[T Float](y, x []T, nc, h, w int) {
	ho, wo := h/2, w/2
	for p := 0; p < nc; p++ {
		for i := 0; i < ho; i++ {
			for j := 0; j < wo; j++ {
				_, v := argmax2(x, p, h, w, i, j)
				y[(p*ho+i)*wo+j] = v
			}
		}
	}
}

// argmax2 returns the index and value of the first maximum of a 2x2 window.
func argmax2[T Float](x []T, p, h, w, i, j int) (int, T) {
	base := (p*h+2*i)*w + 2*j
	best := base
	for _, d := range [3]int{1, w, w + 1} {
		if x[base+d] > x[best] {
			best = base + d
		}
	}
	return best, x[best]
}

// MaxPool2Backward routes dy to the first maximum of each window of x.
func MaxPool2Backward[T Float](dx, dy, x []T, nc, h, w int) {
	ho, wo := h/2, w/2
	clear(dx[:nc*h*w])
	for p := 0; p < nc; p++ {
		for i := 0; i < ho; i++ {
			for j := 0; j < wo; j++ {
				k, _ := argmax2(x, p, h, w, i, j)
				dx[k] += dy[(p*ho+i)*wo+j]
			}
		}
	}
}

// GlobalAvgPool computes y[p] as the mean of x[p, 0:hw].
func GlobalAvgPool[T Float](y, x []T, nc, hw int) {
	for p := 0; p < nc; p++ {
		var s T
		for _, v := range x[p*hw : (p+1)*hw] {
			s += v
		}
		y[p] = s / T(hw)
	}
}

// GlobalAvgPoolBackward spreads dy[p] evenly over dx[p, 0:hw].
func GlobalAvgPoolBackward[T Float](dx, dy []T, nc, hw int) {
	for p := 0; p < nc; p++ {
		g := dy[p] / T(hw)
		for i := p * hw; i < (p+1)*hw; i++ {
			dx[i] = g
		}
	}
}
