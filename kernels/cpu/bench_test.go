package cpu_test

import (
	"testing"

	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/kernels/kerneltest"
)

func BenchmarkMatMul(b *testing.B) { kerneltest.BenchMatMul(b, cpu.New()) }
func BenchmarkConv(b *testing.B)   { kerneltest.BenchConv(b, cpu.New()) }
