// Package ref holds the plain-loop reference implementation of every
// operation in package kernels, generic over float32 and float64.
//
// It is written to be read and trusted, not to be fast: it is the oracle that
// every backend is tested against, and its float64 instantiation is the one
// checked against finite differences. Each op family has its file, named as
// its shader in package shaders (matmul, conv, batchnorm, elementwise, pool,
// head, loss, adam). Functions take row-major slices and their dimensions;
// they panic (with a "ref:" prefix) on slices that are too short.
package ref

import (
	"fmt"
	"math"
)

// Float is the element type of the reference operations.
type Float interface{ ~float32 | ~float64 }

func need[T any](op string, s []T, n int) {
	if len(s) < n {
		panic(fmt.Sprintf("ref: %s: slice of length %d, need %d", op, len(s), n))
	}
}

func exp[T Float](x T) T  { return T(math.Exp(float64(x))) }
func log[T Float](x T) T  { return T(math.Log(float64(x))) }
func sqrt[T Float](x T) T { return T(math.Sqrt(float64(x))) }
