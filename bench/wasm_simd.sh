#!/bin/sh
# bench/wasm_simd.sh [ROUNDS]: the ConvNet training step at batch 64 on the
# CPU backend compiled to WebAssembly, under Node.js, with the gemm
# package's SIMD kernels off, plain SIMD, and relaxed SIMD (where this Node
# runs it), next to the native CPU backend on one core: images/s of each
# and their ratio to native. ROUNDS (default 1) alternates the four runs
# that many times, so that a shared machine's load hits them alike.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. bench/wasm_tests.sh
wasm_tests ./experiment/ experiment

# step LABEL ENV CMD...: run the benchmark in experiment/ and print LABEL and
# its images/s.
step() {
	label=$1 simd=$2
	shift 2
	ips=$(cd experiment && DEEPLDA_WASM_SIMD=$simd "$@" -test.run '^$' -test.bench 'ConvNetStep/batch64$' -test.benchtime 2x |
		awk '/^BenchmarkConvNetStep/ { for (i = 2; i <= NF; i++) if ($i == "images/s") print $(i-1) }')
	[ -n "$ips" ] || { echo "bench/wasm_simd.sh: no result for $label" >&2; exit 1; }
	echo "$label $ips"
}

for r in $(seq "$rounds"); do
	step native "" "$tmp/experiment.test" -test.cpu 1
	step wasm-off off node --stack-size=8192 "$wasmexec" "$tmp/experiment.wasm"
	step wasm-simd plain node --stack-size=8192 "$wasmexec" "$tmp/experiment.wasm"
	step wasm-relaxed "" node --stack-size=8192 $relaxed "$wasmexec" "$tmp/experiment.wasm"
done >"$tmp/results"

echo "ConvNet training step, batch 64, one thread ($(node --version)${relaxed:+ $relaxed}; $rounds round(s))"
awk '
	{ v[$1, ++n[$1]] = $2 }
	END {
		printf "%-44s %12s %14s\n", "", "images/s", "of native"
		split("native wasm-off wasm-simd wasm-relaxed", order, " ")
		name["native"] = "native CPU backend, 1 core"
		name["wasm-off"] = "WebAssembly, Node.js, no SIMD"
		name["wasm-simd"] = "WebAssembly, Node.js, SIMD"
		name["wasm-relaxed"] = "WebAssembly, Node.js, relaxed SIMD if any"
		for (o = 1; o <= 4; o++) {
			k = order[o]; lo = hi = v[k, 1]; rlo = rhi = v[k, 1] / v["native", 1]
			for (i = 2; i <= n[k]; i++) {
				x = v[k, i]; r = x / v["native", i]
				if (x < lo) lo = x; if (x > hi) hi = x
				if (r < rlo) rlo = r; if (r > rhi) rhi = r
			}
			printf "%-44s %12s %14s\n", name[k], sprintf(lo == hi ? "%.1f" : "%.1f-%.1f", lo, hi), sprintf(rlo == rhi ? "%.1f%%" : "%.1f-%.1f%%", 100 * rlo, 100 * rhi)
		}
	}' "$tmp/results"
