#!/usr/bin/env bash
# paper_protocol.sh: the paper's image protocol on Fashion-MNIST (all 60,000
# training images, 100 epochs, Adam 1e-3, batch 256, seeds 1-3, the LDA head
# with DNLL and the softmax head with CE), with out-of-distribution scores
# against MNIST at the end. Every run is resumable: run the script again and
# it continues each run after its last completed epoch. Meant for a machine
# with a GPU (about 4 hours per run on a 2-core CPU).
#
#   bench/paper_protocol.sh [OUT]          (default out/paper)
#
# Environment: BACKEND (auto, webgpu or cpu; default auto), DATA and
# OOD_DATA (the folders of the Fashion-MNIST and MNIST files; default
# ../shared/datasets/...; OOD_DATA set empty: no out-of-distribution
# scores, which deeplda eval -ood can add from the checkpoint), SEEDS
# (default "1 2 3"), HEADS (default "lda softmax"), EPOCHS (default 100),
# DEEPLDA (a deeplda built elsewhere, as on a GPU machine without Go;
# default: ./build.sh builds bin/deeplda).
# Then list the runs in RESULTS.md's markers and run go run ./cmd/results RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/resumable.sh
. bench/resumable.sh
out=${1:-out/paper}
data=${DATA:-../shared/datasets/fashion-mnist}
ood=()
[ -n "${OOD_DATA-../shared/datasets/mnist}" ] && ood=(-ood mnist -ood-datadir "${OOD_DATA:-../shared/datasets/mnist}")
[ -n "${DEEPLDA:-}" ] || ./build.sh >/dev/null
for seed in ${SEEDS:-1 2 3}; do
	for head in ${HEADS:-lda softmax}; do
		train_resumable "$out/fashion-mnist-$head-s$seed" -backend "${BACKEND:-auto}" \
			-data fashion-mnist -datadir "$data" -head "$head" -epochs "${EPOCHS:-100}" -val 0 \
			-seed "$seed" "${ood[@]}"
	done
done
