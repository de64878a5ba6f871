#!/usr/bin/env python3
"""The golden PyTorch trajectory replayed by PyTorch on another device.

../shared/golden/fmnist_trajectory.safetensors is PyTorch's run on the CPU
(gen_golden.py's trajectory_case: 30 Adam steps at batch 64 over the first
1920 Fashion-MNIST training images, the LDA head with DNLL and the softmax
head with CE). traintest.Trajectory measures how far deeplda's backends
drift from it. This script replays the same run, from the same initial
parameters, with PyTorch on each device given (cuda: fp32 with TF32 off,
and cuda-tf32: PyTorch's defaults; cpu: fp32) and prints one JSON line per
run and head with the same measures: the largest relative loss difference
in the first 5 steps and in all 30, the relative L2 error of the
evaluation-mode scores on the first 512 test images, and how many of them
it classifies correctly against the golden run. PyTorch's own drift on a
GPU is the yardstick for a GPU backend's (bench/gpu.sh runs it there).

  python3 bench/pytorch_trajectory.py GOLDEN_DIR DATA_DIR [DEVICE...]

DATA_DIR holds the Fashion-MNIST IDX files (the first images suffice).
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))
from deeplda_twin import checkpoint, data  # noqa: E402 (the PyTorch twin, pytorch/)
from deeplda_twin.model import ConvNet, DeepLDA, LDAHead, SoftmaxHead, dnll  # noqa: E402

STEPS, BATCH, TEST = 30, 64, 512


def run(golden, xs, ys, xt, yt, device, kind):
    dev = torch.device("cuda" if device.startswith("cuda") else "cpu")
    tf32 = device == "cuda-tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    head = LDAHead(10, 9, "spherical") if kind == "lda" else SoftmaxHead(9, 10)
    model = DeepLDA(ConvNet(1, 9), head)
    init = {k[len(kind) + 6:]: v for k, v in golden.items() if k.startswith(kind + "/init/")}
    model.load_state_dict(init, strict=True)
    model.to(dev).train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    want = golden[kind + "/losses"].tolist()
    first = worst = 0.0
    for s in range(STEPS):
        xb, yb = xs[s * BATCH:(s + 1) * BATCH].to(dev), ys[s * BATCH:(s + 1) * BATCH].to(dev)
        out = model(xb)
        loss = dnll(out, yb, 0.01) if kind == "lda" else F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rel = abs(loss.item() - want[s]) / abs(want[s])
        worst = max(worst, rel)
        if s < 5:
            first = worst
    model.eval()
    with torch.no_grad():
        scores = model(xt.to(dev)).cpu()
    ref = golden[kind + "/test512_logits"]
    logits = ((scores - ref).norm() / ref.norm()).item()
    correct = int((scores.argmax(1) == yt).sum())
    golden_correct = round(float(golden[kind + "/test512_accuracy"]) * TEST)
    return {"bench": "trajectory", "device": device, "head": kind, "first_losses": first, "losses": worst,
            "logits": logits, "correct": correct, "golden_correct": golden_correct}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    golden = checkpoint.load(os.path.join(sys.argv[1], "fmnist_trajectory.safetensors"))
    folder = sys.argv[2]
    xs, ys = [torch.from_numpy(a.copy()) for a in (
        data._read_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"), 0x803)[:STEPS * BATCH],
        data._read_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz"), 0x801)[:STEPS * BATCH])]
    xt, yt = [torch.from_numpy(a.copy()) for a in (
        data._read_idx(os.path.join(folder, "t10k-images-idx3-ubyte.gz"), 0x803)[:TEST],
        data._read_idx(os.path.join(folder, "t10k-labels-idx1-ubyte.gz"), 0x801)[:TEST])]
    xs, xt = [(x.float() / 255.0 - 0.2860) / 0.3530 for x in (xs, xt)]
    ys, yt = ys.long(), yt.long()
    devices = sys.argv[3:] or (["cuda", "cuda-tf32", "cpu"] if torch.cuda.is_available() else ["cpu"])
    for device in devices:
        for kind in ("lda", "softmax"):
            print(json.dumps(run(golden, xs, ys, xt, yt, device, kind)), flush=True)


if __name__ == "__main__":
    main()
