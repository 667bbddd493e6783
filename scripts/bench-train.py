#!/usr/bin/python3
"""The PyTorch reference of the training benchmark: the same model file,
data, recipe and thread count as hl-train, on the host's CPU.

Reads the model's Flatten/Dense/ReLU stack and its training block, trains
with plain SGD (Glorot-uniform kernels, zero biases, a fresh shuffle each
epoch, the last partial batch kept), evaluates on the test set, and prints
one line:
  pytorch: model seed, 5 epochs in 3.91 s (training), 76700 samples/s, test accuracy 0.8842, 2 threads
"""
import argparse
import json
import time

import numpy as np
import torch


def read_idx(path, ndims):
    with open(path, "rb") as f:
        raw = f.read()
    magic = int.from_bytes(raw[0:4], "big")
    if magic != 0x0800 | ndims:
        raise SystemExit(f"{path}: bad IDX magic {magic:#010x}")
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndims)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndims)
    if data.size != int(np.prod(dims)):
        raise SystemExit(f"{path}: truncated file")
    return data.reshape(dims)


def load_split(root, prefix):
    images = read_idx(f"{root}/{prefix}-images-idx3-ubyte", 3)
    labels = read_idx(f"{root}/{prefix}-labels-idx1-ubyte", 1)
    x = torch.from_numpy(images.reshape(len(images), -1).astype(np.float32) / 255.0)
    return x, torch.from_numpy(labels.astype(np.int64))


def build(model_json):
    layers, width = [], None
    for spec in model_json["layers"]:
        kind = spec["type"]
        if kind == "Flatten":
            h, w = model_json["input_shape"][:2]
            width = h * w
        elif kind == "Dense":
            dense = torch.nn.Linear(width, spec["units"])
            torch.nn.init.xavier_uniform_(dense.weight)
            torch.nn.init.zeros_(dense.bias)
            layers.append(dense)
            width = spec["units"]
            if spec.get("activation") == "relu":
                layers.append(torch.nn.ReLU())
        elif kind == "ReLU":
            layers.append(torch.nn.ReLU())
        else:
            raise SystemExit(f"bench-train.py: layer {kind} is not in this reference")
    return torch.nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--data-dir", required=True, help="folder with the four IDX files")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    with open(args.model) as f:
        model_json = json.load(f)
    train = model_json["training"]
    opt = train["optimizer"]
    epochs, batch = train.get("epochs", 1), train.get("batch_size", 32)
    torch.set_num_threads(args.threads)
    torch.manual_seed(train.get("seed", 0))

    x_train, y_train = load_split(args.data_dir, "train")
    x_test, y_test = load_split(args.data_dir, "t10k")
    net = build(model_json)
    sgd = torch.optim.SGD(net.parameters(), lr=opt.get("learning_rate", 0.01),
                          momentum=opt.get("momentum", 0.0),
                          weight_decay=opt.get("weight_decay", 0.0),
                          nesterov=opt.get("nesterov", False))
    loss_fn = torch.nn.CrossEntropyLoss()
    n = len(x_train)

    start = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(n)
        for first in range(0, n, batch):
            idx = order[first:first + batch]
            sgd.zero_grad(set_to_none=True)
            loss = loss_fn(net(x_train[idx]), y_train[idx])
            loss.backward()
            sgd.step()
    seconds = time.perf_counter() - start

    with torch.no_grad():
        accuracy = (net(x_test).argmax(dim=1) == y_test).float().mean().item()
    print(f"pytorch: model {model_json.get('name', '?')}, {epochs} epochs in {seconds:.2f} s "
          f"(training), {epochs * n / seconds:.0f} samples/s, test accuracy {accuracy:.4f}, "
          f"{args.threads} threads")


if __name__ == "__main__":
    main()
