# bench/gpu_common.sh: what bench/gpu.sh and bench/page_gpu.sh share,
# sourced by them from the repository's root.
# shellcheck shell=bash

# go_flags build stripped binaries without this machine's paths: what
# travels to the GPU machine is limited in size.
go_flags=(-trimpath -ldflags='-s -w')

# usage prints the script's header comment (up to its set line) and exits
# with status 2.
usage() {
	sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# build_tools DIR builds into DIR what both scripts run on the GPU
# machine besides their tests: the native command (deeplda), gpureport
# and Go's test2json.
build_tools() {
	go build "${go_flags[@]}" -o "$1/deeplda" ./cmd/deeplda &&
		go build "${go_flags[@]}" -o "$1/gpureport" ./tools/gpureport &&
		go build "${go_flags[@]}" -o "$1/test2json" cmd/test2json
}

# commit_name prints the commit that is built, with -dirty when the tree
# (bench/results aside) differs from it.
commit_name() {
	local commit
	commit=$(git rev-parse HEAD) || return
	git diff --quiet HEAD -- . ':!bench/results' || commit="$commit-dirty"
	echo "$commit"
}

# start_run OUT copies standard error into OUT/log.txt, empties the list
# of failed steps and, where nvidia-smi is there, describes the card in
# OUT/gpu.csv.
start_run() {
	exec 2> >(tee "$1/log.txt" >&2)
	failed=()
	if command -v nvidia-smi >/dev/null; then
		step nvidia-smi 60 nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory,power.limit,memory.total,pci.device_id \
			--format=csv,nounits >"$1/gpu.csv"
	fi
}

# step NAME SECONDS CMD... runs CMD with a time limit and logs its status;
# when it fails, it adds NAME to the failed steps. It returns CMD's status.
step() {
	local name=$1 limit=$2 rc
	shift 2
	echo "== $name ($(date -u +%T))" >&2
	timeout -k 10 "$limit" "$@"
	rc=$?
	echo "== $name: exit $rc" >&2
	[ $rc -eq 0 ] || failed+=("$name")
	return $rc
}

# native_suite DEEPLDA OUT STEPS SIZES BATCHES [TILE] times the GPU table
# natively on the machine's WebGPU adapter (the command DEEPLDA's bench
# -suite) into OUT/suite.md (the table) and OUT/suite.jsonl (the adapter's
# description, then one result a line); with TILE (as 64x16), every GEMM
# on that tile (DEEPLDA_WEBGPU_TILE), into OUT/suite-TILE.md and .jsonl.
native_suite() {
	local name=suite
	[ -n "${6:-}" ] && name=suite-$6
	step "$name" 150 env DEEPLDA_WEBGPU_TILE="${6:-}" "$1" bench -backend webgpu -suite -sizes "$4" -batches "$5" -steps "$3" \
		>"$2/$name.md" 2>"$2/$name.jsonl"
	cat "$2/$name.md" >&2
}

# end_run fails, naming them, when steps failed.
end_run() {
	if [ ${#failed[@]} -gt 0 ]; then
		echo "$0: failed: ${failed[*]}" >&2
		return 1
	fi
}
