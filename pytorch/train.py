#!/usr/bin/env python3
"""Trains the PyTorch twin of `deeplda train`: the paper's ConvNet with an
LDA or softmax head on Fashion-MNIST, MNIST, CIFAR-10 or CIFAR-100, with the
same flags, defaults, data files and splits, and writes checkpoint.safetensors
(reference parameter names: `deeplda eval` and the page open it) and
report.json to -out.

One process per device, with torchrun (DistributedDataParallel: NCCL on
GPUs, gloo on CPUs):

  python3 -m torch.distributed.run --nproc_per_node N pytorch/train.py [flags]

or in one process: python3 pytorch/train.py [flags].

-batch is the global batch, as in deeplda: each of the N processes takes
batch/N examples of it (DistributedSampler, reshuffled every epoch from
-seed), and DistributedDataParallel averages the gradients, so N processes
take the same steps as one process with the same -batch. BatchNorm is plain
BatchNorm2d, not SyncBatchNorm: each process normalises with the statistics
of its own batch/N examples and the running statistics are those of process
0 (broadcast at every step); SyncBatchNorm would add an all-reduce per layer
and step and needs CUDA in PyTorch 1.13.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from deeplda_twin import checkpoint, data, metrics, model as twin


class UsageError(Exception):
    """An invalid flag value."""


def flags(argv):
    p = argparse.ArgumentParser(prog="pytorch/train.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)

    def flag(name, **kw):
        p.add_argument("-" + name, "--" + name, dest=name.replace("-", "_"), **kw)

    flag("data", default="fashion-mnist", help="data set: " + ", ".join(sorted(data.SPECS)))
    flag("datadir", default="", help="folder with the data set's published files (default datasets/<data>)")
    flag("head", default="lda", help="head: lda or softmax")
    flag("cov", default="spherical", help="covariance of the LDA head: spherical, diag or full")
    flag("loss", default="", help="loss: dnll, ce or nll (default dnll for lda, ce for softmax)")
    flag("lambda", type=float, default=0.01, help="DNLL penalty weight lambda (>= 0)")
    flag("epochs", type=int, default=100, help="training epochs")
    flag("batch", type=int, default=256, help="global batch size (a multiple of the number of processes)")
    flag("lr", type=float, default=1e-3, help="Adam learning rate")
    flag("seed", type=int, default=1, help="seed of the initialisation, the shuffling and the augmentation")
    flag("limit-train", type=int, default=0, help="train on the first N training images in file order (0: all but the -val held-out ones)")
    flag("limit-test", type=int, default=0, help="evaluate on the first N test images (0: all)")
    flag("val", type=int, default=5000, help="training images held out from the end of the training file to fit temperature scaling (0: none)")
    flag("augment", default="auto", help="augmentation: auto (crop+flip for CIFAR, none for the MNISTs), none, crop, flip or crop+flip")
    flag("eval-batch", type=int, default=1024, help="evaluation batch size")
    flag("bn-history", action="store_true", help="also record, after every epoch, the test accuracy and ECE with BatchNorm "
         "statistics recomputed over -bn-recalibrate training batches, then go on with the trained ones "
         "(history's test_accuracy_recalibrated, test_ece_recalibrated)")
    flag("bn-recalibrate", type=int, default=20, help="training batches of -batch images over which -bn-history recomputes the statistics")
    flag("freeze-head", action="store_true", help="keep the head's parameters (the LDA head's means, priors and variance) at their "
         "initial values and train the encoder alone, as the optimiser of the authors' Fashion-MNIST notebook does")
    flag("resume", action="store_true", help="continue the run in -out after its last whole epoch (resume.pt, written after "
         "every epoch), with the same flags; -epochs may be raised")
    flag("backend", default="auto", help="cpu (gloo), cuda (NCCL) or auto (cuda when a GPU is visible)")
    flag("out", default="out/train", help="output folder for checkpoint.safetensors and report.json")
    flag("dump-first-step", default="", help="also write DIR/init.safetensors: the initial weights, and each process's first batch (first_step/indices) and its loss (first_step/loss)")
    return resolve(p.parse_args(argv))


def resolve(c):
    """Fills the automatic choices and checks c, in the words of the flags."""
    c.datadir = c.datadir or os.path.join("datasets", c.data)
    c.loss = c.loss or ("ce" if c.head == "softmax" else "dnll")
    if c.loss != "dnll":
        c.lambda_ = 0.0
    else:
        c.lambda_ = getattr(c, "lambda")
    if c.augment in ("auto", ""):
        c.augment = "crop+flip" if c.data.startswith("cifar") else "none"
    checks = [
        (c.data in data.SPECS, f"-data: unknown data set {c.data!r} (known: {', '.join(sorted(data.SPECS))})"),
        (c.head in twin.HEADS, f"-head must be lda or softmax, got {c.head!r}"),
        (c.cov in twin.COVS, f"-cov: unknown covariance {c.cov!r} (spherical, diag or full)"),
        (c.loss in twin.LOSSES, f"-loss: unknown loss {c.loss!r} (dnll, ce or nll)"),
        (c.head != "softmax" or c.loss == "ce", f"the softmax head trains with -loss ce, not {c.loss}"),
        (c.epochs >= 1, f"-epochs must be at least 1, got {c.epochs}"),
        (c.batch >= 1, f"-batch must be at least 1, got {c.batch}"),
        (c.eval_batch >= 1, f"-eval-batch must be at least 1, got {c.eval_batch}"),
        (c.bn_recalibrate >= 1, f"-bn-recalibrate must be at least 1, got {c.bn_recalibrate}"),
        (c.limit_train >= 0 and c.limit_test >= 0, "-limit-train and -limit-test must be >= 0 (0 means all)"),
        (c.val >= 0, f"-val must be >= 0, got {c.val}"),
        (c.lr > 0 and math.isfinite(c.lr), f"-lr must be a finite number > 0, got {c.lr}"),
        (c.lambda_ >= 0 and math.isfinite(c.lambda_), f"-lambda must be a finite number >= 0, got {c.lambda_}"),
        (c.augment in ("none", "crop", "flip", "crop+flip"), f"-augment must be auto, none, crop, flip or crop+flip, got {c.augment!r}"),
        (c.backend in ("auto", "cpu", "cuda"), f"-backend must be cpu, cuda or auto, got {c.backend!r}"),
    ]
    for ok, msg in checks:
        if not ok:
            raise UsageError(msg)
    return c


class Dist:
    """The process group: rank, world size and device of this process, and
    collectives that do nothing in a single process."""

    def __init__(self, backend):
        cuda = backend == "cuda" or (backend == "auto" and torch.cuda.is_available())
        if cuda and not torch.cuda.is_available():
            raise UsageError("-backend cuda: no GPU is visible to PyTorch")
        self.on = "RANK" in os.environ
        local = int(os.environ.get("LOCAL_RANK", 0))
        self.device = torch.device("cuda", local) if cuda else torch.device("cpu")
        if cuda:
            torch.cuda.set_device(self.device)
        self.backend = "nccl" if cuda else "gloo"
        if self.on:
            dist.init_process_group(self.backend)
        self.rank = dist.get_rank() if self.on else 0
        self.world = dist.get_world_size() if self.on else 1

    def sum(self, t):
        if self.on:
            dist.all_reduce(t)
        return t

    def gather(self, t):
        """Concatenates t (same shape on every process) over the processes, in rank order."""
        if not self.on:
            return t
        parts = [torch.empty_like(t) for _ in range(self.world)]
        dist.all_gather(parts, t)
        return torch.cat(parts)

    def broadcast_buffers(self, module):
        """Gives every process the BatchNorm statistics of process 0."""
        if self.on:
            for b in module.buffers():
                dist.broadcast(b, 0)


def splits(c, train_x, train_y, test_x, test_y):
    """The training, held-out and test images of c, as deeplda splits them:
    -val images from the end of the training file, -limit-train from its
    start, -limit-test from the start of the test file."""
    n = len(train_y)
    if c.val >= n:
        raise UsageError(f"-val {c.val} leaves no training image of the {n}")
    avail = n - c.val
    if c.limit_train > avail:
        raise UsageError(f"-limit-train {c.limit_train} with -val {c.val} needs {c.limit_train + c.val} training images; {c.data} has {n}")
    limit = c.limit_train or avail
    nt = c.limit_test or len(test_y)
    return (train_x[:limit], train_y[:limit]), (train_x[avail:], train_y[avail:]), (test_x[:nt], test_y[:nt])


def head_report(head):
    if isinstance(head, twin.SoftmaxHead):
        return {"kind": "softmax"}
    pi, mu, sigma = head.gaussian()
    r = {"kind": "lda", "cov_kind": head.cov, "pi": pi.tolist(), "mu": mu.tolist(), "cov": sigma.tolist(),
         "logdet_cov": float(torch.logdet(sigma))}
    if head.cov == "spherical":
        r["sigma"] = math.sqrt(sigma[0, 0])
    return r


def finite(v):
    """v with non-finite floats as None (JSON null, as deeplda writes them)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [finite(x) for x in v]
    return v


