#!/usr/bin/env bash
# bench/wasm_threads.sh: the ConvNet training step at batch 64 on the CPU
# backend compiled to WebAssembly, under Node.js on a shared memory, on 1,
# 2, 4 and 8 threads of the SIMD module (its most): how the threads scale
# on a machine of many cores, which may have neither Go nor Node.js.
#
#   bench/wasm_threads.sh build DIR
#       (with Go and Node.js) builds into DIR what the run needs:
#       experiment's test binary for js/wasm on a shared memory
#       (internal/sharedwasm), Go's wasm_exec.js, this Node.js (xz), and
#       the commit's name.
#   bench/wasm_threads.sh run DIR OUT [ROUNDS]
#       (in the repository) runs experiment's BenchmarkConvNetStep/batch64
#       on each number of threads, ROUNDS times (default 3) in turn, with
#       DIR's Node.js (or node on the PATH), and writes into OUT
#       node-threads.txt (the benchmark's lines, each after a line "round R
#       threads T"), cpu.txt (lscpu) and commit.
#   bench/wasm_threads.sh table OUT
#       prints OUT's figures as Markdown: images/s by threads, the medians'
#       speedup over one thread, the serial fraction, and Amdahl's law's
#       speedups from the serial fraction on two threads.
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
	go run ./internal/sharedwasm "$dir/plain.wasm" "$dir/experiment.wasm"
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

table() {
	local out=$1
	awk -v commit="$(cat "$out/commit")" -v cpu="$(sed -n 's/^Model name: *//p' "$out/cpu.txt" | head -1)" \
		-v cores="$(sed -n 's/^CPU(s): *//p' "$out/cpu.txt" | head -1)" '
	function median(a, n,    i, j, t, b) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j-1] > b[j]; j--) { t = b[j]; b[j] = b[j-1]; b[j-1] = t }
		return n % 2 ? b[(n+1)/2] : (b[n/2] + b[n/2+1]) / 2
	}
	/^round / { t = $4; if (!(t in n)) order[++nt] = t; next }
	/^BenchmarkConvNetStep/ {
		for (i = 2; i <= NF; i++) {
			if ($i == "images/s") ips[t, ++n[t]] = $(i-1)
			if ($i == "serial-fraction") sf[t, n[t]] = $(i-1)
		}
	}
	END {
		split("", v)
		for (k = 1; k <= nt; k++) {
			t = order[k]
			for (i = 1; i <= n[t]; i++) v[i] = ips[t, i]
			med[t] = median(v, n[t])
		}
		printf "ConvNet training step, batch 64, CPU backend in WebAssembly under Node.js on a shared memory, commit %s, on %s (%s CPUs), %d round(s):\n", commit, cpu, cores, n[order[1]]
		print "| threads | images/s | median | speedup of the medians over 1 thread | serial fraction |"
		print "| --- | --- | --- | --- | --- |"
		for (k = 1; k <= nt; k++) {
			t = order[k]; lo = hi = ips[t, 1]; slo = shi = sf[t, 1]
			for (i = 1; i <= n[t]; i++) {
				if (ips[t, i] < lo) lo = ips[t, i]; if (ips[t, i] > hi) hi = ips[t, i]
				if (sf[t, i] < slo) slo = sf[t, i]; if (sf[t, i] > shi) shi = sf[t, i]
			}
			s = (t == 1) ? "-" : sprintf("%.3f-%.3f", slo, shi)
			printf "| %d | %.1f-%.1f | %.1f | %.2fx | %s |\n", t, lo, hi, med[t], med[t] / med[order[1]], s
			if (t == 2) { f2lo = slo; f2hi = shi; t2 = med[t] }
		}
		if (t2 != "" && med[1] != "") {
			# The serial time on two threads as a fraction of one thread'"'"'s step.
			for (k = 1; k <= nt; k++) {
				t = order[k]; if (t <= 2) continue
				a = amdahl(f2lo * med[1] / t2, t); b = amdahl(f2hi * med[1] / t2, t)
				est = est sprintf("%s%d threads %.2f-%.2fx (measured %.2fx)", est == "" ? "" : ", ", t, b, a, med[t] / med[1])
			}
			printf "\nAmdahl'"'"'s law from the serial fraction on two threads (the serial time as %.3f-%.3f of one thread'"'"'s step): %s.\n", f2lo * med[1] / t2, f2hi * med[1] / t2, est
		}
	}
	function amdahl(f, t) { return 1 / (f + (1 - f) / t) }' "$out/node-threads.txt"
}

case "${1:-}" in
build) [ $# -eq 2 ] || usage; build "$2" ;;
run) [ $# -ge 3 ] || usage; run "$2" "$3" "${4:-3}" ;;
table) [ $# -eq 2 ] || usage; table "$2" ;;
*) usage ;;
esac
