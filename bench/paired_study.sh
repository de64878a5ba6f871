#!/usr/bin/env bash
# paired_study.sh: the paired study of RESULTS.md ("The LDA head's
# calibration in two engines"): the reduced protocol, trained by deeplda
# and by its PyTorch twin with the same flags: Fashion-MNIST, the first
# 10,000 training images, no held-out images, EPOCHS epochs, batch 256,
# Adam 1e-3, lambda 0.01, the whole test set, BatchNorm statistics both
# trained and recomputed over 20 training batches after every epoch
# (-bn-history). One run a folder, OUT/ENGINE-HEAD-sSEED; the runs of
# both engines resume after their last whole epoch, so the script can be
# stopped and run again.
#
#   bench/paired_study.sh [OUT]     (default out/paired)
#
# Environment: SEEDS (default "1 2 3"), HEADS (lda, softmax, lda-diag,
# lda-full, lda-frozen; default "lda softmax"), ENGINES (default "deeplda
# pytorch"), EPOCHS (default 10), DATA (the Fashion-MNIST folder; default
# ../shared/datasets/fashion-mnist), PYTHON (default python3), DEEPLDA (a
# deeplda built elsewhere; default: ./build.sh builds bin/deeplda).
#
# A finished run of the twin is also evaluated by deeplda eval from its
# checkpoint (OUT/pytorch-HEAD-sSEED/deeplda-eval/report.json), which tells
# whether the engines differ in what they train or in how they measure it.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/resumable.sh
. bench/resumable.sh
out=${1:-out/paired}
data=${DATA:-../shared/datasets/fashion-mnist}
epochs=${EPOCHS:-10}
abs_data=$(realpath "$data")
abs_out=$(realpath -m "$out")
engines=${ENGINES:-deeplda pytorch}
deeplda=${DEEPLDA:-bin/deeplda}
[ -n "${DEEPLDA:-}" ] || ./build.sh >/dev/null
common=(-data fashion-mnist -limit-train 10000 -val 0 -batch 256 -lr 0.001 -epochs "$epochs" -bn-history -bn-recalibrate 20)
for seed in ${SEEDS:-1 2 3}; do
	for head in ${HEADS:-lda softmax}; do
		case $head in
		lda | softmax) flags=(-head "$head") ;;
		lda-diag) flags=(-head lda -cov diag) ;;
		lda-full) flags=(-head lda -cov full) ;;
		lda-frozen) flags=(-head lda -freeze-head) ;;
		*)
			echo "paired_study.sh: HEADS: unknown head $head" >&2
			exit 2
			;;
		esac
		for engine in $engines; do
			dir=$out/$engine-$head-s$seed
			case $engine in
			deeplda)
				train_resumable "$dir" -quiet -datadir "$data" "${common[@]}" "${flags[@]}" -seed "$seed"
				;;
			pytorch)
				if grep -qs '"status": "done"' "$dir/report.json"; then
					echo "== $dir: done"
				else
					resume=()
					if [ -f "$dir/resume.pt" ]; then resume=(-resume); fi
					echo "== $dir"
					# On the CPU the twin evaluates in batches of 128: a batch
					# of 1024 puts each layer's output (100 MB) in memory that
					# glibc maps afresh and the kernel faults in page by page,
					# four to eight times slower, with the same scores (they
					# differ in the fifth significant digit at most). glibc's
					# malloc also keeps the smaller freed tensors instead of
					# returning them to the kernel.
					(cd pytorch && MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
						"${PYTHON:-python3}" train.py -backend cpu -datadir "$abs_data" "${common[@]}" "${flags[@]}" \
						-eval-batch 128 -seed "$seed" -out "$abs_out/$engine-$head-s$seed" "${resume[@]}")
				fi
				if [ ! -f "$dir/deeplda-eval/report.json" ]; then
					"$deeplda" eval -checkpoint "$dir/checkpoint.safetensors" -datadir "$data" -data fashion-mnist -out "$dir/deeplda-eval"
				fi
				;;
			*)
				echo "paired_study.sh: ENGINES: unknown engine $engine (deeplda or pytorch)" >&2
				exit 2
				;;
			esac
		done
	done
done
