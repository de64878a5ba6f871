//go:build !wasm

package cpu

import "github.com/deeplda/deeplda/kernels/cpu/gemm"

// relu computes y = max(x, 0) as ref.ReLU does, with gemm.ReLU (the rule
// of MatMulReLU's epilogue; without branches on amd64).
func relu(y, x []float32) { gemm.ReLU(y, x) }

// reluBackward computes dx = dy where y > 0 as ref.ReLUBackward does, with
// gemm.ReLUBackward (the rule of MatMulMasked's epilogue).
func reluBackward(dx, dy, y []float32) { gemm.ReLUBackward(dx, dy, y) }
