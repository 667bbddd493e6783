#!/usr/bin/env python3
"""The seed's hello world as a PyTorch script on the hpu: Flatten +
Linear(784, 10) trained with SGD (lr 0.01, batch 128, 5 epochs) on MNIST
from the host share, written the way Habana's migration guide says (load
the module, move the model to "hpu", mark_step() after backward() and
after the optimizer step).

    python3 hello_world.py [--device hpu|cpu] [--epochs N] [--steps N]
                           [--print-loss] [--bf16] [--data DIR]
"""
import argparse
import contextlib
import os
import time

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
    images = read_idx(os.path.join(data_dir, f"{split}-images-idx3-ubyte"))
    labels = read_idx(os.path.join(data_dir, f"{split}-labels-idx1-ubyte"))
    return (torch.from_numpy(images.astype(np.float32) / 255.0),
            torch.from_numpy(labels.astype(np.int64)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="hpu", choices=("hpu", "cpu"))
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=0, help="stop after this many steps")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--print-loss", action="store_true", help="print every step's loss")
    ap.add_argument("--bf16", action="store_true",
                    help="hpu: forward and backward under torch.hpu.amp.autocast()")
    ap.add_argument("--data", default="/mnt/host/data/mnist")
    args = ap.parse_args()

    autocast = contextlib.nullcontext
    if args.device == "hpu":
        from habana_frameworks.torch.utils.library_loader import load_habana_module
        load_habana_module()
        import habana_frameworks.torch.core as htcore
        mark_step = htcore.mark_step
        if args.bf16:
            autocast = torch.hpu.amp.autocast
    else:
        def mark_step():
            pass
    device = torch.device(args.device)

    torch.manual_seed(0)
    train_x, train_y = load(args.data, "train")
    test_x, test_y = load(args.data, "t10k")
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    order = torch.Generator().manual_seed(1)

    step = 0
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        perm = torch.randperm(len(train_x), generator=order)
        total, batches = 0.0, 0
        for i in range(0, len(train_x), args.batch):
            idx = perm[i:i + args.batch]
            x, y = train_x[idx].to(device), train_y[idx].to(device)
            optimizer.zero_grad()
            with autocast():
                loss = loss_fn(model(x), y)
                loss.backward()
            mark_step()
            optimizer.step()
            mark_step()
            value = loss.item()
            total += value
            batches += 1
            step += 1
            if args.print_loss:
                print(f"step {step} loss {value:.8f}", flush=True)
            if args.steps and step >= args.steps:
                break
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / batches:.4f} "
              f"({time.time() - start:.1f}s)", flush=True)
        if args.steps and step >= args.steps:
            break

    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(test_x), 1000):
            x, y = test_x[i:i + 1000].to(device), test_y[i:i + 1000].to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
    print(f"accuracy: {correct / len(test_x):.4f}", flush=True)


if __name__ == "__main__":
    main()
