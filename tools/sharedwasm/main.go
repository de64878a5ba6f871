// Command sharedwasm rewrites a WebAssembly binary built by
// GOOS=js GOARCH=wasm go build so that it runs on a shared memory that the
// page creates and passes in, which Web Workers can then read and write in
// place:
//
//	go run ./tools/sharedwasm IN OUT
//
// Go's linker always defines the module's own, non-shared memory. The copy
// written to OUT has that memory section removed and, appended to the
// import section, the import of a shared memory: module "env", name "mem",
// minimum the original minimum, maximum maxPages (4 GiB). Everything else
// is byte-identical: the export "mem" still names memory index 0, which is
// now the imported one, and function indices do not move since only a
// memory is imported. A custom section named "deeplda-memory" appended at
// the end holds the minimum, in pages, as a little-endian uint32, so that
// the page can create a memory of the right initial size:
//
//	const [sec] = WebAssembly.Module.customSections(module, 'deeplda-memory');
//	const initial = new DataView(sec).getUint32(0, true);
//	go.importObject.env = {mem: new WebAssembly.Memory({initial, maximum: 65536, shared: true})};
//
// It fails on a binary that defines no memory or several, or that already
// imports one.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/deeplda/deeplda/internal/leb128"
)

// maxPages is the maximum of the imported shared memory, in 64 KiB pages:
// 4 GiB, all that wasm32 addresses. A shared memory needs a maximum; the
// page must create its memory with this same maximum.
const maxPages = 65536

// customName names the custom section that holds the minimum pages.
const customName = "deeplda-memory"

// The sections this command reads or writes, by id.
const (
	idCustom = 0
	idType   = 1
	idImport = 2
	idMemory = 5
	lastID   = 12 // the data count section, the highest id
)

// The kinds of import entries.
const (
	kindFunc   = 0x00
	kindTable  = 0x01
	kindMemory = 0x02
	kindGlobal = 0x03
	kindTag    = 0x04
)

// header is the magic number and version 1 that begin every binary.
var header = []byte("\x00asm\x01\x00\x00\x00")

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sharedwasm:", err)
		os.Exit(1)
	}
}

// run reads the binary args[0] and writes its shared-memory copy to args[1].
func run(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: go run ./tools/sharedwasm IN OUT")
	}
	in, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	out, err := rewrite(in)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	return os.WriteFile(args[1], out, 0o644)
}

// section is one section of a binary: its id, its payload (the bytes
// after the size) and all its bytes as they were read (the size may be
// padded, as Go's linker writes it).
type section struct {
	id           byte
	payload, raw []byte
}

// encode returns a new section with the id and the payload.
func encode(id byte, payload []byte) []byte {
	b := leb128.AppendUnsigned([]byte{id}, uint64(len(payload)))
	return append(b, payload...)
}

// parse splits a binary into its sections. Each non-custom section may
// appear once.
func parse(b []byte) ([]section, error) {
	if !bytes.HasPrefix(b, header) {
		return nil, errors.New("not a WebAssembly binary (version 1)")
	}
	r := &reader{b: b, off: len(header)}
	var secs []section
	seen := map[byte]bool{}
	for r.off < len(b) {
		at := r.off
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		if id > lastID {
			return nil, fmt.Errorf("unknown section id %d at offset %d", id, at)
		}
		if id != idCustom && seen[id] {
			return nil, fmt.Errorf("section id %d appears twice (second at offset %d)", id, at)
		}
		seen[id] = true
		payload, err := r.bytes()
		if err != nil {
			return nil, fmt.Errorf("section id %d at offset %d: %w", id, at, err)
		}
		secs = append(secs, section{id, payload, b[at:r.off]})
	}
	return secs, nil
}

// rewrite returns the shared-memory copy of the binary b (see the package
// comment).
func rewrite(b []byte) ([]byte, error) {
	secs, err := parse(b)
	if err != nil {
		return nil, err
	}
	mem, imp := -1, -1
	for i, s := range secs {
		switch s.id {
		case idMemory:
			mem = i
		case idImport:
			imp = i
		}
	}
	var n uint32 // the imports, and their entries' bytes
	var entries []byte
	if imp >= 0 {
		if n, entries, err = importEntries(secs[imp].payload); err != nil {
			return nil, err
		}
	}
	if mem < 0 {
		return nil, errors.New("the module defines no memory")
	}
	minPages, err := memoryMinimum(secs[mem].payload)
	if err != nil {
		return nil, err
	}
	imports := leb128.AppendUnsigned(nil, uint64(n)+1)
	imports = append(imports, entries...)
	imports = appendName(imports, "env")
	imports = appendName(imports, "mem")
	imports = append(imports, kindMemory, 0x03) // limits: has a maximum, shared
	imports = leb128.AppendUnsigned(imports, uint64(minPages))
	imports = leb128.AppendUnsigned(imports, maxPages)
	out := append([]byte(nil), header...)
	added := false
	for i, s := range secs {
		// The new import section replaces the old one or, when there is
		// none, goes before the first section that must follow it (the
		// memory section at the latest).
		if !added && (i == imp || imp < 0 && s.id != idCustom && s.id != idType) {
			out = append(out, encode(idImport, imports)...)
			added = true
		}
		if i != imp && i != mem {
			out = append(out, s.raw...)
		}
	}
	custom := appendName(nil, customName)
	custom = binary.LittleEndian.AppendUint32(custom, minPages)
	return append(out, encode(idCustom, custom)...), nil
}

