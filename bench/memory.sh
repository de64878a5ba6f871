#!/bin/sh
# Peak resident memory of the standard native image run and of PyTorch's
# same run, for BENCHMARKS.md: Fashion-MNIST, the first 10,000 training
# images, 1 epoch at batch 256, the LDA head with DNLL, the whole test set,
# no held-out split. GNU time's %M is the peak resident set in KiB
# (apt-get install time); the machine's load changes the seconds, not the
# memory.
#
#   bench/memory.sh [DATADIR]    (default ../shared/datasets/fashion-mnist)
set -eu
cd "$(dirname "$0")/.."
data=${1:-../shared/datasets/fashion-mnist}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/deeplda" ./cmd/deeplda
/usr/bin/time -f 'deeplda train: peak resident memory %M KiB, %e s' \
	"$tmp/deeplda" train -backend cpu -data fashion-mnist -datadir "$data" \
	-limit-train 10000 -epochs 1 -batch 256 -val 0 -quiet -out "$tmp/run" >/dev/null
/usr/bin/time -f 'PyTorch (bench/pytorch_images.py): peak resident memory %M KiB, %e s' \
	/usr/bin/python3 bench/pytorch_images.py -seeds 1 -heads lda -epochs 1 -batch 256 \
	-limit-train 10000 -datadir "$data" >/dev/null
