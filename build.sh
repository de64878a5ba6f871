#!/usr/bin/env bash
# build.sh: build and test the project.
#
#   ./build.sh          build the native command into bin/deeplda
#   ./build.sh test     run every test (gofmt, go vet, go test ./...)
set -euo pipefail
cd "$(dirname "$0")"

cmd=${1:-build}
case "$cmd" in
build)
	mkdir -p bin
	go build -o bin/deeplda ./cmd/deeplda
	echo "built bin/deeplda"
	;;
test)
	unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	if [ -n "$unformatted" ]; then
		echo "not gofmt-formatted:" >&2
		echo "$unformatted" >&2
		exit 1
	fi
	go vet ./...
	GOOS=js GOARCH=wasm go vet ./kernels/... ./model/... ./train/... ./metrics/... ./plot/... ./report/... ./safetensors/... ./data/... ./experiment/...
	go test -count=1 ./...
	;;
*)
	echo "usage: ./build.sh [build|test]" >&2
	exit 2
	;;
esac
