//go:build !cgo

package main

import "github.com/deeplda/deeplda/kernels"

// errNoAdapter is the error of openWebGPU when there is no adapter; a
// build without cgo has no WebGPU at all (errNoWebGPU).
var errNoAdapter = errNoWebGPU

// openWebGPU returns errNoWebGPU: wgpu-native needs cgo.
func openWebGPU() (b kernels.Backend, software bool, err error) {
	return nil, false, errNoWebGPU
}
