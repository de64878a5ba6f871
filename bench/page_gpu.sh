#!/usr/bin/env bash
# bench/page_gpu.sh: the page's GPU record (gpu-<adapter>-page.json, beside
# bench/gpu.sh's gpu-<adapter>.json): the trainer's page timed in Chromium
# on the GPU through WebGPU and natively in the same run, with the browser
# tests on the page's adapter, on a machine that has neither Go, Chromium
# nor a network, from a pack built on one that has.
#
#   bench/page_gpu.sh build DIR
#       (with Go and Debian's chromium) packs into DIR what the GPU
#       machine runs: Chromium (/usr/lib/chromium, less its Vulkan
#       validation layer and mock driver) with the shared libraries it
#       links but glibc's and the C++ runtime's, the site built without
#       data sets or models, the golden page program, the browser tests
#       compiled (browsertest.test), the native command, gpureport,
#       test2json, the three golden files the page's checks read and the
#       commit's name. One tar stream, compressed (zstd, else xz, else
#       gzip, at level LEVEL, default 9), cut into parts pack.tar.EXT.NN
#       of at most PART_MB MiB (default 28: each part travels to the GPU
#       machine in a call of its own, beside the repository's tree of
#       about 32 MiB, 64 MiB in all), with MANIFEST (how it is compressed,
#       the glibc it needs) and SHA256SUMS, and with zstd its command and
#       libraries (DIR/zstd/) for a machine without it. It ends with the
#       parts' sizes.
#   bench/page_gpu.sh run DIR OUT [-short]
#       (on the GPU machine, in the repository) checks the parts against
#       SHA256SUMS and the machine's glibc against MANIFEST, unpacks them
#       into a temporary folder, points the Vulkan loader at NVIDIA's
#       driver under /usr/local/nvidia when nothing else names it (the
#       loader's folders, VK_DRIVER_FILES) and writes into OUT: log.txt,
#       gpu.csv (nvidia-smi, where it is there), suite.md and suite.jsonl
#       (deeplda bench -backend webgpu -suite), page.jsonl and page.json
#       (browsertest's TestPageBenchSuite: the page's adapter, the limits
#       its device is granted and the same suite timed in the trainer's
#       page; it fails at once when the adapter is a CPU implementation
#       such as SwiftShader), conformance.jsonl (the other browser tests on
#       the page's WebGPU: the golden page program's checks, its bench, a
#       training run; only when the page's test passed) and
#       gpu-<adapter>-page.json (gpureport -page), which fails unless the
#       page's ConvNet step at the largest batch reaches 0.8x the native
#       one's rate. Chromium runs headless with FLAGS (default: WebGPU on
#       Vulkan, ANGLE on Vulkan, the GPU blocklist ignored, WebGPU's
#       developer features on for the adapter's full description). -short
#       runs a small version (tiny sizes, one step, the golden checks on
#       WebGPU only, ANGLE on its default: on Vulkan without a GPU the page
#       does not load) and lets the page run on a CPU implementation, to
#       test the script itself.
#   bench/page_gpu.sh check
#       build (LEVEL=1), then run -short on this machine (SwiftShader
#       stands in for the GPU): what CI runs (TestPageGPUScript, in
#       bench/page_gpu_test.go).
#
# Every step of run runs even when an earlier one failed, but the browser
# tests after the page's; the exit status is non-zero when any failed.
# Variables of run: STEPS (timed steps, default 20), SIZES (matmul sizes,
# default 1024,2048,4096), BATCHES (ConvNet batches, default 64,256), TESTS
# (the browser tests after the page's, a -test.run pattern), TEST_LIMIT
# (the time limit in seconds of each run of the browser tests: 300, 600
# with -short), FLAGS.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. bench/gpu_common.sh

# gpu_flags are Chromium's flags for WebGPU on the GPU without a display.
gpu_flags="--headless=new --enable-unsafe-webgpu --enable-features=Vulkan --use-angle=vulkan --disable-vulkan-surface --ignore-gpu-blocklist --enable-webgpu-developer-features"

# carried_libs FILE... prints the shared libraries that the ELF files link
# (their paths on this machine), but for glibc's and the C++ runtime's,
# which a machine that runs PyTorch has, and fails when one is missing.
carried_libs() {
	local deps
	deps=$(ldd "$@") || return
	if grep -q 'not found' <<<"$deps"; then
		grep 'not found' <<<"$deps" >&2
		return 1
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $3 }' <<<"$deps" | sort -u |
		grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so'
}

