#!/usr/bin/env bash
# bench/wasm_threads.sh: the ConvNet training step at batch 64 on the CPU
# backend compiled to WebAssembly, under Node.js on a shared memory, on 1,
# 2, 4 and 8 threads of the SIMD module (its most): how the threads scale
# on a machine of many cores, which may have neither Go nor Node.js.
#
#   bench/wasm_threads.sh build DIR
#       (with Go and Node.js) builds into DIR what the run needs:
#       experiment's test binary for js/wasm on a shared memory
#       (tools/sharedwasm), Go's wasm_exec.js, this Node.js (xz), and
#       the commit's name.
#   bench/wasm_threads.sh run DIR OUT [ROUNDS]
#       (in the repository) runs experiment's BenchmarkConvNetStep/batch64
#       on each number of threads, ROUNDS times (default 3) in turn, with
#       DIR's Node.js (or node on the PATH), and writes into OUT
#       node-threads.txt (the benchmark's lines, each after a line "round R
#       threads T"), cpu.txt (lscpu) and commit.
#
# go run ./cmd/results BENCHMARKS.md makes the table of OUT's figures
# (copied to bench/results/wasm-threads): images/s by threads, the
# medians' speedup over one thread, the serial fraction, and Amdahl's
# law's speedups from the serial fraction on two threads.
#
# THREADS (default "1 2 4 8") and STEPS (the benchmark's steps, default 8)
# change the run.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

build() {
	local dir=$1
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	GOOS=js GOARCH=wasm go test -c -trimpath -o "$dir/plain.wasm" ./experiment
	go run ./tools/sharedwasm "$dir/plain.wasm" "$dir/experiment.wasm"
	rm "$dir/plain.wasm"
	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$dir/"
	xz -T0 -f "$dir/experiment.wasm"
	xz -T0 -c "$(command -v node)" >"$dir/node.xz"
	git describe --always --dirty >"$dir/commit"
}

run() {
	local dir out rounds=${3:-3} node
	dir=$(cd "$1" && pwd)
	mkdir -p "$2"
	out=$(cd "$2" && pwd)
	node=$(command -v node || true)
	if [ -f "$dir/node.xz" ]; then
		node=$(mktemp -d)/node
		xz -dc "$dir/node.xz" >"$node"
		chmod +x "$node"
	fi
	[ -n "$node" ] || { echo "bench/wasm_threads.sh: no Node.js (node) on the PATH or in $dir" >&2; exit 1; }
	xz -dkf "$dir/experiment.wasm.xz"
	cp "$dir/commit" "$out/commit"
	lscpu >"$out/cpu.txt" 2>&1 || true
	: >"$out/node-threads.txt"
	for r in $(seq "$rounds"); do
		for t in ${THREADS:-1 2 4 8}; do
			echo "round $r threads $t" | tee -a "$out/node-threads.txt"
			(cd experiment && "$node" --experimental-wasm-relaxed-simd --stack-size=8192 \
				../browsertest/testdata/wasm_exec_threads.js "$dir" "$t" "$dir/experiment.wasm" \
				-test.run '^$' -test.bench 'ConvNetStep/batch64$' -test.benchtime "${STEPS:-8}x") |
				grep '^BenchmarkConvNetStep' | tee -a "$out/node-threads.txt"
		done
	done
}

case "${1:-}" in
build) [ $# -eq 2 ] || usage; build "$2" ;;
run) [ $# -ge 3 ] || usage; run "$2" "$3" "${4:-3}" ;;
*) usage ;;
esac
