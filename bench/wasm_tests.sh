# bench/wasm_tests.sh, sourced by the scripts that run a package's tests
# compiled to WebAssembly under Node.js beside the native ones.

# wasm_tests PACKAGE NAME: builds $tmp/NAME.wasm and $tmp/NAME.test from
# PACKAGE (the caller's $tmp a directory) and sets wasmexec (Go's
# wasm_exec for Node.js) and relaxed (the flag that switches on relaxed
# SIMD, behind a flag in Node.js 20 and on by default later; empty where
# node takes none).
wasm_tests() {
	command -v node >/dev/null || { echo "$0: Node.js (node) is needed" >&2; exit 1; }
	GOOS=js GOARCH=wasm go test -c -o "$tmp/$2.wasm" "$1"
	go test -c -o "$tmp/$2.test" "$1"
	wasmexec="$(go env GOROOT)/lib/wasm/wasm_exec_node.js"
	relaxed=""
	if node --experimental-wasm-relaxed-simd -e 0 2>/dev/null; then
		relaxed=--experimental-wasm-relaxed-simd
	fi
}