# build DIR: see the header. It runs in a subshell, for its temporary
# folder.
build() (
	dir=$1
	shared=$(cd .. && pwd)/shared
	chromium=/usr/lib/chromium
	[ -x "$chromium/chromium" ] || {
		echo "no Chromium in $chromium (apt-get install chromium)" >&2
		exit 1
	}
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit
	rm -rf "$dir"/pack.tar.* "$dir/MANIFEST" "$dir/SHA256SUMS" "$dir/zstd"
	stage=$(mktemp -d) || exit
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/chromium" "$stage/lib" "$stage/golden-page" "$stage/shared/golden" "$stage/no-models" || exit
	for f in "$chromium"/*; do
		case ${f##*/} in
		libVkLayer_khronos_validation.* | libVkICD_mock_icd.* | extensions) ;;
		*) cp -a "$f" "$stage/chromium/" || exit ;;
		esac
	done
	libs=$(carried_libs "$stage/chromium/chromium" "$stage"/chromium/*.so "$stage"/chromium/*.so.1) || exit
	# shellcheck disable=SC2086 # one path a line, without spaces
	cp -L $libs "$stage/lib/" || exit
	DEEPLDA_MODELS="$stage/no-models" ./build.sh site -no-data "$stage/site" >&2 &&
		GOOS=js GOARCH=wasm go build "${go_flags[@]}" -o "$stage/golden-page/golden.wasm" ./browsertest/golden &&
		cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" browsertest/golden/index.html "$stage/golden-page/" &&
		go test -c "${go_flags[@]}" -o "$stage/browsertest.test" ./browsertest &&
		build_tools "$stage" &&
		cp "$shared/golden/head_cases.safetensors" "$shared/golden/mlp_synthetic.safetensors" "$shared/golden/convnet_fmnist.safetensors" "$stage/shared/golden/" &&
		commit_name >"$stage/COMMIT" || exit
	# The newest glibc symbol version that Chromium and its libraries ask for.
	glibc=$(grep -aoh 'GLIBC_2\.[0-9]*' "$stage/chromium/chromium" "$stage"/chromium/*.so* "$stage"/lib/* | sort -uV | tail -1)
	level=${LEVEL:-9}
	if command -v zstd >/dev/null; then
		compress=(zstd -q -T0 --long=27 "-$level") ext=zst
		mkdir "$dir/zstd" && cp -L "$(command -v zstd)" "$dir/zstd/" || exit
		libs=$(carried_libs "$dir/zstd/zstd") || exit
		# shellcheck disable=SC2086 # one path a line, without spaces
		[ -z "$libs" ] || cp -L $libs "$dir/zstd/" || exit
	elif command -v xz >/dev/null; then
		compress=(xz -T0 "-$level") ext=xz
	else
		compress=(gzip "-$level") ext=gz
	fi
	echo "packing $(du -sm "$stage" | cut -f1) MiB with ${compress[*]}" >&2
	tar -C "$stage" -cf - . | "${compress[@]}" | split -b "${PART_MB:-28}M" -d -a 2 - "$dir/pack.tar.$ext." || exit
	printf 'compress %s\nglibc %s\ncommit %s\n' "${compress[0]}" "${glibc#GLIBC_}" "$(cat "$stage/COMMIT")" >"$dir/MANIFEST" || exit
	cd "$dir" || exit
	files=(pack.tar.*)
	[ ! -d zstd ] || files+=(zstd/*)
	sha256sum "${files[@]}" >SHA256SUMS || exit
	du -b "${files[@]}" >&2
	echo "$(du -bc "${files[@]}" | tail -1 | cut -f1) bytes in all, in ${#files[@]} files" >&2
)

# unpack DIR TMP checks the pack in DIR and unpacks it into TMP.
unpack() {
	local dir=$1 tmp=$2 f files missing=() parts=() compress glibc have
	if [ ! -e "$dir/MANIFEST" ] || [ ! -e "$dir/SHA256SUMS" ]; then
		echo "$dir lacks MANIFEST or SHA256SUMS: carry them with the parts" >&2
		return 1
	fi
	files=$(awk '{ print $2 }' "$dir/SHA256SUMS")
	for f in $files; do
		[ -e "$dir/$f" ] || missing+=("$f")
		[[ $f != pack.tar.* ]] || parts+=("$dir/$f")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "$dir lacks ${missing[*]}: carry every part" >&2
		return 1
	fi
	(cd "$dir" && sha256sum -c --quiet SHA256SUMS) || return
	compress=$(awk '$1 == "compress" { print $2 }' "$dir/MANIFEST")
	glibc=$(awk '$1 == "glibc" { print $2 }' "$dir/MANIFEST")
	have=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
	if [ "$(printf '%s\n' "$glibc" "$have" | sort -V | head -1)" != "$glibc" ]; then
		echo "this machine's glibc $have is older than the $glibc that the pack's Chromium needs" >&2
		return 1
	fi
	local decompress=("$compress" -d -c)
	if [ "$compress" = zstd ] && ! command -v zstd >/dev/null; then
		decompress=(env LD_LIBRARY_PATH="$dir/zstd" "$dir/zstd/zstd" -d -c)
	fi
	cat "${parts[@]}" | "${decompress[@]}" | tar -x -C "$tmp"
}

# browser_tests NAME RUN [VAR=VALUE...] runs the browser tests that match
# RUN in the repository's browsertest folder, as go test does, with
# Chromium on its libraries and the variables given, into run's OUT/NAME.jsonl
# (with run's pack, out, flags and limit).
browser_tests() {
	# shellcheck disable=SC2016 # the inner script's own variables
	step "$1" $((limit + 20)) env LD_LIBRARY_PATH="$pack/lib" CHROMIUM="$pack/chromium/chromium" DEEPLDA_CHROMIUM_FLAGS="$flags" \
		DEEPLDA_SITE="$pack/site" DEEPLDA_GOLDEN_PAGE="$pack/golden-page" DEEPLDA_SHARED="$pack/shared" "${@:3}" \
		bash -c 'cd browsertest && "$0/test2json" -t -p github.com/deeplda/deeplda/browsertest \
			"$0/browsertest.test" -test.v=test2json -test.count=1 -test.timeout="$1s" -test.run "$2"' \
		"$pack" "$limit" "$2" >"$out/$1.jsonl"
}

# run DIR OUT [-short]: see the header.
run() {
	local dir=$1 out=$2 short=${3:-}
	dir=$(cd "$dir" && pwd) || return
	mkdir -p "$out" && out=$(cd "$out" && pwd) || return
	local steps=${STEPS:-20} sizes=${SIZES:-1024,2048,4096} batches=${BATCHES:-64,256} limit=${TEST_LIMIT:-300}
	local tests=${TESTS:-'^(TestGoldenInBrowser|TestGPUBenchSuite|TestWebGPU)$'} flags=${FLAGS:-$gpu_flags} hardware=1 flag=()
	if [ "$short" = -short ]; then
		# SwiftShader on a loaded machine: one ConvNet step at batch 1
		# takes seconds.
		steps=${STEPS:-1} sizes=${SIZES:-32,64} batches=${BATCHES:-1} tests=${TESTS:-'^TestGoldenInBrowser$/^webgpu$'}
		flags=${FLAGS:-${gpu_flags/ --use-angle=vulkan/}} hardware=0 flag=(-short) limit=${TEST_LIMIT:-600}
	elif [ -n "$short" ]; then
		usage
	fi
	start_run "$out"
	local pack
	pack=$(mktemp -d) || return
	temps+=("$pack")
	echo "== unpack ($(date -u +%T))" >&2
	unpack "$dir" "$pack" || return
	# The driver where the machine mounts NVIDIA's, when the Vulkan loader
	# is not told of it otherwise.
	local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
	if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -e "$icd" ] &&
		! ls /etc/vulkan/icd.d/nvidia* /usr/share/vulkan/icd.d/nvidia* /usr/local/share/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
		export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
	fi
	native_suite "$pack/deeplda" "$out" "$steps" "$sizes" "$batches"
	if browser_tests page '^TestPageBenchSuite$' DEEPLDA_PAGE_SUITE="sizes=$sizes&batches=$batches&steps=$steps" \
		DEEPLDA_PAGE_RECORD="$out/page.json" DEEPLDA_PAGE_HARDWARE=$hardware; then
		browser_tests conformance "$tests"
	else
		echo "== conformance: not run, the page's test failed" >&2
		failed+=(conformance)
	fi
	step gpureport 60 "$pack/gpureport" -page -commit "$(cat "$pack/COMMIT")" "${flag[@]}" "$out"
	end_run
}

# temps are the temporary folders to remove on exit.
temps=()
trap 'rm -rf "${temps[@]}"' EXIT

case ${1:-} in
build)
	[ $# -eq 2 ] || usage
	build "$2"
	;;
run)
	{ [ $# -ge 3 ] && [ $# -le 4 ]; } || usage
	run "$2" "$3" "${4:-}"
	;;
check)
	tmp=$(mktemp -d) || exit
	temps+=("$tmp")
	LEVEL=${LEVEL:-1} build "$tmp/pack" && run "$tmp/pack" "${OUT:-$tmp/out}" -short
	;;
*)
	usage
	;;
esac
