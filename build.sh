#!/usr/bin/env bash
# build.sh: build and test the project.
#
#   ./build.sh             build the native command into bin/deeplda
#   ./build.sh site [-no-data] [DIR]
#                          build the static browser app into DIR (default
#                          out/site); it hosts the image data sets found
#                          (about 42 MB) unless -no-data is given. DIR is
#                          emptied first: it must be a new or empty folder
#                          or a site built before (outside the source tree)
#   ./build.sh serve [-no-data]
#                          build the site and serve it on http://127.0.0.1:8080/deeplda/
#                          (ADDR=127.0.0.1:9000 ./build.sh serve for another address)
#   ./build.sh test        run every test: gofmt, go vet (native and js/wasm),
#                          the cgo-free build, go test ./..., the WebAssembly
#                          tests under Node.js, then the browser tests
#                          (Chromium); ends with a summary whose last line is
#                          "N passed, N failed, N skipped"
set -euo pipefail
cd "$(dirname "$0")"

# build_site DIR [-no-data]: refuse DIR unless check_site_dir accepts it,
# then compile the app to WebAssembly (site/app.wasm), write its copy on a
# shared memory (site/app-threads.wasm, by tools/sharedwasm: the page
# loads it when it is cross-origin isolated, so that Web Workers can run
# kernels on the Go program's memory), copy the Go runtime's wasm_exec.js
# beside them, and lay the site out in DIR, emptied first: $site_marker,
# index.html and the service worker at the top, the assets under site/, the
# hosted data sets in site/data/ (copy_data; none with -no-data) and the
# trained models of models/ (or $DEEPLDA_MODELS) in site/models/<name>/,
# listed in site/models/index.json ([] when there is none) by
# tools/modelindex. It ends with what the site weighs.
build_site() {
	local out=$1 no_data=${2:-}
	check_site_dir "$out"
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o site/app.wasm ./wasm
	go run ./tools/sharedwasm site/app.wasm site/app-threads.wasm
	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" site/wasm_exec.js
	rm -rf "$out"
	mkdir -p "$out/site"
	touch "$out/$site_marker"
	cp index.html "$out/"
	cp site/style.css site/app.js site/load.js site/engine.js site/wasm_exec.js site/app.wasm site/app-threads.wasm "$out/site/"
	local version
	version=$(cat index.html site/style.css site/app.js site/load.js site/engine.js site/wasm_exec.js site/app.wasm site/app-threads.wasm site/sw.js | sha256sum | cut -c1-16)
	sed "s/BUILD_VERSION/$version/" site/sw.js >"$out/sw.js"
	touch "$out/.nojekyll"
	copy_data "$out/site/data" "$no_data"
	go run ./tools/modelindex "${DEEPLDA_MODELS:-models}" "$out/site/models"
	echo "built the site into $out (version $version): $(mb "$(bytes_in "$out")") in all;" \
		"app.wasm $(mb "$(bytes_in site/app.wasm)") ($(mb "$(gzip -9 -c site/app.wasm | wc -c)") gzipped)," \
		"app-threads.wasm $(mb "$(bytes_in site/app-threads.wasm)")," \
		"data $(mb "$(bytes_in "$out/site/data")"), models $(mb "$(bytes_in "$out/site/models")")"
}

# site_marker: the file build_site leaves in the folders it builds, by
# which it knows that it may empty them again.
site_marker=.deeplda-site

