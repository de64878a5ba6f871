#!/usr/bin/env python3
"""Summarise the Fashion-MNIST side-by-side runs of RESULTS.md.

Reads our runs' report.json files (directories DIR/go-HEAD-SEED written by
`deeplda train ... -out DIR/go-HEAD-SEED`) and PyTorch's JSON lines
(`bench/pytorch_images.py` output) and prints the markdown table of
RESULTS.md: mean (min-max) over seeds of test accuracy and ECE with the
trained and the recalibrated BatchNorm statistics, learned sigma and
images/s, in percent where the paper uses percent.

Usage: python3 bench/summarize_results.py GO_DIR PYTORCH_JSONL
"""
import json
import os
import sys


def span(values, scale=100.0, fmt="{:.2f}"):
    """Mean (min-max) of values times scale, or '-' when there are none."""
    values = [v * scale for v in values if v is not None]
    if not values:
        return "-"
    mean = sum(values) / len(values)
    return "{} ({}-{})".format(fmt.format(mean), fmt.format(min(values)), fmt.format(max(values)))


def ours(go_dir, head):
    """Rows of our runs of one head: one dict per seed."""
    rows = []
    for name in sorted(os.listdir(go_dir)):
        if not name.startswith("go-%s-" % head):
            continue
        path = os.path.join(go_dir, name, "report.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            r = json.load(f)
        bn = r["batchnorm"]
        rows.append({
            "seed": r["config"]["seed"],
            "acc": bn["running_stats"]["accuracy"], "ece": bn["running_stats"]["ece"],
            "acc_re": bn["recalibrated"]["accuracy"], "ece_re": bn["recalibrated"]["ece"],
            "train_acc": bn.get("train_mode_accuracy"),
            "sigma": (r.get("head") or {}).get("sigma"),
            "ips": r["config"]["epochs"] * r["config"]["limit_train"] / r["seconds"],
        })
    return rows


def pytorch(jsonl, head):
    """Rows of PyTorch's runs of one head."""
    rows = []
    with open(jsonl) as f:
        for line in f:
            r = json.loads(line)
            if r["head"] != head:
                continue
            rows.append({
                "seed": r["seed"], "acc": r["accuracy"], "ece": r["ece"],
                "acc_re": r["recalibrated"]["accuracy"], "ece_re": r["recalibrated"]["ece"],
                "sigma": r.get("sigma"), "ips": r["images_per_second"],
            })
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    go_dir, jsonl = sys.argv[1], sys.argv[2]
    print("| head | implementation | seeds | test accuracy, trained BN | ECE, trained BN "
          "| test accuracy, recalibrated BN | ECE, recalibrated BN | learned sigma | images/s in the run |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for head, label in (("lda", "LDA spherical + DNLL"), ("softmax", "softmax + CE")):
        for impl, rows in (("PyTorch", pytorch(jsonl, head)), ("ours", ours(go_dir, head))):
            col = lambda k, **kw: span([r[k] for r in rows], **kw)
            print("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                label, impl, ",".join(str(r["seed"]) for r in rows), col("acc"), col("ece"),
                col("acc_re"), col("ece_re"), col("sigma", scale=1, fmt="{:.3f}"),
                col("ips", scale=1, fmt="{:.0f}")))
    print()
    for head in ("lda", "softmax"):
        for r in ours(go_dir, head):
            print("ours {} seed {}: trained BN {:.2f}, recalibrated {:.2f}, training mode (last epoch) {}".format(
                head, r["seed"], 100 * r["acc"], 100 * r["acc_re"],
                "-" if r["train_acc"] is None else "{:.2f}".format(100 * r["train_acc"])))


if __name__ == "__main__":
    main()
