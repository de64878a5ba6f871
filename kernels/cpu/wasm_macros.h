// Macros for this package's WebAssembly assembly (relu_wasm.s, lda_wasm.s,
// loss_wasm.s): the scaffolding of WebAssembly's structured loops, which the
// browser compiles to plain machine loops, and pointer arithmetic on the
// registers. Registers hold 64-bit integers; addresses are their low 32 bits.

// ADVANCE(r, bytes) adds the constant bytes to register r.
#define ADVANCE(r, bytes) Get r; I64Const $bytes; I64Add; Set r

// ADD(r, s) adds register s to register r.
#define ADD(r, s) Get r; Get s; I64Add; Set r

// BYTES(r) turns the count of floats in register r into bytes (times 4).
#define BYTES(r) Get r; I64Const $2; I64Shl; Set r

// AT(base, off) pushes the address base+off (registers) for a load or store.
#define AT(base, off) Get base; Get off; I64Add; I32WrapI64

// LOAD(r, off) pushes the float at byte off (a constant) from the address
// in register r; STORE(r, off, f) stores float register f there.
#define LOAD(r, off) Get r; I32WrapI64; F32Load $off
#define STORE(r, off, f) Get r; I32WrapI64; Get f; F32Store $off

// UPDATE(base, i, off, op, f) sets the float at byte off from base+i to it
// op f (op: F32Add or F32Sub; base, i registers, f a float register).
#define UPDATE(base, i, off, op, f) AT(base, i); AT(base, i); F32Load $off; Get f; op; F32Store $off

// LOOP_WHILE(left, k) opens a loop that runs while register left holds at
// least k elements; END_LOOP(left, k) counts k off and closes it.
#define LOOP_WHILE(left, k) Block; Loop; Get left; I64Const $k; I64LtU; BrIf $1
#define END_LOOP(left, k) Get left; I64Const $k; I64Sub; Set left; Br $0; End; End

// ROWS(left) opens a loop over the rows while register left is not zero;
// END_ROWS(left) counts one row off and closes it.
#define ROWS(left) Block; Loop; Get left; I64Eqz; BrIf $1
#define END_ROWS(left) END_LOOP(left, 1)

// FOR(i, end) opens a loop over i = 0, step, ... while i is below register
// end; NEXT(i, step) steps i by the constant step and closes it.
#define FOR(i, end) I64Const $0; Set i; Block; Loop; Get i; Get end; I64GeU; BrIf $1
#define NEXT(i, step) ADVANCE(i, step); Br $0; End; End