// memoryMinimum returns the minimum pages of the memory section payload p,
// which must define exactly one memory.
func memoryMinimum(p []byte) (uint32, error) {
	r := &reader{b: p}
	n, err := r.u32()
	if err != nil {
		return 0, fmt.Errorf("memory section: %w", err)
	}
	if n != 1 {
		return 0, fmt.Errorf("the module defines %d memories, want 1", n)
	}
	flags, minPages, err := r.limits()
	if err != nil {
		return 0, fmt.Errorf("memory section: %w", err)
	}
	if flags > 1 {
		return 0, fmt.Errorf("memory section: limits flags %#x, want 0 or 1 (an unshared 32-bit memory)", flags)
	}
	if r.off != len(p) {
		return 0, fmt.Errorf("memory section: %d bytes left over", len(p)-r.off)
	}
	if minPages > maxPages {
		return 0, fmt.Errorf("the memory's minimum of %d pages is over %d", minPages, maxPages)
	}
	return minPages, nil
}

// importEntries returns the number of entries of the import section
// payload p and their bytes. It fails when one of them imports a memory.
func importEntries(p []byte) (uint32, []byte, error) {
	r := &reader{b: p}
	n, err := r.u32()
	if err != nil {
		return 0, nil, fmt.Errorf("import section: %w", err)
	}
	entries := r.off
	for i := range n {
		module, err := r.bytes()
		if err != nil {
			return 0, nil, fmt.Errorf("import %d: %w", i, err)
		}
		name, err := r.bytes()
		if err != nil {
			return 0, nil, fmt.Errorf("import %d: %w", i, err)
		}
		kind, err := r.byte()
		if err != nil {
			return 0, nil, fmt.Errorf("import %d: %w", i, err)
		}
		switch kind {
		case kindFunc:
			_, err = r.u32()
		case kindTable:
			if err = r.valueType(); err == nil {
				_, _, err = r.limits()
			}
		case kindMemory:
			return 0, nil, fmt.Errorf("the module already imports a memory (%s.%s)", module, name)
		case kindGlobal:
			if err = r.valueType(); err == nil {
				_, err = r.byte() // mutability
			}
		case kindTag:
			if _, err = r.byte(); err == nil {
				_, err = r.u32()
			}
		default:
			err = fmt.Errorf("unknown kind %#x", kind)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("import %d (%s.%s): %w", i, module, name, err)
		}
	}
	if r.off != len(p) {
		return 0, nil, fmt.Errorf("import section: %d bytes left over", len(p)-r.off)
	}
	return n, p[entries:], nil
}

// reader reads the binary encoding from b at off.
type reader struct {
	b   []byte
	off int
}

// errShort reports a binary that ends in the middle of something.
var errShort = errors.New("unexpected end of the binary")

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errShort
	}
	r.off++
	return r.b[r.off-1], nil
}

// skip returns the next n bytes.
func (r *reader) skip(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, errShort
	}
	r.off += n
	return r.b[r.off-n : r.off], nil
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) u32() (uint32, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, errors.New("LEB128 number over 32 bits")
			}
			return uint32(v), nil
		}
	}
	return 0, errors.New("LEB128 number longer than 5 bytes")
}

// bytes reads a vector of bytes: its length, then the bytes (a name, or a
// section's payload).
func (r *reader) bytes() ([]byte, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	return r.skip(int(n))
}

// valueType reads a one-byte value type: a number, a vector or a
// reference type (funcref, externref); the typed references of the GC
// proposal are not supported.
func (r *reader) valueType() error {
	t, err := r.byte()
	if err != nil {
		return err
	}
	switch t {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f: // i32 i64 f32 f64 v128 funcref externref
		return nil
	}
	return fmt.Errorf("value type %#x not supported", t)
}

// limits reads the limits of a memory or table: the flags and the
// minimum, skipping the maximum when there is one.
func (r *reader) limits() (flags byte, minimum uint32, err error) {
	if flags, err = r.byte(); err != nil {
		return 0, 0, err
	}
	if flags > 3 {
		return 0, 0, fmt.Errorf("limits flags %#x (a 64-bit memory?) not supported", flags)
	}
	if minimum, err = r.u32(); err != nil {
		return 0, 0, err
	}
	if flags&1 != 0 {
		_, err = r.u32()
	}
	return flags, minimum, err
}

// appendName appends a name: its length, then its bytes.
func appendName(b []byte, name string) []byte {
	return append(leb128.AppendUnsigned(b, uint64(len(name))), name...)
}
