#!/usr/bin/python3
"""The PyTorch reference of the training benchmark: the same model file,
data, recipe and thread count as hl-train, on the host's CPU.

Reads the model's Conv2D/MaxPool2D/Flatten/Dense/ReLU stack and its
training block, trains with SGD (Glorot-uniform kernels, zero biases, a
fresh shuffle each epoch, the last partial batch kept), evaluates on the
test set, and prints one line:
  pytorch: model seed, 5 epochs in 3.91 s (training), 76700 samples/s, test accuracy 0.8842, 2 threads
With --max-steps N it stops after N steps, as hl-train --max-steps does,
and skips the evaluation:
  pytorch: model lenet, 200 steps in 1.20 s (training), 21333 samples/s, 2 threads
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
    """The model's layers as a torch Sequential (channels first: the same
    arithmetic as the file's channels-last layout, in PyTorch's layout)."""
    h, w, c = (list(model_json["input_shape"]) + [1])[:3]
    layers, width = [], None

    def activation(spec):
        act = spec.get("activation")
        if act == "relu":
            layers.append(torch.nn.ReLU())
        elif act not in (None, "linear"):
            raise SystemExit(f"bench-train.py: activation {act} is not in this reference")

    for spec in model_json["layers"]:
        kind = spec["type"]
        if kind == "Conv2D":
            k = spec["kernel_size"]
            k = k if isinstance(k, int) else k[0]
            pad = k // 2 if spec.get("padding", "valid") == "same" else 0
            conv = torch.nn.Conv2d(c, spec["filters"], k, padding=pad)
            torch.nn.init.xavier_uniform_(conv.weight)
            torch.nn.init.zeros_(conv.bias)
            layers.append(conv)
            c, h, w = spec["filters"], h + 2 * pad - k + 1, w + 2 * pad - k + 1
            activation(spec)
        elif kind == "MaxPool2D":
            p = spec.get("pool_size", 2)
            p = p if isinstance(p, int) else p[0]
            layers.append(torch.nn.MaxPool2d(p))
            h, w = h // p, w // p
        elif kind == "Flatten":
            layers.append(torch.nn.Flatten())
            width = h * w * c
        elif kind == "Dense":
            dense = torch.nn.Linear(width, spec["units"])
            torch.nn.init.xavier_uniform_(dense.weight)
            torch.nn.init.zeros_(dense.bias)
            layers.append(dense)
            width = spec["units"]
            activation(spec)
        elif kind == "ReLU":
            layers.append(torch.nn.ReLU())
        else:
            raise SystemExit(f"bench-train.py: layer {kind} is not in this reference")
    return torch.nn.Sequential(*layers), (c, h, w)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--data-dir", required=True, help="folder with the four IDX files")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-steps", type=int, default=0, help="stop after N steps, no evaluation")
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
    net, _ = build(model_json)
    if any(spec["type"] == "Conv2D" for spec in model_json["layers"]):
        h, w, c = (list(model_json["input_shape"]) + [1])[:3]
        x_train = x_train.reshape(-1, c, h, w)
        x_test = x_test.reshape(-1, c, h, w)
    sgd = torch.optim.SGD(net.parameters(), lr=opt.get("learning_rate", 0.01),
                          momentum=opt.get("momentum", 0.0),
                          weight_decay=opt.get("weight_decay", 0.0),
                          nesterov=opt.get("nesterov", False))
    loss_fn = torch.nn.CrossEntropyLoss()
    n = len(x_train)

    steps, samples = 0, 0
    start = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(n)
        for first in range(0, n, batch):
            if args.max_steps and steps >= args.max_steps:
                break
            idx = order[first:first + batch]
            sgd.zero_grad(set_to_none=True)
            loss = loss_fn(net(x_train[idx]), y_train[idx])
            loss.backward()
            sgd.step()
            steps += 1
            samples += len(idx)
    seconds = time.perf_counter() - start

    if args.max_steps:
        print(f"pytorch: model {model_json.get('name', '?')}, {steps} steps in {seconds:.2f} s "
              f"(training), {samples / seconds:.0f} samples/s, {args.threads} threads")
        return

    with torch.no_grad():
        accuracy = (net(x_test).argmax(dim=1) == y_test).float().mean().item()
    print(f"pytorch: model {model_json.get('name', '?')}, {epochs} epochs in {seconds:.2f} s "
          f"(training), {epochs * n / seconds:.0f} samples/s, test accuracy {accuracy:.4f}, "
          f"{args.threads} threads")


if __name__ == "__main__":
    main()
