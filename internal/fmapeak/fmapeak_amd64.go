package fmapeak

import "golang.org/x/sys/cpu"

// available reports whether the processor has FMA.
func available() bool { return cpu.X86.HasAVX && cpu.X86.HasFMA }

// loop runs n iterations of chains independent 128-bit multiply-adds.
//
//go:noescape
func loop(n int)
