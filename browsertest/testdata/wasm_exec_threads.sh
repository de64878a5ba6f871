#!/usr/bin/env bash
# wasm_exec_threads.sh runs a Go program for js/wasm (a test binary, as go
# test -exec runs it) under Node.js on THREADS threads, as a cross-origin
# isolated page runs the site's app-threads.wasm: tools/sharedwasm
# writes a copy of it on a shared memory, which wasm_exec_threads.js runs.
#
#	wasm_exec_threads.sh THREADS PROGRAM.wasm [ARGS...]
#
# With WebAssembly's relaxed SIMD switched on where Node.js has it behind a
# flag (Node.js 20), as Chromium has it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
threads=$1 program=$2
shift 2
shared=$(mktemp --suffix=.wasm)
trap 'rm -f "$shared"' EXIT
(cd "$here/../.." && env -u GOOS -u GOARCH go run ./tools/sharedwasm "$program" "$shared")
flags=(--stack-size=8192)
if node --experimental-wasm-relaxed-simd -e 0 2>/dev/null; then
	flags+=(--experimental-wasm-relaxed-simd)
fi
node "${flags[@]}" "$here/wasm_exec_threads.js" "$(go env GOROOT)/lib/wasm" "$threads" "$shared" "$@"