# check_site_dir DIR: exit with one line and status 1 unless build_site may
# empty DIR and build into it. It refuses this repository or a folder
# holding it, a path in the source tree (under a file or folder git tracks,
# or .git), a file, and an existing folder that is neither empty nor a
# site built here (one holding $site_marker). It changes nothing.
check_site_dir() {
	local dir=$1 abs root first why=""
	abs=$(realpath -m -- "$dir")
	root=$(pwd -P)
	if [[ "$root/" == "${abs%/}/"* ]]; then
		why="it is this repository or a folder holding it"
	elif [[ $abs == "$root"/* ]]; then
		first=${abs#"$root"/}
		first=${first%%/*}
		if [ "$first" = .git ] || grep -qxF -- "$first" <<<"$(source_entries)"; then
			why="it is in the source tree ($first)"
		fi
	fi
	if [ -z "$why" ] && [ -e "$dir" ] && [ ! -d "$dir" ]; then
		why="it is not a folder"
	elif [ -z "$why" ] && [ -d "$dir" ] && [ ! -e "$dir/$site_marker" ] && [ -n "$(ls -A -- "$dir")" ]; then
		why="it is not empty and not a site built here (no $site_marker in it): remove it or choose another folder"
	fi
	if [ -n "$why" ]; then
		echo "build.sh: refusing to build the site into $dir: $why" >&2
		exit 1
	fi
}

# source_entries: the top-level files and folders of the source tree, one
# a line: those git tracks (outside a git checkout, every one but out and
# bin).
source_entries() {
	local tracked
	if tracked=$(git ls-files 2>/dev/null); then
		cut -d/ -f1 <<<"$tracked" | sort -u
	else
		ls -A | grep -vx -e out -e bin
	fi
}

# bytes_in PATH...: the bytes of the files in PATH (files or folders).
bytes_in() {
	find "$@" -type f -exec cat {} + | wc -c
}

# mb BYTES: BYTES in megabytes (10^6 bytes), one decimal.
mb() {
	awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'
}

# copy_data DIR [-no-data]: copy the image data sets the page can train on
# into DIR (DIR/<data set>/<published files>, listed in DIR/index.json,
# which is {} when there is none), from $DEEPLDA_DATA or else
# ../shared/datasets when it exists, and say what it copied and how much;
# with -no-data it copies nothing. Which data sets and files: package
# data/images (images.Hosted), as tools/hosted prints them. Without them
# the page says that the site hosts no data and reads the user's files.
copy_data() {
	local dst=$1 no_data=${2:-} src=${DEEPLDA_DATA:-../shared/datasets} entries="" name files f list
	mkdir -p "$dst"
	# An empty list when there is nothing to host (the page asks for it).
	echo '{}' >"$dst/index.json"
	if [ -n "$no_data" ]; then
		echo "hosting no image data (-no-data): the page reads the data sets from the user's files"
		return 0
	fi
	[ -d "$src" ] || { echo "no image data to host ($src does not exist)"; return 0; }
	while read -r name files; do
		list=""
		for f in $files; do
			[ -f "$src/$name/$f" ] || { list=""; break; }
			list="$list${list:+, }\"$f\""
		done
		[ -n "$list" ] || continue
		mkdir -p "$dst/$name"
		for f in $files; do cp "$src/$name/$f" "$dst/$name/"; done
		for f in "$src/$name"/LICENSE*; do
			if [ -f "$f" ]; then cp "$f" "$dst/$name/"; fi
		done
		chmod -R u+w "$dst/$name"
		echo "hosting $name from $src/$name: $(mb "$(bytes_in "$dst/$name")")"
		entries="$entries${entries:+,
}  \"$name\": [$list]"
	done < <(go run ./tools/hosted)
	if [ -n "$entries" ]; then
		printf '{\n%s\n}\n' "$entries" >"$dst/index.json"
		echo "hosting $(mb "$(bytes_in "$dst")") of image data in $dst (./build.sh site -no-data leaves it out)"
	fi
}

# gotest LABEL ARGS...: go test -json ARGS, then the line that tells
# tools/testsummary that the run LABEL ended and with which status.
gotest() {
	local label=$1 status=0
	shift
	go test -json "$@" || status=$?
	printf '{"Action":"exit","Label":"%s","Exit":%d}\n' "$label" "$status"
}

# relaxed_simd_flag: the flag that switches on WebAssembly's relaxed SIMD in
# this Node.js (Node.js 20 has it behind --experimental-wasm-relaxed-simd),
# or nothing where node takes no such flag.
relaxed_simd_flag() {
	if node --experimental-wasm-relaxed-simd -e 0 2>/dev/null; then
		echo --experimental-wasm-relaxed-simd
	fi
}

# test_runs: every go test run of the test target, as go test -json events.
test_runs() {
	# lavapipe runs the WebGPU conformance suite for several minutes beside
	# the other packages on two cores: more than go test's default 10.
	gotest native -count=1 -timeout 25m $(go list ./... | grep -v '/browsertest$')
	# The kernels, the model and the trainer as the browser runs them
	# (WebAssembly, with their wasm assembly), under Node.js, with relaxed
	# SIMD as Chromium has it (behind a flag in Node.js 20); then the whole
	# 30-step PyTorch trajectory there, about a minute (TestTrajectory: its
	# F(2x2, 3x3) twin is the same run in WebAssembly).
	local node_exec
	node_exec="node --stack-size=8192 $(relaxed_simd_flag) $(go env GOROOT)/lib/wasm/wasm_exec_node.js"
	GOOS=js GOARCH=wasm gotest js/wasm -count=1 -exec "$node_exec" -skip Trajectory ./kernels/ref ./kernels/cpu/... ./model ./train
	GOOS=js GOARCH=wasm gotest js/wasm-trajectory -count=1 -run 'TestTrajectory$' -exec "$node_exec" ./kernels/cpu
	# The CPU backend again on two threads, its memory shared as in a
	# cross-origin isolated page: the same bits as on one.
	DEEPLDA_TEST_THREADS=2 GOOS=js GOARCH=wasm gotest js/wasm-threads -count=1 -p 1 -skip Trajectory \
		-exec "$PWD/browsertest/testdata/wasm_exec_threads.sh 2" ./kernels/cpu/...
	# The browser tests run alone: they time the page's responsiveness.
	DEEPLDA_SITE="$PWD/out/site" gotest browser -count=1 -timeout 35m ./browsertest
}

# usage: print how to call this script and exit with status 2.
usage() {
	echo "usage: ./build.sh [build | site [-no-data] [DIR] | serve [-no-data] | test]" >&2
	exit 2
}

cmd=${1:-build}
case "$cmd" in
build)
	mkdir -p bin
	go build -buildvcs=auto -o bin/deeplda ./cmd/deeplda
	echo "built bin/deeplda"
	;;
site | serve)
	dir=out/site no_data=""
	for arg in "${@:2}"; do
		case $arg in
		-no-data) no_data=-no-data ;;
		-*) usage ;;
		*) if [ "$cmd" = serve ]; then usage; fi; dir=$arg ;;
		esac
	done
	build_site "$dir" "$no_data"
	if [ "$cmd" = site ]; then exit 0; fi
	exec go run ./browsertest/serve -dir "$dir" -addr "${ADDR:-127.0.0.1:8080}" -prefix /deeplda/
	;;
test)
	# Tracked Go files that exist (a deleted file stays listed until the
	# deletion is committed).
	files=$(git ls-files -- '*.go' 2>/dev/null || find . -name '*.go')
	unformatted=$(for f in $files; do if [ -f "$f" ]; then echo "$f"; fi; done | xargs -r gofmt -l)
	if [ -n "$unformatted" ]; then
		echo "not gofmt-formatted:" >&2
		echo "$unformatted" >&2
		exit 1
	fi
	go vet ./...
	GOOS=js GOARCH=wasm go vet ./kernels/... ./model/... ./train/... ./metrics/... ./plot/... ./report/... ./safetensors/... ./data/... ./experiment/... ./wasm/...
	# The command builds without cgo too (CPU backend only).
	CGO_ENABLED=0 go build -o /dev/null ./cmd/deeplda
	# RESULTS.md's tables are those its runs' report.json files give.
	go run ./cmd/results -check RESULTS.md
	go run ./cmd/results -check BENCHMARKS.md
	build_site out/site
	# Every test run through one summary: failures and their output as they
	# come, then the counts per package, every skip with its reason, and
	# the closing "N passed, N failed, N skipped" line (the exit status is
	# non-zero on any failure).
	summary=$(mktemp -d)
	trap 'rm -rf "$summary"' EXIT
	go build -o "$summary/testsummary" ./tools/testsummary
	test_runs | "$summary/testsummary"
	;;
*)
	usage
	;;
esac
