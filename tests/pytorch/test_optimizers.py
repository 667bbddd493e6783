"""Habana's fused optimizers on the in-process device against their
torch.optim counterparts on the CPU: 20 steps on the same gradients, the
weights within 1e-5 relative."""
import unittest

import torch

from habana_frameworks.torch.hpex.optimizers import (FusedAdagrad, FusedAdamW, FusedLamb,
                                                     FusedSGD)
import habana_frameworks.torch.core as htcore

HPU = torch.device("hpu")


def run(fused, reference, steps=20):
    gen = torch.Generator().manual_seed(3)
    shapes = [(17, 5), (5,), (3, 4, 2)]
    init = [torch.randn(s, generator=gen) for s in shapes]
    ref_params = [t.clone().requires_grad_(True) for t in init]
    dev_params = [t.to(HPU).requires_grad_(True) for t in init]
    ref_opt, dev_opt = reference(ref_params), fused(dev_params)
    for _ in range(steps):
        for r, d in zip(ref_params, dev_params):
            g = torch.randn(r.shape, generator=gen)
            r.grad = g.clone()
            d.grad = g.to(HPU)
        ref_opt.step()
        dev_opt.step()
        htcore.mark_step()
    return [p.detach() for p in ref_params], [p.detach().cpu() for p in dev_params]


class FusedOptimizers(unittest.TestCase):
    def compare(self, fused, reference):
        ref, dev = run(fused, reference)
        for r, d in zip(ref, dev):
            torch.testing.assert_close(d, r, rtol=1e-5, atol=1e-6)

    def test_sgd(self):
        self.compare(lambda p: FusedSGD(p, lr=0.05), lambda p: torch.optim.SGD(p, lr=0.05))

    def test_sgd_momentum_weight_decay(self):
        self.compare(lambda p: FusedSGD(p, lr=0.05, momentum=0.9, weight_decay=0.01),
                     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01))

    def test_sgd_nesterov(self):
        self.compare(lambda p: FusedSGD(p, lr=0.05, momentum=0.8, nesterov=True),
                     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True))

    def test_adamw(self):
        self.compare(lambda p: FusedAdamW(p, lr=0.01, weight_decay=0.01),
                     lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.01))

    def test_adagrad(self):
        self.compare(lambda p: FusedAdagrad(p, lr=0.05),
                     lambda p: torch.optim.Adagrad(p, lr=0.05))

    def test_lamb_moves_weights_and_counts_steps(self):
        # torch.optim has no LAMB: the update is checked to be finite and
        # bounded by the trust ratio (|dw| <= lr * |w| per parameter).
        gen = torch.Generator().manual_seed(4)
        w = torch.randn((8, 8), generator=gen)
        p = w.to(HPU).requires_grad_(True)
        opt = FusedLamb([p], lr=0.01)
        p.grad = torch.randn((8, 8), generator=gen).to(HPU)
        opt.step()
        new = p.detach().cpu()
        self.assertTrue(torch.isfinite(new).all())
        self.assertGreater((new - w).norm().item(), 0)
        self.assertLessEqual((new - w).norm().item(), 0.01 * w.norm().item() * 1.001)
        self.assertEqual(opt.param_groups[0]["step_count"].cpu().item(), 1)

    def test_refuses_cpu_parameters(self):
        p = torch.randn(3, requires_grad=True)
        p.grad = torch.ones(3)
        with self.assertRaises(RuntimeError):
            FusedSGD([p], lr=0.1).step()


if __name__ == "__main__":
    unittest.main()
