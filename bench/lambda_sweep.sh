#!/usr/bin/env bash
# lambda_sweep.sh: the paper's lambda sweep on Fashion-MNIST: the ConvNet
# with the spherical LDA head and DNLL for lambda 0.001 to 10 (nine values,
# three a decade), the paper's protocol otherwise (all 60,000 training
# images, Adam 1e-3, batch 256, EPOCHS epochs), three seeds, with BatchNorm
# recalibrated at the end. deeplda sweep writes OUT/sweep.json (every run
# and, per lambda, the mean, spread and range over seeds of the test
# accuracy, the test ECE (10 bins) and the learned sigma), the figures
# sweep_accuracy.svg, sweep_ece.svg and sweep_sigma.svg, and each run's
# report.json under OUT/runs/, after every run (an interrupted sweep keeps
# what finished). Meant for a machine with a GPU: a run of 20 epochs takes
# about 5 minutes on an H200 (22,000 images/s), 27 runs about 2.5 hours;
# on a 2-core CPU a run takes some 4.5 hours.
#
#   bench/lambda_sweep.sh [OUT]          (default out/lambda-sweep)
#
# Environment: BACKEND (auto, webgpu or cpu; default auto), DATA (the folder
# of the Fashion-MNIST files; default ../shared/datasets/fashion-mnist),
# LAMBDAS (default 0.001,0.003,0.01,0.03,0.1,0.3,1,3,10), SEEDS (seeds per
# lambda, default 3), EPOCHS (default 20; the paper trains 100), EXTRA
# (flags added to the command, e.g. "-limit-train 6000 -batch 64" for the
# reduced sweep of RESULTS.md), DEEPLDA (a deeplda built elsewhere, as on
# a GPU machine without Go; default: ./build.sh builds bin/deeplda).
# Then name OUT in RESULTS.md's sweep marker and run go run ./cmd/results RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/lambda-sweep}
deeplda=${DEEPLDA:-bin/deeplda}
[ -n "${DEEPLDA:-}" ] || ./build.sh >/dev/null
# shellcheck disable=SC2086 # EXTRA is a list of flags
"$deeplda" sweep -backend "${BACKEND:-auto}" -data fashion-mnist -datadir "${DATA:-../shared/datasets/fashion-mnist}" \
	-lambdas "${LAMBDAS:-0.001,0.003,0.01,0.03,0.1,0.3,1,3,10}" -seeds "${SEEDS:-3}" -epochs "${EPOCHS:-20}" \
	-val 0 -bn-recalibrate 20 -quiet ${EXTRA:-} -out "$out"
