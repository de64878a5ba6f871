//go:build linux

package gemm

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// cpuTime returns the best per-call thread CPU time of f over several rounds.
func cpuTime(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	best := time.Duration(1 << 62)
	for r := 0; r < 7; r++ {
		n := 0
		t0 := threadCPU()
		for {
			f()
			n++
			if d := threadCPU() - t0; d > 20*time.Millisecond {
				best = min(best, d/time.Duration(n))
				break
			}
		}
	}
	return best
}

func TestTune(t *testing.T) {
	if testing.Short() || !testing.Verbose() {
		t.Skip()
	}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	for _, s := range benchShapes {
		ar, ac := s.m, s.k
		if s.transA {
			ar, ac = s.k, s.m
		}
		br, bc := s.k, s.n
		if s.transB {
			br, bc = s.n, s.k
		}
		a := make([]float32, ar*ac)
		bb := make([]float32, br*bc)
		c := make([]float32, s.m*s.n)
		d := cpuTime(func() { Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, ac, bb, bc, 0, c, s.n) })
		fl := 2 * float64(s.m*s.n*s.k)
		fmt.Printf("%-28s %10.2fus %8.1f GF/s\n", s.name, float64(d)/1e3, fl/float64(d))
	}
	const kb = 256
	for _, mr := range []int{12, 6} {
		for _, trans := range []bool{false, true} {
			const mb = 144
			a := make([]float32, 1024*1024)
			dst := make([]float32, mb*kb)
			d := cpuTime(func() { packA(dst, trans, a, 1024, 0, 0, mb, kb, mr) })
			fmt.Printf("packA mr=%d trans=%v %.3f ns/elem\n", mr, trans, float64(d)/float64(mb*kb))
		}
	}
	for _, nr := range []int{32, 16} {
		for _, trans := range []bool{false, true} {
			const nb = 1024
			bb := make([]float32, 1024*1024)
			dst := make([]float32, nb*kb)
			d := cpuTime(func() { packB(dst, trans, bb, 1024, 0, 0, kb, nb, nr) })
			fmt.Printf("packB nr=%d trans=%v %.3f ns/elem\n", nr, trans, float64(d)/float64(nb*kb))
		}
	}
}

func TestTuneBlocks(t *testing.T) {
	if testing.Short() || !testing.Verbose() {
		t.Skip()
	}
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	kern := activeKernel
	okc, omc := kern.kc, kern.mc
	defer func() { kern.kc, kern.mc = okc, omc }()
	shapes := []benchShape{benchShapes[3], benchShapes[4], benchShapes[5], benchShapes[6], benchShapes[8], benchShapes[11], benchShapes[13]}
	for _, kc := range []int{128, 192, 256, 384, 512} {
		for _, mc := range []int{48, 96, 144, 192, 288} {
			kern.kc, kern.mc = kc, mc
			fmt.Printf("kc=%3d mc=%3d:", kc, mc)
			for _, s := range shapes {
				ar, ac := s.m, s.k
				if s.transA {
					ar, ac = s.k, s.m
				}
				br, bc := s.k, s.n
				if s.transB {
					br, bc = s.n, s.k
				}
				a := make([]float32, ar*ac)
				bb := make([]float32, br*bc)
				c := make([]float32, s.m*s.n)
				d := cpuTime(func() { Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, ac, bb, bc, 0, c, s.n) })
				fmt.Printf(" %6.1f", 2*float64(s.m*s.n*s.k)/float64(d))
			}
			fmt.Println()
		}
	}
}
