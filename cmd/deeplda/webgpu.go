//go:build cgo

package main

import (
	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/webgpu"
)

// errNoAdapter is the error of openWebGPU when there is no adapter.
var errNoAdapter = webgpu.ErrNoAdapter

// openWebGPU opens the WebGPU backend (webgpu.New) and says whether its
// adapter runs on the CPU.
func openWebGPU() (b kernels.Backend, software bool, err error) {
	gpu, err := webgpu.New()
	if err != nil {
		return nil, false, err
	}
	return gpu, gpu.Software(), nil
}
