"""safetensors files, read and written with the standard library and numpy (the
safetensors package is not needed): an 8-byte little-endian header length,
a JSON header with each tensor's dtype, shape and data_offsets, then the
raw little-endian data. Floating-point tensors are written as F32, integer
ones (labels, indices, num_batches_tracked) as I32, as deeplda writes them."""
import json
import os
import struct

import numpy as np
import torch


def save(path, tensors, metadata=None):
    """Writes the tensors (name -> tensor or array) to path, atomically:
    into a temporary file beside it, renamed over path when complete."""
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        if isinstance(t, torch.Tensor):
            t = t.detach().cpu().numpy()
        t = np.asarray(t)
        arr, dtype = (t.astype("<i4"), "I32") if t.dtype.kind in "iub" else (t.astype("<f4"), "F32")
        b = arr.tobytes(order="C")
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(h)))
            f.write(h)
            for b in blobs:
                f.write(b)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load(path):
    """Reads the tensors of a safetensors file (F32 or I32) as a dict of
    name -> tensor; the metadata is left out."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    dtypes = {"F32": "<f4", "I32": "<i4"}
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        if h["dtype"] not in dtypes:
            raise ValueError(f"{path}: {name}: dtype {h['dtype']} (want F32 or I32)")
        a, b = h["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=dtypes[h["dtype"]]).reshape(h["shape"])
        out[name] = torch.from_numpy(arr.copy())
    return out


def state(model):
    """A copy of the model's parameters and buffers with the reference names
    (enc.conv1.weight, enc.bn1.running_var, head.mu, ...): its state_dict,
    unwrapped from DistributedDataParallel."""
    return {k: v.detach().clone() for k, v in getattr(model, "module", model).state_dict().items()}
