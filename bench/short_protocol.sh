#!/usr/bin/env bash
# short_protocol.sh: RESULTS.md's short image protocol, ours and PyTorch's
# side by side: Fashion-MNIST, the first 10,000 training images (the last
# 5,000 of the file held out for our temperature scaling), 5 epochs, Adam
# 1e-3, batch 256, seeds 1-3, the LDA head with DNLL and the softmax head
# with CE, both evaluated with the trained and the recalibrated BatchNorm
# statistics (20 batches). Keeps each run's report.json under OUT
# (go-HEAD-SEED, pytorch-HEAD-SEED), then regenerates RESULTS.md's tables.
# About 40 minutes on 2 quiet cores.
#
#   bench/short_protocol.sh [OUT]          (default bench/results/fashion-mnist-short)
#
# Environment: DATA (the Fashion-MNIST folder; default
# ../shared/datasets/fashion-mnist), SEEDS (default "1 2 3"), PYTHON (the
# Python with PyTorch; default /usr/bin/python3, Debian's python3-torch).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results/fashion-mnist-short}
data=${DATA:-../shared/datasets/fashion-mnist}
seeds=${SEEDS:-1 2 3}
./build.sh >/dev/null
mkdir -p "$out"
for seed in $seeds; do
	for head in lda softmax; do
		dir="$out/go-$head-$seed"
		echo "== $dir"
		rm -rf "$dir"
		bin/deeplda train -backend cpu -data fashion-mnist -datadir "$data" -head "$head" \
			-epochs 5 -batch 256 -limit-train 10000 -val 5000 -bn-recalibrate 20 -seed "$seed" \
			-quiet -out "$dir"
		# Only the report is kept.
		find "$dir" -type f ! -name report.json -delete
	done
done
echo "== PyTorch"
"${PYTHON:-/usr/bin/python3}" bench/pytorch_images.py -seeds "$(echo $seeds | tr ' ' ,)" -heads lda,softmax \
	-epochs 5 -batch 256 -limit-train 10000 -bn-batches 20 -threads 2 -datadir "$data" -out "$out" >/dev/null
go run ./cmd/results RESULTS.md
