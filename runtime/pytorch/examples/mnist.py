"""MNIST from IDX files (the share's data/mnist) for the examples."""
import os

import numpy as np
import torch


def read_idx(path):
    """An IDX file (MNIST's format) as a numpy array."""
    with open(path, "rb") as f:
        data = f.read()
    ndims = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndims).reshape(dims)


def load(data_dir, split):
    """(images as FP32 in [0, 1], labels as INT64) of "train" or "t10k"."""
    images = read_idx(os.path.join(data_dir, f"{split}-images-idx3-ubyte"))
    labels = read_idx(os.path.join(data_dir, f"{split}-labels-idx1-ubyte"))
    return (torch.from_numpy(images.astype(np.float32) / 255.0),
            torch.from_numpy(labels.astype(np.int64)))
