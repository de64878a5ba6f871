#!/usr/bin/env bash
# bench/gpu.sh: the GPU record (bench/results/gpu-<adapter>.json and
# BENCHMARKS.md's GPU table), measured in one go on a machine that has
# neither Go nor a network, from what was built on one that has.
#
#   bench/gpu.sh build DIR [GOLDEN...]
#       (with Go) builds into DIR (binaries gzipped) everything the GPU
#       machine runs: the
#       native command (deeplda), the WebGPU test binary (the conformance
#       suite on every op family, the golden PyTorch checks, the PyTorch
#       trajectory, the counters), Go's test2json, gpureport, the commit's
#       name, and the golden files named (default: all of ../shared/golden),
#       the trajectory's without what it does not read, with the first
#       images of Fashion-MNIST (tools/gpucarry).
#   bench/gpu.sh run DIR OUT [-short]
#       (on the GPU machine, in the repository) runs it all on the
#       machine's WebGPU adapter and writes into OUT: log.txt,
#       conformance.jsonl (the tests' go test -json events), suite.md and
#       suite.jsonl (deeplda bench -backend webgpu -suite with the
#       adapter's description), suite-64x16.md and .jsonl (the same with
#       every GEMM on the narrow tile), tiles.txt (each GEMM of the
#       ConvNet's step and the matmuls on each tile: BenchmarkTiles),
#       pytorch.jsonl (the same steps in PyTorch,
#       on CUDA where it is there, else on the CPU), pytorch_trajectory.jsonl
#       (the golden trajectory replayed by PyTorch there: its own drift,
#       bench/pytorch_trajectory.py), gpu.csv (nvidia-smi, where it is
#       there) and gpu-<adapter>.json (gpureport). -short
#       runs a small version (tiny sizes, one step, the tests' -short
#       mode) to test the script itself.
#   bench/gpu.sh check
#       build, then run -short on this machine (lavapipe and PyTorch on
#       the CPU stand in for the GPU): what CI runs
#       (tools/gpureport's TestGPUScript).
#
# Every step runs even when an earlier one failed; the exit status is
# non-zero when any failed. Variables: STEPS (timed steps, default 20),
# SIZES (matmul sizes, default 1024,2048,4096), BATCHES (ConvNet batches,
# default 64,256), TESTS and SKIP (the test binary's -test.run and
# -test.skip: by default all run), TEST_LIMIT (their time limit in seconds:
# 220, 1500 with -short),
# PYTHON (default: the first of python3 and /usr/bin/python3 with torch).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. bench/gpu_common.sh

