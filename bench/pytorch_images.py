#!/usr/bin/env python3
"""PyTorch reference for the image protocol of RESULTS.md (same work as
`deeplda train`).

Fashion-MNIST, the first N training images (default 10,000) in file order,
reshuffled every epoch, inputs (x/255 - 0.2860)/0.3530, no augmentation;
the paper's ConvNet (three blocks of two 3x3 Conv-BN-ReLU, 64/128/256
channels, 2x2 max pool after blocks 1 and 2, global average pool,
Linear(256, 9)); Adam (lr 1e-3, PyTorch defaults), batch 256; heads:

  lda      LDA spherical head, DNLL with lambda 0.01 (mu ~ N(0, 6^2/(2d)),
           log_var = 0, prior logits 0)
  softmax  Linear(9, 10) with cross-entropy

Evaluation on the whole test set (10,000 images) in eval mode (the trained
BatchNorm running statistics), batch 1024: accuracy, ECE with 10 bins
(equal-width bins (lo, hi], as gen_golden.py), NLL. Also the same
evaluation after recomputing the BatchNorm statistics over the first K
batches of a seeded permutation of the training images (reset, then
cumulative average as momentum=None; what `deeplda train -bn-recalibrate K`
does). images/s counts training only (forward, backward and Adam).
The model, the loss, the data files and the metrics are those of the
PyTorch twin (pytorch/deeplda_twin).

Run with Debian's PyTorch (the plain python3 cannot see it):

  /usr/bin/python3 bench/pytorch_images.py [-seeds 1,2,3] [-heads lda,softmax]
      [-epochs 5] [-limit-train 10000] [-threads 2] [-datadir ../shared/datasets/fashion-mnist]

Prints one JSON line per run; with -out DIR, also writes each run's
figures as DIR/pytorch-HEAD-SEED/report.json, in the keys of deeplda's
report.json that `go run ./cmd/results` reads (backend "pytorch").
"""
import argparse
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pytorch"))
from deeplda_twin import data, metrics, model as twin  # noqa: E402 (the PyTorch twin, pytorch/)


@torch.no_grad()
def evaluate(model, x, y, batch=1024):
    model.eval()
    scores = torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)])
    ev = metrics.evaluate(scores, y)
    return {k: ev[k] for k in ("accuracy", "ece", "nll")}


@torch.no_grad()
def recalibrate(model, x, batches, batch, seed):
    """Recompute the BatchNorm running statistics as a cumulative average
    over `batches` training batches (PyTorch's momentum=None)."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    saved = [m.momentum for m in bns]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(x), generator=g)
    for k in range(batches):
        idx = perm[k * batch:(k + 1) * batch]
        if len(idx) == 0:
            break
        model.enc(x[idx])
    for m, mom in zip(bns, saved):
        m.momentum = mom


def run(head, seed, args, data):
    x, y, xt, yt = data
    torch.manual_seed(seed)
    model = twin.image_model(1, 10, head)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    g = torch.Generator().manual_seed(seed)
    n, seen, train_s = len(x), 0, 0.0
    for _ in range(args.epochs):
        model.train()
        perm = torch.randperm(n, generator=g)
        t0 = time.perf_counter()
        for i in range(0, n, args.batch):
            idx = perm[i:i + args.batch]
            out = model(x[idx])
            loss = twin.dnll(out, y[idx], args.lam) if head == "lda" else F.cross_entropy(out, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += len(idx)
        train_s += time.perf_counter() - t0
    res = {"impl": "pytorch", "torch": torch.__version__, "threads": torch.get_num_threads(),
           "data": "fashion-mnist", "head": head, "loss": "dnll" if head == "lda" else "ce",
           "lambda": args.lam if head == "lda" else None, "seed": seed, "epochs": args.epochs,
           "batch": args.batch, "train_examples": n, "test_examples": len(xt),
           "train_seconds": train_s, "images_per_second": seen / train_s}
    ev = evaluate(model, xt, yt)
    res.update(ev)
    if head == "lda":
        res["sigma"] = float(torch.exp(0.5 * model.head.log_var))
    recalibrate(model, x, args.bn_batches, args.batch, seed)
    rc = evaluate(model, xt, yt)
    res["recalibrated"] = dict(rc, batches=args.bn_batches)
    return res


def commit():
    """The repository's commit, or None outside a git checkout."""
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def write_report(out, res):
    """Write res as OUT/pytorch-HEAD-SEED/report.json in report.json's keys."""
    split = lambda ev: {"examples": res["test_examples"], **{k: ev[k] for k in ("accuracy", "ece", "nll")}}
    rep = {
        "kind": "pytorch_images",
        "config": {k: res[k] for k in ("data", "head", "loss", "lambda", "epochs", "batch", "seed")}
        | {"limit_train": res["train_examples"]},
        "backend": {"name": "pytorch", "adapter": "PyTorch %s, %d thread%s" % (res["torch"], res["threads"], "" if res["threads"] == 1 else "s")},
        "train": {"examples": res["train_examples"]},
        "test": split(res["recalibrated"]),
        "head": {"sigma": res.get("sigma")},
        "seconds": res["train_seconds"],
        "batchnorm": {"batches": res["recalibrated"]["batches"], "running_stats": split(res),
                      "recalibrated": split(res["recalibrated"])},
        "commit": commit(),
    }
    d = os.path.join(out, "pytorch-%s-%d" % (res["head"], res["seed"]))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-seeds", default="1,2,3")
    p.add_argument("-heads", default="lda,softmax")
    p.add_argument("-epochs", type=int, default=5)
    p.add_argument("-batch", type=int, default=256)
    p.add_argument("-lr", type=float, default=1e-3)
    p.add_argument("-lam", type=float, default=0.01)
    p.add_argument("-limit-train", dest="limit_train", type=int, default=10000)
    p.add_argument("-limit-test", dest="limit_test", type=int, default=0)
    p.add_argument("-bn-batches", dest="bn_batches", type=int, default=20)
    p.add_argument("-threads", type=int, default=2)
    p.add_argument("-datadir", default=os.path.join(HERE, "..", "..", "shared", "datasets", "fashion-mnist"))
    p.add_argument("-out", default="", help="also write each run's report.json under this folder")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    x, y, xt, yt = data.load("fashion-mnist", args.datadir)
    x, y = data.normalise(x[:args.limit_train or None], "fashion-mnist"), y[:args.limit_train or None]
    xt, yt = data.normalise(xt[:args.limit_test or None], "fashion-mnist"), yt[:args.limit_test or None]
    for head in args.heads.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            res = run(head, seed, args, (x, y, xt, yt))
            print(json.dumps(res), flush=True)
            if args.out:
                write_report(args.out, res)


if __name__ == "__main__":
    main()
