package train

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// pcg is math/rand/v2's PCG generator bit for bit (PCG-DXSM with 128 bits
// of state: the same draws and the same MarshalBinary bytes as a rand.PCG
// with the same state), as a type of this package so that permInto can run
// it in WebAssembly assembly. It implements rand.Source.
type pcg struct {
	hi, lo uint64
}

// newPCG returns a generator in the state of rand.NewPCG(seed1, seed2).
func newPCG(seed1, seed2 uint64) *pcg { return &pcg{seed1, seed2} }

// The constants of rand.PCG: state = state*mul + inc (128-bit), and the
// DXSM output's multiplier.
const (
	pcgMulHi    = 2549297995355413924
	pcgMulLo    = 4865540595714422341
	pcgIncHi    = 6364136223846793005
	pcgIncLo    = 1442695040888963407
	pcgCheapMul = 0xda942042e4dd58b5
)

// Uint64 advances the state and returns its DXSM output, as rand.PCG.Uint64.
func (p *pcg) Uint64() uint64 {
	hi, lo := bits.Mul64(p.lo, pcgMulLo)
	hi += p.hi*pcgMulLo + p.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	p.lo, p.hi = lo, hi
	hi ^= hi >> 32
	hi *= pcgCheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// MarshalBinary returns the state in rand.PCG's encoding: "pcg:", then hi
// and lo big-endian.
func (p *pcg) MarshalBinary() ([]byte, error) {
	b := append(make([]byte, 0, 20), "pcg:"...)
	b = binary.BigEndian.AppendUint64(b, p.hi)
	return binary.BigEndian.AppendUint64(b, p.lo), nil
}

// UnmarshalBinary sets the state from rand.PCG's encoding (see
// MarshalBinary).
func (p *pcg) UnmarshalBinary(data []byte) error {
	if len(data) != 20 || string(data[:4]) != "pcg:" {
		return errors.New("invalid PCG encoding")
	}
	p.hi = binary.BigEndian.Uint64(data[4:])
	p.lo = binary.BigEndian.Uint64(data[12:])
	return nil
}
