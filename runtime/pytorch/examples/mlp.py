#!/usr/bin/env python3
"""An MLP on MNIST on the hpu: Flatten, Linear(784, 256), ReLU, Dropout,
Linear(256, 10), trained with Habana's FusedSGD (momentum 0.9), written
the way Habana's migration guide says (load the module, move the model to
"hpu", mark_step() after backward() and after the optimizer step).

    python3 mlp.py [--device hpu|cpu] [--epochs N] [--bf16] [--data DIR]
"""
import argparse
import contextlib
import time

import torch

from mnist import load


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="hpu", choices=("hpu", "cpu"))
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--bf16", action="store_true",
                    help="hpu: forward and backward under torch.hpu.amp.autocast()")
    ap.add_argument("--data", default="/mnt/host/data/mnist")
    args = ap.parse_args()

    autocast = contextlib.nullcontext
    if args.device == "hpu":
        from habana_frameworks.torch.utils.library_loader import load_habana_module
        load_habana_module()
        import habana_frameworks.torch.core as htcore
        from habana_frameworks.torch.hpex.optimizers import FusedSGD
        mark_step = htcore.mark_step
        if args.bf16:
            autocast = torch.hpu.amp.autocast
    else:
        from torch.optim import SGD as FusedSGD

        def mark_step():
            pass
    device = torch.device(args.device)

    torch.manual_seed(0)
    train_x, train_y = load(args.data, "train")
    test_x, test_y = load(args.data, "t10k")
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Dropout(0.2), torch.nn.Linear(256, 10))
    model.to(device)
    optimizer = FusedSGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    order = torch.Generator().manual_seed(1)

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
            total += loss.item()
            batches += 1
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / batches:.4f} "
              f"({time.time() - start:.1f}s)", flush=True)

    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(test_x), 1000):
            x, y = test_x[i:i + 1000].to(device), test_y[i:i + 1000].to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
    print(f"accuracy: {correct / len(test_x):.4f}", flush=True)


if __name__ == "__main__":
    main()
