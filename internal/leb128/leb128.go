// Package leb128 encodes the variable-length integers of the WebAssembly
// binary format (LEB128), for the code that writes WebAssembly modules:
// the SIMD kernels' module (kernels/cpu/gemm/internal/wasmsimd) and the
// shared-memory build of the page (tools/sharedwasm).
package leb128

// AppendUnsigned appends the unsigned LEB128 encoding of v to b.
func AppendUnsigned(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendSigned appends the signed LEB128 encoding of v to b.
func AppendSigned(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
