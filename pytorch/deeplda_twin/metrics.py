"""Evaluation of scores (delta or logits) as deeplda's report.json has it:
accuracy, ECE with equal-width bins (lo, hi] and confidence = the largest
posterior (Guo et al. 2017), NLL, reliability bins; temperature scaling."""
import math

import numpy as np
import torch


def reliability(conf, correct, bins):
    """The bins (lo, hi] of [0, 1]: count, accuracy and mean confidence."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        k = int(m.sum())
        out.append({"lo": float(lo), "hi": float(hi), "count": k,
                    "accuracy": float(correct[m].mean()) if k else 0.0,
                    "confidence": float(conf[m].mean()) if k else 0.0})
    return out


def ece(conf, correct, bins):
    """Expected calibration error over bins equal-width bins."""
    return sum(b["count"] / len(conf) * abs(b["accuracy"] - b["confidence"]) for b in reliability(conf, correct, bins))


def bootstrap(conf, correct, bins=10, resamples=1000, level=0.95, seed=1):
    """Percentile bootstrap intervals [low, high] at level of the accuracy
    and of the ECE (bins equal-width bins), over resamples draws of
    len(conf) predictions with replacement, as deeplda's metrics.Bootstrap
    computes them (its draws come from another generator)."""
    n = len(conf)
    edges = np.linspace(0.0, 1.0, bins + 1)
    b = np.searchsorted(edges, conf, side="left") - 1  # (lo, hi]; -1 or bins: in no bin
    inside = (b >= 0) & (b < bins)
    b = np.where(inside, b, bins)  # one more bin that the ECE leaves out
    rng = np.random.default_rng(seed)
    accs, eces = np.empty(resamples), np.empty(resamples)
    for r in range(resamples):
        i = rng.integers(0, n, n)
        hits = np.bincount(b[i], weights=correct[i], minlength=bins + 1)[:bins]
        sums = np.bincount(b[i], weights=conf[i], minlength=bins + 1)[:bins]
        accs[r], eces[r] = correct[i].mean(), np.abs(hits - sums).sum() / n
    tail = (1 - level) / 2 * 100
    return ([float(v) for v in np.percentile(accs, [tail, 100 - tail])],
            [float(v) for v in np.percentile(eces, [tail, 100 - tail])])


def evaluate(scores, y, intervals=False):
    """A report.json split of the scores [N, C] for the labels y [N]; with
    intervals, also the bootstrap intervals accuracy_ci and ece_ci."""
    logp = torch.log_softmax(scores.double(), 1)
    conf, pred = logp.exp().max(1)
    conf, correct = conf.numpy(), (pred == y).numpy().astype(np.float64)
    rel = reliability(conf, correct, 10)
    split = {"examples": len(y), "accuracy": float(correct.mean()), "ece": ece(conf, correct, 10),
             "ece15": ece(conf, correct, 15), "nll": float(-logp.gather(1, y[:, None]).mean()),
             "reliability": rel, "confidence_histogram": [b["count"] for b in rel],
             "mean_confidence": float(conf.mean())}
    if intervals and len(y):
        split["accuracy_ci"], split["ece_ci"] = bootstrap(conf, correct)
    return split


def fit_temperature(scores, y, lo=1e-3, hi=1e3):
    """Temperature scaling (Guo et al. 2017): the T in [lo, hi] that
    minimises the mean NLL of y under softmax(scores / T), found by golden
    section search in log T (the NLL is convex in 1/T). Returns T and the
    NLL before (T = 1) and after."""
    s = scores.double()

    def nll(log_t):
        return float(torch.nn.functional.cross_entropy(s / math.exp(log_t), y))

    a, b, g = math.log(lo), math.log(hi), (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = nll(c), nll(d)
    while b - a > 1e-9:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = nll(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = nll(d)
    t = math.exp((a + b) / 2)
    return {"temperature": t, "nll_before": nll(0.0), "nll_after": nll(math.log(t))}
