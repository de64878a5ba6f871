#!/bin/sh
# bench/trajectory_spread.sh [K]: how chaotic the end of PyTorch's 30-step
# Fashion-MNIST trajectory is (train/traintest's Trajectory): the softmax
# head's run replayed with the last bias of its initial parameters scaled
# by 1+k*1e-6 for k = 0..K (default 8), on the native CPU backend, and on
# the CPU backend compiled to WebAssembly under Node.js with relaxed SIMD
# (as Chromium runs the page) and with plain SIMD: the correct test images
# of 512 (PyTorch: 326) and the scores' relative L2 error, as a Markdown
# table that names the commit. About 15 minutes at K = 8 on two cores.
set -eu
cd "$(dirname "$0")/.."
last=${1:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. bench/wasm_tests.sh
wasm_tests ./kernels/cpu/ cpu

# replay K SIMD CMD...: the softmax run perturbed by K, as "correct | error".
replay() {
	k=$1 simd=$2
	shift 2
	(cd kernels/cpu && DEEPLDA_TRAJECTORY_PERTURB=$k DEEPLDA_WASM_SIMD=$simd "$@" -test.run 'TestTrajectory$/softmax' -test.v 2>&1 || true) |
		awk '/relative L2 error/ { err = $NF } /test accuracy on/ { for (i = 1; i <= NF; i++) if ($i == "correct,") n = $(i-1) } END { printf "%s | %s", n, err }'
}

echo "The softmax head's trajectory, its last initial bias scaled by 1+k*1e-6, at commit $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' with local changes'): correct test images of 512 (PyTorch 326) and the scores' relative L2 error."
echo
echo "| k | native: correct | native: error | WebAssembly, relaxed SIMD: correct | error | WebAssembly, plain SIMD: correct | error |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
k=0
while [ "$k" -le "$last" ]; do
	echo "| $k | $(replay "$k" "" "$tmp/cpu.test") | $(replay "$k" relaxed node --stack-size=8192 $relaxed "$wasmexec" "$tmp/cpu.wasm") | $(replay "$k" plain node --stack-size=8192 $relaxed "$wasmexec" "$tmp/cpu.wasm") |"
	k=$((k + 1))
done