def write_json(path, v):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(finite(v), f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


# RESUME_FILE is the resume state that -resume continues from.
RESUME_FILE = "resume.pt"
# RESUME_FREE are the settings that a resumed run may change.
RESUME_FREE = ("epochs", "eval_batch", "resume", "out")


def resumable(config):
    """The settings of config that a resumed run must share with the run
    it continues."""
    return {k: v for k, v in config.items() if k not in RESUME_FREE}


class Run:
    """A training run of c on the processes of pg: the data splits, the model
    (wrapped in DistributedDataParallel under torchrun), Adam and report.json."""

    def __init__(self, c, pg, log):
        spec = data.SPECS[c.data]
        if c.batch % pg.world:
            raise UsageError(f"-batch {c.batch} is not a multiple of the {pg.world} processes")
        self.c, self.pg, self.log, self.per = c, pg, log, c.batch // pg.world
        self.train, self.val, self.test = splits(c, *data.load(c.data, c.datadir))
        torch.manual_seed(c.seed)
        self.module = twin.image_model(spec["shape"][0], spec["classes"], c.head, c.cov).to(pg.device)
        cuda = pg.device.type == "cuda"
        self.net = DistributedDataParallel(self.module, device_ids=[pg.device] if cuda else None) if pg.on else self.module
        trained = self.module.enc if c.freeze_head else self.module
        self.opt = torch.optim.Adam(trained.parameters(), lr=c.lr)
        self.loss_of = twin.loss_fn(c.loss, c.lambda_)
        self.sampler = DistributedSampler(range(len(self.train[1])), num_replicas=pg.world, rank=pg.rank, shuffle=True, seed=c.seed)
        self.gen = torch.Generator().manual_seed(c.seed * 65536 + pg.rank)
        self.config = {k: v for k, v in vars(c).items() if k not in ("lambda", "lambda_", "dump_first_step")}
        self.config.update({"lambda": c.lambda_, "processes": pg.world, "process_batch": self.per,
                            "process_group": pg.backend if pg.on else None, "sync_batchnorm": False})
        self.report = {"kind": "train", "config": self.config,
                       "backend": {"name": "pytorch", "adapter": f"torch {torch.__version__}, {pg.world} x {pg.device.type}"},
                       "history": [], "status": "training", "seconds": 0.0}

    def batches(self, epoch):
        """This process's batches of the epoch: indices into the training
        images, and the inputs and labels on the device."""
        c, (x, y) = self.c, self.train
        crop, flip = "crop" in c.augment, "flip" in c.augment
        self.sampler.set_epoch(epoch - 1)
        order = torch.tensor(list(self.sampler))
        for s in range(0, len(order), self.per):
            idx = order[s:s + self.per]
            images = x[idx]
            if crop or flip:
                images = data.augment(images, crop, flip, self.gen)
            yield idx, data.normalise(images.to(self.pg.device), c.data), y[idx].to(self.pg.device)

    def epoch(self, epoch, init=None):
        """Trains one epoch and returns its mean loss and accuracy over all
        processes. With init (the initial weights), process 0 writes them
        with each process's first batch and its loss to
        -dump-first-step/init.safetensors."""
        pg = self.pg
        self.net.train()
        sums = torch.zeros(3, dtype=torch.float64, device=pg.device)  # loss * examples, correct, examples
        t0 = time.perf_counter()
        for idx, x, y in self.batches(epoch):
            out = self.net(x)
            loss = self.loss_of(out, y)
            if init is not None:
                self.dump_first_step(init, pg.gather(idx.to(pg.device)), pg.gather(loss.detach().reshape(1)))
                init = None
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            sums += torch.stack([loss.detach().double() * len(idx), (out.argmax(1) == y).sum().double(),
                                 torch.tensor(float(len(idx)), dtype=torch.float64, device=pg.device)])
        if pg.device.type == "cuda":
            torch.cuda.synchronize()
        self.report["seconds"] += time.perf_counter() - t0
        pg.sum(sums)
        return float(sums[0] / sums[2]), float(sums[1] / sums[2])

    def dump_first_step(self, init, indices, losses):
        if self.pg.rank == 0:
            init["first_step/indices"] = indices.reshape(self.pg.world, -1)
            init["first_step/loss"] = losses
            checkpoint.save(os.path.join(self.c.dump_first_step, "init.safetensors"), init,
                            {"config": json.dumps(self.config),
                             "note": "weights before the first step; first_step/indices[r] are the training images (file order) "
                                     "of process r's first batch, first_step/loss[r] its loss in training mode"})

    @torch.no_grad()
    def scores(self, images):
        """The evaluation-mode scores [N, C] of uint8 images, each process
        evaluating one contiguous share."""
        c, pg = self.c, self.pg
        self.module.eval()
        n = len(images)
        share = -(-n // pg.world)
        lo, hi = min(n, pg.rank * share), min(n, (pg.rank + 1) * share)
        outs = [self.module(data.normalise(images[i:min(i + c.eval_batch, hi)].to(pg.device), c.data))
                for i in range(lo, hi, c.eval_batch)]
        classes = data.SPECS[c.data]["classes"]
        padded = torch.zeros(share, classes, device=pg.device)
        if outs:
            padded[:hi - lo] = torch.cat(outs)
        return pg.gather(padded)[:n].cpu()

    def run(self):
        """Trains -epochs epochs (process 0 writing the checkpoint after
        each), evaluates, and writes report.json. Returns whether the run
        completed."""
        c, pg, rep = self.c, self.pg, self.report
        if pg.rank == 0:
            os.makedirs(c.out, exist_ok=True)
            self.log(f"{c.data}: {len(self.train[1])} training, {len(self.val[1])} held-out, {len(self.test[1])} test images; "
                     f"{c.head} head ({c.loss}), {c.epochs} epochs of {-(-len(self.sampler) // self.per)} steps, "
                     f"{pg.world} processes of batch {self.per} ({pg.backend})")
        init = None
        if c.dump_first_step:
            os.makedirs(c.dump_first_step, exist_ok=True)
            init = checkpoint.state(self.module)
        first = self.resume() + 1 if c.resume else 1
        status = "done"
        for epoch in range(first, c.epochs + 1):
            loss, acc = self.epoch(epoch, init if epoch == 1 else None)
            if not math.isfinite(loss):
                kept = f"checkpoint.safetensors holds epoch {epoch - 1}" if epoch > 1 else "no checkpoint was written"
                status = f"stopped: the training loss became {loss} in epoch {epoch}; {kept}"
                break
            pg.broadcast_buffers(self.module)
            test = metrics.evaluate(self.scores(self.test[0]), self.test[1])
            row = {"epoch": epoch, "loss": loss, "train_accuracy": acc, "test_accuracy": test["accuracy"],
                   "test_ece": test["ece"], "seconds": rep["seconds"]}
            if c.head == "lda":
                h = head_report(self.module.head)
                row.update({k: h[k] for k in ("logdet_cov", "sigma") if k in h})
            if c.bn_history:
                recal = self.recalibrated_test()
                row.update({"test_accuracy_recalibrated": recal["accuracy"], "test_ece_recalibrated": recal["ece"]})
            rep["history"].append(row)
            if pg.rank == 0:
                checkpoint.save(os.path.join(c.out, "checkpoint.safetensors"), checkpoint.state(self.module),
                                {"format": "pt", "writer": "pytorch/train.py", "config": json.dumps(self.config)})
                self.save_resume(epoch)
                self.log(f"epoch {epoch}: loss {loss:.4f}, train accuracy {100 * acc:.2f}%, test accuracy {100 * test['accuracy']:.2f}%, "
                         f"test ECE {100 * test['ece']:.2f}% ({rep['seconds']:.1f} s)")
        rep["status"] = status
        if status == "done":
            self.evaluate()
        if pg.rank == 0:
            write_json(os.path.join(c.out, "report.json"), rep)
            if status != "done":
                self.log(f"error: {status}")
            else:
                print(f"train accuracy {100 * rep['train']['accuracy']:.2f}%, test accuracy {100 * rep['test']['accuracy']:.2f}%, "
                      f"test ECE {100 * rep['test']['ece']:.2f}%, {rep['seconds']:.1f} s training "
                      f"({c.epochs * len(self.train[1]) / max(rep['seconds'], 1e-9):.0f} images/s) on {pg.world} x {pg.device.type}")
            print(f"wrote {os.path.join(c.out, 'report.json')}")
        return status == "done"

    def resume_config(self):
        """The settings that a resumed run must share with the run it
        continues: all but RESUME_FREE."""
        return resumable(self.config)

    def save_resume(self, epoch):
        """Writes -out/resume.pt: the model, Adam's state, the augmentation's
        generator, the report so far and the epoch, replacing the last."""
        path = os.path.join(self.c.out, RESUME_FILE)
        tmp = f"{path}.tmp{os.getpid()}"
        torch.save({"epoch": epoch, "config": self.resume_config(), "model": self.module.state_dict(),
                    "opt": self.opt.state_dict(), "gen": self.gen.get_state(), "report": self.report}, tmp)
        os.replace(tmp, path)

    def resume(self):
        """Loads -out/resume.pt into the run and returns the last epoch it
        holds; 0 (a fresh start) when there is none."""
        path = os.path.join(self.c.out, RESUME_FILE)
        if not os.path.exists(path):
            return 0
        saved = torch.load(path, map_location=self.pg.device)
        was, now = resumable(saved["config"]), self.resume_config()
        if was != now:
            changed = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            raise UsageError(f"-resume: {path} is of a run with other settings ({', '.join(changed)})")
        if saved["epoch"] > self.c.epochs:
            raise UsageError(f"-resume: {path} holds {saved['epoch']} epochs, more than -epochs {self.c.epochs}")
        self.module.load_state_dict(saved["model"])
        self.opt.load_state_dict(saved["opt"])
        self.gen.set_state(saved["gen"])
        self.report.update({k: saved["report"][k] for k in ("history", "seconds")})
        self.log(f"resuming after epoch {saved['epoch']} of {self.c.epochs} ({path})")
        return saved["epoch"]

    @torch.no_grad()
    def recalibrated_test(self):
        """The test split's metrics with the BatchNorm statistics recomputed
        as deeplda recomputes them: reset, then the first -bn-recalibrate
        batches of a permutation of the training images drawn from -seed
        (torch's, not deeplda's) passed through the encoder in training
        mode with momentum None (each batch weighs 1/k: the plain average
        of the batch means and unbiased variances). Every process does the
        same, and the trained statistics are put back afterwards."""
        c, (x, _) = self.c, self.train
        bns = [m for m in self.module.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        saved = [(m.momentum, m.running_mean.clone(), m.running_var.clone(), m.num_batches_tracked.clone()) for m in bns]
        for m in bns:
            m.reset_running_stats()
            m.momentum = None
        self.module.enc.train()
        order = torch.randperm(len(x), generator=torch.Generator().manual_seed(c.seed))
        for k in range(min(c.bn_recalibrate, -(-len(x) // c.batch))):
            idx = order[k * c.batch:(k + 1) * c.batch]
            self.module.enc(data.normalise(x[idx].to(self.pg.device), c.data))
        test = metrics.evaluate(self.scores(self.test[0]), self.test[1])
        for m, (momentum, mean, var, tracked) in zip(bns, saved):
            m.momentum = momentum
            m.running_mean.copy_(mean)
            m.running_var.copy_(var)
            m.num_batches_tracked.copy_(tracked)
        return test

    def evaluate(self):
        """Fills the report's train, test, head and, with held-out images,
        temperature_scaling."""
        rep = self.report
        rep["train"] = metrics.evaluate(self.scores(self.train[0]), self.train[1], intervals=True)
        test_scores = self.scores(self.test[0])
        rep["test"] = metrics.evaluate(test_scores, self.test[1], intervals=True)
        rep["head"] = head_report(self.module.head)
        if len(self.val[1]):
            fit = metrics.fit_temperature(self.scores(self.val[0]), self.val[1])
            after = metrics.evaluate(test_scores / fit["temperature"], self.test[1], intervals=True)
            rep["temperature_scaling"] = dict(fit, val_examples=len(self.val[1]), test_ece_before=rep["test"]["ece"],
                                              test_ece_after=after["ece"], test_nll_before=rep["test"]["nll"],
                                              test_nll_after=after["nll"], test_after=after)


def main(argv):
    rank0 = os.environ.get("RANK", "0") == "0"

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    try:
        c = flags(argv)
        pg = Dist(c.backend)
        try:
            ok = Run(c, pg, log).run()
        finally:
            if pg.on:
                dist.destroy_process_group()
    except UsageError as e:
        if rank0:
            log(f"error: {e}")
        return 2
    except (data.DataError, OSError) as e:
        if rank0:
            log(f"error: {e}")
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
