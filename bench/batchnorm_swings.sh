#!/usr/bin/env bash
# batchnorm_swings.sh: the per-epoch BatchNorm question of RESULTS.md, on a
# GPU machine: both heads on full Fashion-MNIST (the hosted models'
# protocol: the first 55,000 training images, seed 1, EPOCHS epochs, Adam
# 1e-3, batch 256), trained by deeplda and by its PyTorch twin, each
# recording after every epoch the test accuracy and ECE in evaluation mode
# with the trained running statistics and with statistics recomputed over
# 20 training batches (-bn-history: history's test_accuracy_recalibrated
# and test_ece_recalibrated). Four runs, into OUT/{deeplda,pytorch}-{lda,softmax};
# deeplda's are resumable (run the script again to continue them).
#
#   bench/batchnorm_swings.sh [OUT]          (default out/bn-swings)
#
# Environment: BACKEND (deeplda's: auto, webgpu or cpu; default auto),
# TORCH_BACKEND (the twin's: cuda, cpu or auto; default auto), DATA (the
# folder of the Fashion-MNIST files; default
# ../shared/datasets/fashion-mnist), EPOCHS (default 20), HEADS (default
# "lda softmax") and ENGINES (default "deeplda pytorch"): the runs this
# call makes, so that several calls can share a GPU at once, PYTHON (a
# Python with PyTorch; default python3), DEEPLDA (a deeplda built
# elsewhere; default: ./build.sh builds bin/deeplda). Then list the runs in RESULTS.md's
# epochs markers and run go run ./cmd/results RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/resumable.sh
. bench/resumable.sh
out=${1:-out/bn-swings}
data=${DATA:-../shared/datasets/fashion-mnist}
epochs=${EPOCHS:-20}
abs_data=$(realpath "$data")
abs_out=$(realpath -m "$out")
[ -n "${DEEPLDA:-}" ] || ./build.sh >/dev/null
engines=${ENGINES:-deeplda pytorch}
for head in ${HEADS:-lda softmax}; do
	for engine in $engines; do
		case $engine in
		deeplda)
			train_resumable "$out/deeplda-$head" -backend "${BACKEND:-auto}" -data fashion-mnist -datadir "$data" \
				-head "$head" -seed 1 -epochs "$epochs" -bn-recalibrate 20 -bn-history
			;;
		pytorch)
			(cd pytorch && "${PYTHON:-python3}" train.py -backend "${TORCH_BACKEND:-auto}" -data fashion-mnist -datadir "$abs_data" \
				-head "$head" -seed 1 -epochs "$epochs" -bn-history -bn-recalibrate 20 -out "$abs_out/pytorch-$head")
			;;
		*)
			echo "batchnorm_swings.sh: ENGINES: unknown engine $engine (deeplda or pytorch)" >&2
			exit 2
			;;
		esac
	done
done
