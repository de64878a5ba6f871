#!/usr/bin/env bash
# hosted_models.sh: trains the site's hosted models (models/, whose README
# lists them) and installs them there. Both heads, seed 1, CPU backend, the
# first 55,000 training images (the last 5,000 held out for temperature
# scaling), BatchNorm recalibrated over 20 training batches at the end:
#   fashion-mnist-lda, fashion-mnist-softmax   20 epochs, OOD against MNIST
#   mnist-lda, mnist-softmax                    5 epochs, OOD against Fashion-MNIST
# Each run trains in WORK/<name> and is resumable: run the script again and
# it continues each run after its last whole epoch. A finished run is
# installed in MODELS/<name>: its report.json, COMMAND.txt (the command
# that trained it) and checkpoint.safetensors with the recalibrated
# BatchNorm statistics that give the report's test numbers (deeplda eval
# -bn-recalibrate with the run's batches, seed and training images, which
# recomputes them exactly as training's end did; the trained statistics'
# figures stay in report.json's batchnorm.running_stats), and RESULTS.md's
# tables are regenerated (go run ./cmd/results RESULTS.md).
#
#   bench/hosted_models.sh [NAME...]          (default: all four)
#
# A Fashion-MNIST model takes about 4.5 hours on one core of the 2-core
# development machine (AVX2); two runs at once, one a core:
#   GOMAXPROCS=1 bench/hosted_models.sh fashion-mnist-lda &
#   GOMAXPROCS=1 bench/hosted_models.sh fashion-mnist-softmax &
#
# Environment: WORK (default out/hosted), MODELS (default models), DATASETS
# (the folder of fashion-mnist/ and mnist/; default ../shared/datasets),
# EXTRA (flags added to each command, e.g. "-epochs 1 -limit-train 512" for
# a quick check; with EXTRA set, nothing is installed unless MODELS is set).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/resumable.sh
. bench/resumable.sh
work=${WORK:-out/hosted}
datasets=${DATASETS:-../shared/datasets}
extra=${EXTRA:-}
if [ -n "$extra" ] && [ -z "${MODELS:-}" ]; then
	models=
else
	models=${MODELS:-models}
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	names=(fashion-mnist-lda fashion-mnist-softmax mnist-lda mnist-softmax)
fi
# settings sets data, ood and epochs for the model $1, or fails.
settings() {
	case $1 in
	fashion-mnist-lda | fashion-mnist-softmax) data=fashion-mnist ood=mnist epochs=20 ;;
	mnist-lda | mnist-softmax) data=mnist ood=fashion-mnist epochs=5 ;;
	*)
		echo "hosted_models.sh: unknown model $1 (fashion-mnist-lda, fashion-mnist-softmax, mnist-lda, mnist-softmax)" >&2
		exit 2
		;;
	esac
}
for name in "${names[@]}"; do settings "$name"; done
./build.sh >/dev/null
for name in "${names[@]}"; do
	settings "$name"
	head=${name##*-}
	# shellcheck disable=SC2206 # EXTRA is a list of flags
	args=(-backend cpu -data "$data" -datadir "$datasets/$data" -head "$head" -seed 1
		-epochs "$epochs" -bn-recalibrate 20 -ood "$ood" -ood-datadir "$datasets/$ood" $extra)
	dir=$work/$name
	train_resumable "$dir" "${args[@]}"
	if [ -z "$models" ]; then
		continue
	fi
	mkdir -p "$models/$name"
	bin/deeplda eval -backend cpu -checkpoint "$dir/checkpoint.safetensors" -data "$data" -datadir "$datasets/$data" \
		-bn-recalibrate 20 -limit-train 55000 -seed 1 -batch 256 -out "$dir/recalibrated"
	cp "$dir/recalibrated/recalibrated.safetensors" "$models/$name/checkpoint.safetensors"
	cp "$dir/report.json" "$models/$name/"
	echo "deeplda train ${args[*]} -out models/$name" >"$models/$name/COMMAND.txt"
	echo "== installed $models/$name"
done
if [ "$models" = models ]; then
	go run ./cmd/results RESULTS.md
fi
