#!/usr/bin/env python3
"""PyTorch CPU baselines for BENCHMARKS.md, the same work as the Go benchmarks.

  toy:     the 100-epoch Deep LDA toy run (MLP 2-32-2, full-covariance head,
           DNLL lambda=0.01, Adam lr 1e-3, batch 256, 20,000 points), 1 thread
  convnet: training steps of the paper's ConvNet (spherical LDA head, DNLL) on
           28x28 inputs at batch 64 (and 256), 2 threads

Run with Debian's PyTorch: apt-get install -y python3-torch, then
  /usr/bin/python3 bench/pytorch_baseline.py toy|convnet
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


if __name__ == "__main__":
    {"toy": toy, "convnet": convnet}[sys.argv[1] if len(sys.argv) > 1 else "toy"]()
