#!/usr/bin/env python3
"""PyTorch CPU baselines for BENCHMARKS.md, the same work as the Go benchmarks.

  toy:     the 100-epoch Deep LDA toy run (MLP 2-32-2, full-covariance head,
           DNLL lambda=0.01, Adam lr 1e-3, batch 256, 20,000 points), 1 thread
  convnet: training steps of the paper's ConvNet (spherical LDA head, DNLL) on
           28x28 inputs at batch 64 (and 256), 2 threads
  gpu:     the GPU table's PyTorch rows (bench/gpu.sh): the ConvNet step at
           batch 64 and 256, the toy step at batch 256 and the 1024-4096
           matmuls, eager, on CUDA when it is there (else the CPU, which
           stands in for it when the script is tested without a GPU), in
           fp32 with TF32 off ("fp32") and with PyTorch's defaults
           ("default": cuDNN's convolutions may use TF32); the toy step
           and the matmuls as in deeplda bench -suite (same shapes, one
           untimed warm-up, then timed steps ended by a synchronisation)

Run with Debian's PyTorch: apt-get install -y python3-torch, then
  /usr/bin/python3 bench/pytorch_baseline.py toy|convnet
  /usr/bin/python3 bench/pytorch_baseline.py gpu [STEPS] [SIZES] [BATCHES]
Prints one JSON line per measurement.
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))
from deeplda_twin.model import ConvNet, LDAHead, dnll  # noqa: E402 (the PyTorch twin, pytorch/)


def toy():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    means = torch.tensor([[-2.0, -0.5], [2.2, 0.2], [-0.5, 2.3]]) * 2.5
    L = torch.linalg.cholesky(torch.tensor([[1.0, 0.35], [0.35, 1.1]]))
    y = torch.randint(0, 3, (20000,))
    x = means[y] + torch.randn(20000, 2) @ L.T
    enc = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
    head = LDAHead(3, 2, "full")
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
    t0 = time.perf_counter()
    for _ in range(100):
        perm = torch.randperm(20000)
        for i in range(0, 20000, 256):
            idx = perm[i:i + 256]
            loss = dnll(head(enc(x[idx])), y[idx], 0.01)
            opt.zero_grad()
            loss.backward()
            opt.step()
    sec = time.perf_counter() - t0
    with torch.no_grad():
        acc = (head(enc(x)).argmax(1) == y).float().mean().item()
    print(json.dumps({"bench": "toy_dnll_100_epochs", "threads": 1, "seconds": round(sec, 3), "train_accuracy": acc}))


def convnet():
    torch.set_num_threads(2)
    torch.manual_seed(0)
    enc, head = ConvNet(1, 9), LDAHead(10, 9, "spherical")
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
    for batch in (64, 256):
        x, y = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
        for i in range(8):
            if i == 2:
                t0 = time.perf_counter()
            loss = dnll(head(enc(x)), y, 0.01)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sec = (time.perf_counter() - t0) / 6
        print(json.dumps({"bench": "convnet_step_28x28", "batch": batch, "threads": 2,
                          "seconds_per_step": round(sec, 4), "images_per_second": round(batch / sec, 1),
                          "gflops": round(batch * 695.5e6 / sec / 1e9, 1)}))


def training_step(enc, head, x, y, dev):
    """Returns one DNLL training step (lambda 0.01, Adam 1e-3) of enc and
    head on the batch (x, y), which it uploads to dev as deeplda's bench
    step does."""
    enc, head = enc.to(dev), head.to(dev)
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)

    def step():
        xd, yd = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        loss = dnll(head(enc(xd)), yd, 0.01)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def gpu(steps="10", sizes="1024,2048,4096", batches="64,256"):
    steps = int(steps)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    info = {"torch": torch.__version__, "device": name,
            "cuda": torch.version.cuda if dev.type == "cuda" else None,
            "cudnn": torch.backends.cudnn.version() if dev.type == "cuda" else None}
    print(json.dumps({"bench": "pytorch_info", **info}), flush=True)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def timed(step):
        step()  # warm-up (cuDNN's algorithm choice, allocations)
        sync()
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        return (time.perf_counter() - t0) / steps

    # PyTorch's defaults: cuDNN's convolutions may use TF32, matmuls stay
    # fp32 (torch.backends.cuda.matmul.allow_tf32 is False by default).
    default_conv_tf32 = torch.backends.cudnn.allow_tf32
    default_matmul_tf32 = torch.backends.cuda.matmul.allow_tf32
    for mode in ("fp32", "default"):
        torch.backends.cudnn.allow_tf32 = default_conv_tf32 if mode == "default" else False
        torch.backends.cuda.matmul.allow_tf32 = default_matmul_tf32 if mode == "default" else False
        torch.manual_seed(0)
        row = {"precision": mode, "device": name}
        for s in [int(v) for v in sizes.split(",") if v]:
            a, b = torch.randn(s, s, device=dev), torch.randn(s, s, device=dev)
            sec = timed(lambda: torch.mm(a, b))
            print(json.dumps({"bench": "matmul", "size": s, **row, "seconds_per_step": sec,
                              "gflops": 2 * s ** 3 / sec / 1e9}), flush=True)
        for batch in [int(v) for v in batches.split(",") if v]:
            step = training_step(ConvNet(1, 9), LDAHead(10, 9, "spherical"), torch.randn(batch, 1, 28, 28),
                                 torch.arange(batch) % 10, dev)
            sec = timed(step)
            print(json.dumps({"bench": "convnet", "batch": batch, **row, "seconds_per_step": sec,
                              "images_per_second": batch / sec, "gflops": batch * 695.5e6 / sec / 1e9}), flush=True)
        step = training_step(nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2)), LDAHead(3, 2, "full"),
                             torch.randn(256, 2), torch.arange(256) % 3, dev)
        sec = timed(step)
        print(json.dumps({"bench": "mlp", "batch": 256, **row, "seconds_per_step": sec,
                          "images_per_second": 256 / sec}), flush=True)
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = default_conv_tf32, default_matmul_tf32


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "toy"
    {"toy": toy, "convnet": convnet, "gpu": gpu}[mode](*sys.argv[2:])
