"""The data sets of deeplda (data/images): their published files, read from
a local folder, and the paper's normalisation and augmentation."""
import gzip
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

# SPECS are the data sets: format, shape [C, H, W], classes, per-channel
# mean and std of the pixels scaled to [0, 1], and the files of each split
# (IDX: images then labels; CIFAR: the batch files, in the archive's folder
# or directly in the data folder).
SPECS = {
    "fashion-mnist": dict(format="idx", shape=(1, 28, 28), classes=10, mean=[0.2860], std=[0.3530]),
    "mnist": dict(format="idx", shape=(1, 28, 28), classes=10, mean=[0.1307], std=[0.3081]),
    "cifar10": dict(format="cifar10", shape=(3, 32, 32), classes=10,
                    mean=[0.4914, 0.4822, 0.4465], std=[0.2470, 0.2435, 0.2616], folder="cifar-10-batches-bin",
                    train=[f"data_batch_{i}.bin" for i in range(1, 6)], test=["test_batch.bin"]),
    "cifar100": dict(format="cifar100", shape=(3, 32, 32), classes=100,
                     mean=[0.5071, 0.4867, 0.4408], std=[0.2675, 0.2565, 0.2761], folder="cifar-100-binary",
                     train=["train.bin"], test=["test.bin"]),
}
IDX_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}
CROP_PADDING = 4


class DataError(Exception):
    """A missing or malformed data file."""


def _find(paths):
    for p in paths:
        if os.path.isfile(p):
            return p
    raise DataError(f"not found (tried {', '.join(paths)}); the -fetch flag of deeplda train or eval downloads the published files")


def _read_idx(path, magic):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 8 or struct.unpack(">I", data[:4])[0] != magic:
        raise DataError(f"{path}: not an IDX file with magic {magic:#x}")
    if magic == 0x803:
        n, rows, cols = struct.unpack(">III", data[4:16])
        body, shape = data[16:], (n, 1, rows, cols)
    else:
        n = struct.unpack(">I", data[4:8])[0]
        body, shape = data[8:], (n,)
    if len(body) != int(np.prod(shape)):
        raise DataError(f"{path}: the header announces {shape}, the file has {len(body)} bytes of data")
    return np.frombuffer(body, dtype=np.uint8).reshape(shape)


def _idx_split(spec, folder, split):
    arrays = []
    for name, magic in zip(IDX_FILES[split], (0x803, 0x801)):
        arrays.append(_read_idx(_find([os.path.join(folder, name), os.path.join(folder, name[:-3])]), magic))
    images, labels = arrays
    if len(images) != len(labels) or images.shape[1:] != spec["shape"]:
        raise DataError(f"{folder}: {images.shape} images and {len(labels)} labels, want {spec['shape']} images")
    return images, labels


def _cifar_split(spec, folder, split):
    label_bytes = 1 if spec["format"] == "cifar10" else 2  # CIFAR-100: coarse, then fine label
    rec = label_bytes + 3 * 32 * 32
    parts = []
    for name in spec[split]:
        path = _find([os.path.join(folder, spec["folder"], name), os.path.join(folder, name)])
        with open(path, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        if raw.size == 0 or raw.size % rec:
            raise DataError(f"{path}: {raw.size} bytes is not a whole number of {rec}-byte records")
        parts.append(raw.reshape(-1, rec))
    raw = np.concatenate(parts)
    return raw[:, label_bytes:].reshape(-1, 3, 32, 32), raw[:, label_bytes - 1]


def load(name, folder):
    """Reads the data set name from folder. Returns (train_images,
    train_labels, test_images, test_labels): uint8 tensors [N, C, H, W] and
    int64 tensors [N], in file order."""
    if name not in SPECS:
        raise DataError(f"unknown data set {name!r} (known: {', '.join(sorted(SPECS))})")
    spec = SPECS[name]
    read = _idx_split if spec["format"] == "idx" else _cifar_split
    out = []
    for split in ("train", "test"):
        images, labels = read(spec, folder, split)
        if labels.max() >= spec["classes"]:
            raise DataError(f"{name} {split}: label {labels.max()} is outside [0, {spec['classes']})")
        out += [torch.from_numpy(images.copy()), torch.from_numpy(labels.astype(np.int64))]
    return tuple(out)


def normalise(images, name):
    """uint8 images [N, C, H, W] to float32 (p/255 - mean_c) / std_c, in
    float32 as deeplda computes it."""
    spec = SPECS[name]
    mean = torch.tensor(spec["mean"], dtype=torch.float32, device=images.device)[None, :, None, None]
    std = torch.tensor(spec["std"], dtype=torch.float32, device=images.device)[None, :, None, None]
    return (images.float() / 255.0 - mean) / std


def augment(images, crop, flip, gen):
    """The paper's training augmentation of uint8 images [N, C, H, W]: a
    random crop with zero padding CROP_PADDING (top then left offset, each
    uniform in [0, 2*CROP_PADDING]) then a horizontal flip with probability
    1/2, drawn from the CPU generator gen."""
    n, _, h, w = images.shape
    if crop:
        padded = F.pad(images, (CROP_PADDING,) * 4)
        off = torch.randint(0, 2 * CROP_PADDING + 1, (n, 2), generator=gen).tolist()
        images = torch.stack([padded[i, :, t:t + h, l:l + w] for i, (t, l) in enumerate(off)])
    if flip:
        mask = (torch.rand(n, generator=gen) < 0.5).to(images.device)
        images = torch.where(mask[:, None, None, None], images.flip(3), images)
    return images
