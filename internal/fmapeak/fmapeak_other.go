//go:build !amd64

package fmapeak

// available reports false: the loop is amd64 assembly.
func available() bool { return false }

// loop is not called where available is false.
func loop(n int) {}