build() {
	local dir=$1 shared
	shift
	shared=$(cd .. && pwd)/shared
	mkdir -p "$dir" || return
	dir=$(cd "$dir" && pwd)
	# Gzipped: the tree that travels to the GPU machine is limited in size.
	build_tools "$dir" &&
		go test -c "${go_flags[@]}" -o "$dir/webgpu.test" ./kernels/webgpu &&
		gzip -f -9 "$dir/deeplda" "$dir/webgpu.test" "$dir/gpureport" "$dir/test2json" &&
		commit_name >"$dir/COMMIT" || return
	local names=("$@")
	if [ ${#names[@]} -eq 0 ]; then
		names=()
		for f in "$shared"/golden/*.safetensors; do
			names+=("$(basename "$f" .safetensors)")
		done
	fi
	mkdir -p "$dir/shared/golden" || return
	for n in "${names[@]}"; do
		if [ "$n" = fmnist_trajectory ]; then
			# The trajectory test reads the first 1920 training and 512
			# test images, and no parameters after the run.
			go run ./tools/gpucarry golden -drop '/final/' "$shared/golden/$n.safetensors" "$dir/shared/golden/$n.safetensors" &&
				go run ./tools/gpucarry images -train 1920 -test 512 "$shared/datasets/fashion-mnist" "$dir/shared/datasets/fashion-mnist" || return
		else
			cp "$shared/golden/$n.safetensors" "$dir/shared/golden/" || return
		fi
	done
}

run() {
	local dir=$1 out=$2 short=${3:-}
	dir=$(cd "$dir" && pwd) || return
	mkdir -p "$out" && out=$(cd "$out" && pwd) || return
	for f in "$dir"/*.gz; do
		[ -e "${f%.gz}" ] || gzip -d -k "$f" || return
	done
	local steps=${STEPS:-20} sizes=${SIZES:-1024,2048,4096} batches=${BATCHES:-64,256} tests=${TESTS:-.} skip=${SKIP:-} testflags=()
	local limit=${TEST_LIMIT:-220}
	if [ "$short" = -short ]; then
		# On a CPU implementation of WebGPU, on a loaded machine, the
		# tests take minutes: the trajectory's first steps run for one
		# head (its data carried as on a GPU machine).
		steps=1 sizes=64,128 batches=2 tests='TestConformance|TestGolden|TestTrajectory' skip=${SKIP:-TestTrajectory/softmax} testflags=(-test.short) limit=${TEST_LIMIT:-1500}
	elif [ -n "$short" ]; then
		usage
	fi
	start_run "$out"
	export DEEPLDA_SHARED="$dir/shared" PYTHONUNBUFFERED=1
	# shellcheck disable=SC2016 # the inner script's own variables
	step conformance $((limit + 20)) bash -c 'cd kernels/webgpu && "$0/test2json" -t -p github.com/deeplda/deeplda/kernels/webgpu \
		"$0/webgpu.test" -test.v=test2json -test.count=1 -test.timeout="$1s" -test.run "$2" -test.skip "$3" "${@:4}"' \
		"$dir" "$limit" "$tests" "$skip" "${testflags[@]}" >"$out/conformance.jsonl"
	# shellcheck disable=SC2016 # the inner script's own variables
	step tiles 120 bash -c 'cd kernels/webgpu && "$0/webgpu.test" -test.run "^\$" -test.bench Tiles -test.benchtime 5x "$@"' \
		"$dir" "${testflags[@]}" >"$out/tiles.txt"
	cat "$out/tiles.txt" >&2
	native_suite "$dir/deeplda" "$out" "$steps" "$sizes" "$batches"
	# The same with tile.wgsl's own tile on every GEMM, against the choice
	# by rows (the wide tile from 128 rows) above.
	native_suite "$dir/deeplda" "$out" "$steps" "$sizes" "$batches" 64x16
	local py=${PYTHON:-}
	if [ -z "$py" ]; then
		for py in python3 /usr/bin/python3; do
			"$py" -c 'import torch' 2>/dev/null && break
		done
	fi
	step pytorch 150 "$py" bench/pytorch_baseline.py gpu "$steps" "$sizes" "$batches" >"$out/pytorch.jsonl"
	cat "$out/pytorch.jsonl" >&2
	if [ -e "$DEEPLDA_SHARED/golden/fmnist_trajectory.safetensors" ]; then
		local devices=()
		[ "$short" = -short ] && devices=(cpu)
		step trajectory 200 "$py" bench/pytorch_trajectory.py "$DEEPLDA_SHARED/golden" "$DEEPLDA_SHARED/datasets/fashion-mnist" \
			"${devices[@]}" >"$out/pytorch_trajectory.jsonl"
		cat "$out/pytorch_trajectory.jsonl" >&2
	fi
	local flag=()
	[ "$short" = -short ] && flag=(-short)
	step gpureport 60 "$dir/gpureport" -commit "$(cat "$dir/COMMIT")" "${flag[@]}" "$out"
	end_run
}

case ${1:-} in
build)
	[ $# -ge 2 ] || usage
	shift
	build "$@"
	;;
run)
	{ [ $# -ge 3 ] && [ $# -le 4 ]; } || usage
	run "$2" "$3" "${4:-}"
	;;
check)
	tmp=$(mktemp -d) || exit
	trap 'rm -rf "$tmp"' EXIT
	build "$tmp/build" && run "$tmp/build" "${OUT:-$tmp/out}" -short
	;;
*)
	usage
	;;
esac
