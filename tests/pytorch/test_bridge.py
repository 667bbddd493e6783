"""Host tests of the hpu bridge on the in-process device core: each device
op against PyTorch on the CPU (forward and backward, random shapes), that
the device ran it (a recipe was compiled), views and in-place ops, the CPU
fallback and its placement log line, memory statistics."""
import os
import subprocess
import sys
import unittest

import torch

from habana_frameworks.torch.utils.library_loader import load_habana_module

load_habana_module()
import habana_frameworks.torch.core as htcore  # noqa: E402

HPU = torch.device("hpu")
RTOL = 1e-5
ATOL = 1e-5


def launches():
    return torch.ops.hpu_bridge.device_ops()


class OnDevice:
    """Asserts the block gave at least one op to the device."""

    def __init__(self, test):
        self.test = test

    def __enter__(self):
        self.before = launches()

    def __exit__(self, *exc):
        if exc[0] is None:
            self.test.assertGreater(launches(), self.before, "the op fell back to the CPU")


class EagerMode(unittest.TestCase):
    """PT_HPU_LAZY_MODE=0 for the test (the subclasses run in both modes)."""
    LAZY = "0"

    def setUp(self):
        self.saved_mode = os.environ.get("PT_HPU_LAZY_MODE")
        os.environ["PT_HPU_LAZY_MODE"] = self.LAZY
        self.gen = torch.Generator().manual_seed(1234)

    def tearDown(self):
        htcore.mark_step()
        if self.saved_mode is None:
            del os.environ["PT_HPU_LAZY_MODE"]
        else:
            os.environ["PT_HPU_LAZY_MODE"] = self.saved_mode


class BridgeOps(EagerMode):

    def rand(self, *shape):
        return torch.randn(tuple(shape), generator=self.gen)

    def shapes(self):
        return [(int(torch.randint(1, 40, (1,), generator=self.gen)),
                 int(torch.randint(1, 40, (1,), generator=self.gen))) for _ in range(3)]

    def check_fwd_bwd(self, fn, *inputs, on_device=True):
        cpu_in = [x.clone().requires_grad_(True) for x in inputs]
        dev_in = [x.to(HPU).detach().requires_grad_(True) for x in inputs]
        ref = fn(*cpu_in)
        if on_device:
            with OnDevice(self):
                out = fn(*dev_in)
        else:
            out = fn(*dev_in)
        self.assertEqual(out.device.type, "hpu")
        torch.testing.assert_close(out.cpu(), ref.detach(), rtol=RTOL, atol=ATOL)
        grad = self.rand(*ref.shape)
        ref.backward(grad)
        out.backward(grad.to(HPU))
        for c, d in zip(cpu_in, dev_in):
            torch.testing.assert_close(d.grad.cpu(), c.grad, rtol=RTOL, atol=ATOL)

    def test_mm(self):
        for m, k in self.shapes():
            n = m + 3
            self.check_fwd_bwd(torch.mm, self.rand(m, k), self.rand(k, n))

    def test_mm_transposed_operands(self):
        a, b = self.rand(7, 5), self.rand(9, 7)
        with OnDevice(self):
            out = torch.mm(a.to(HPU).t(), b.to(HPU).t())
        torch.testing.assert_close(out.cpu(), a.t() @ b.t(), rtol=RTOL, atol=ATOL)

    def test_bmm_and_matmul_of_stacks(self):
        # bmm and its gradients (bmm of transposed views) in one batched
        # MME launch each; matmul of stacks goes through bmm, a stack times
        # a matrix through mm.
        for m, k in self.shapes():
            self.check_fwd_bwd(torch.bmm, self.rand(3, m, k), self.rand(3, k, m + 2))
        self.check_fwd_bwd(torch.matmul, self.rand(2, 5, 7), self.rand(2, 7, 4))
        self.check_fwd_bwd(torch.matmul, self.rand(4, 5, 7), self.rand(7, 3))
        a, b = self.rand(3, 6, 5), self.rand(3, 4, 6)
        with OnDevice(self):
            out = torch.bmm(a.to(HPU).transpose(1, 2), b.to(HPU).transpose(1, 2))
        torch.testing.assert_close(out.cpu(), torch.bmm(a.transpose(1, 2), b.transpose(1, 2)),
                                   rtol=RTOL, atol=ATOL)

    def test_linear_addmm(self):
        for batch, inp in self.shapes():
            self.check_fwd_bwd(lambda x, w, b: torch.nn.functional.linear(x, w, b),
                               self.rand(batch, inp), self.rand(6, inp), self.rand(6))

    def test_add_sub_mul(self):
        for shape in self.shapes():
            a, b = self.rand(*shape), self.rand(*shape)
            self.check_fwd_bwd(torch.add, a, b)
            self.check_fwd_bwd(lambda x, y: torch.add(x, y, alpha=0.5), a, b)
            self.check_fwd_bwd(torch.sub, a, b)
            self.check_fwd_bwd(torch.mul, a, b)
            self.check_fwd_bwd(lambda x: x * 2.5, a)

    def test_cat(self):
        # Along every dimension of 1-D to 4-D tensors, and a list longer
        # than one concat node takes (joined in steps); the gradients are
        # PyTorch's views of dy.
        for nd in range(1, 5):
            shape = [int(torch.randint(1, 9, (1,), generator=self.gen)) for _ in range(nd)]
            for dim in range(-nd, nd):
                parts = []
                for i in range(3):
                    s = list(shape)
                    s[dim] = 1 + (s[dim] + i) % 4
                    parts.append(self.rand(*s))
                self.check_fwd_bwd(lambda *t: torch.cat(t, dim) * 2.0, *parts)
        many = [self.rand(2, 1 + i % 3) for i in range(19)]
        self.check_fwd_bwd(lambda *t: torch.cat(t, 1), *many)
        # An integer tensor goes to the CPU, and the result is right.
        a, b = torch.arange(6).view(2, 3), torch.arange(4).view(2, 2)
        self.assertTrue(torch.equal(torch.cat([a.to(HPU), b.to(HPU)], 1).cpu(),
                                    torch.cat([a, b], 1)))

    def test_relu(self):
        for shape in self.shapes():
            self.check_fwd_bwd(torch.relu, self.rand(*shape))

    def test_sum_mean(self):
        for shape in self.shapes():
            x = self.rand(*shape)
            self.check_fwd_bwd(lambda t: t.sum(0), x)
            self.check_fwd_bwd(lambda t: t.sum(1, keepdim=True), x)
            self.check_fwd_bwd(lambda t: t.sum(), x)
            self.check_fwd_bwd(lambda t: t.mean(1), x)
            self.check_fwd_bwd(lambda t: t.mean(0, keepdim=True), x)

    def test_recipe_cache(self):
        a, b = self.rand(11, 3), self.rand(3, 2)
        torch.mm(a.to(HPU), b.to(HPU))
        htcore.mark_step()
        before = torch.ops.hpu_bridge.compiled_recipes()
        torch.mm(a.to(HPU), b.to(HPU))
        htcore.mark_step()
        self.assertEqual(torch.ops.hpu_bridge.compiled_recipes(), before)

    def test_in_place_add(self):
        w, g = self.rand(13, 4), self.rand(13, 4)
        wd = w.to(HPU)
        with OnDevice(self):
            wd.add_(g.to(HPU), alpha=-0.1)
        torch.testing.assert_close(wd.cpu(), w - 0.1 * g, rtol=RTOL, atol=ATOL)

    def test_fallback_op(self):
        # exp has no device kernel: the CPU runs it, the result is on the hpu.
        x = self.rand(5, 6)
        before = launches()
        out = torch.exp(x.to(HPU))
        self.assertEqual(launches(), before)
        self.assertEqual(out.device.type, "hpu")
        torch.testing.assert_close(out.cpu(), torch.exp(x))

    def test_fallback_other_dtype(self):
        # FP64 has no device kernels: the CPU runs the op, the result is on the hpu.
        a = self.rand(4, 6).double()
        before = launches()
        out = a.to(HPU) * a.to(HPU)
        self.assertEqual(launches(), before)
        torch.testing.assert_close(out.cpu(), a * a)

    def test_broadcasting_elementwise(self):
        for sa, sb in (((4, 6), (6,)), ((4, 1), (1, 6)), ((3, 1, 5), (2, 1))):
            a, b = self.rand(*sa), self.rand(*sb).abs() + 0.5
            self.check_fwd_bwd(torch.add, a, b)
            self.check_fwd_bwd(lambda x, y: torch.sub(x, y, alpha=2.0), a, b)
            self.check_fwd_bwd(torch.mul, a, b)
            self.check_fwd_bwd(torch.div, a, b)
        x = self.rand(5, 3)
        self.check_fwd_bwd(lambda t: t + 1.5, x)
        self.check_fwd_bwd(lambda t: t / 4.0, x)

    def test_log_softmax_softmax(self):
        for shape in self.shapes():
            x = self.rand(*shape) * 3
            self.check_fwd_bwd(lambda t: torch.log_softmax(t, 1), x)
            self.check_fwd_bwd(lambda t: torch.softmax(t, -1), x)

    def test_cross_entropy(self):
        for b, c in self.shapes():
            c += 1
            x = self.rand(b, c)
            y = torch.randint(0, c, (b,), generator=self.gen)
            y[0] = -100                         # ignore_index: counts for nothing
            for reduction in ("mean", "sum"):
                self.check_fwd_bwd(lambda t: torch.nn.functional.cross_entropy(
                    t, y.to(t.device), reduction=reduction), x)

    def test_nll_loss_with_weights_falls_back(self):
        x, y, w = self.rand(6, 4), torch.tensor([0, 1, 2, 3, 0, 1]), torch.rand(4)
        ref = torch.nn.functional.nll_loss(x, y, weight=w)
        out = torch.nn.functional.nll_loss(x.to(HPU), y.to(HPU), weight=w.to(HPU))
        torch.testing.assert_close(out.cpu(), ref, rtol=RTOL, atol=ATOL)

    def test_mse_loss(self):
        for shape in self.shapes():
            x, t = self.rand(*shape), self.rand(*shape)
            for reduction in ("mean", "sum"):
                self.check_fwd_bwd(lambda a, b: torch.nn.functional.mse_loss(
                    a, b, reduction=reduction), x, t)

    def test_activations_and_square(self):
        for shape in self.shapes():
            x = self.rand(*shape) * 2
            self.check_fwd_bwd(torch.sigmoid, x)
            self.check_fwd_bwd(torch.tanh, x)
            self.check_fwd_bwd(torch.square, x)

    def test_gelu(self):
        # Both forms; the erf form's largest difference from the CPU over
        # [-10, 10] is bounded (docs/pytorch.md gives the measured figure).
        F = torch.nn.functional
        for shape in self.shapes():
            x = self.rand(*shape) * 3
            for form in ("none", "tanh"):
                self.check_fwd_bwd(lambda t: F.gelu(t, approximate=form), x)
        x = torch.linspace(-10, 10, 20001)
        with OnDevice(self):
            y = F.gelu(x.to(HPU)).cpu()
        err = (y - F.gelu(x)).abs()
        self.assertLessEqual(err.max().item(), 1e-6)    # measured: 4.8e-7

    def test_where(self):
        a, b = self.rand(6, 5), self.rand(5)
        cond = a > 0
        self.check_fwd_bwd(lambda x, y: torch.where(cond.to(x.device), x, y), a, b)

    def test_accuracy_ops(self):
        # argmax, eq and the count: INT64 results held as INT32 on the device.
        logits, y = self.rand(50, 10), torch.randint(0, 10, (50,), generator=self.gen)
        with OnDevice(self):
            pred = logits.to(HPU).argmax(dim=1)
            hit = pred == y.to(HPU)
            count = hit.sum()
        self.assertEqual(pred.dtype, torch.int64)
        self.assertEqual(hit.dtype, torch.bool)
        self.assertTrue(torch.equal(pred.cpu(), logits.argmax(dim=1)))
        self.assertTrue(torch.equal(hit.cpu(), logits.argmax(dim=1) == y))
        self.assertEqual(count.item(), (logits.argmax(dim=1) == y).sum().item())
        f = self.rand(7, 3)
        with OnDevice(self):
            same = f.to(HPU) == f[0].to(HPU)
        self.assertTrue(torch.equal(same.cpu(), f == f[0]))

    def test_fill_and_ones_like(self):
        d = torch.empty(9, 4, device=HPU)
        with OnDevice(self):
            d.fill_(2.5)
            o = torch.ones_like(d)
        self.assertTrue(torch.equal(d.cpu(), torch.full((9, 4), 2.5)))
        self.assertTrue(torch.equal(o.cpu(), torch.ones(9, 4)))

    def test_conv2d(self):
        F = torch.nn.functional
        x, w, b = self.rand(2, 3, 9, 9), self.rand(5, 3, 3, 3), self.rand(5)
        self.check_fwd_bwd(lambda a, k, c: F.conv2d(a, k, c, padding=1), x, w, b)
        self.check_fwd_bwd(lambda a, k: F.conv2d(a, k, stride=2), x, w)
        self.check_fwd_bwd(lambda a, k, c: F.conv2d(a, k, c), self.rand(3, 1, 12, 12),
                           self.rand(4, 1, 5, 5), self.rand(4))

    def test_conv2d_groups_falls_back(self):
        F = torch.nn.functional
        self.check_fwd_bwd(lambda a, k: F.conv2d(a, k, groups=2), self.rand(1, 4, 6, 6),
                           self.rand(4, 2, 3, 3), on_device=False)

    def test_pooling(self):
        F = torch.nn.functional
        x = self.rand(2, 3, 8, 12)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 2), x)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 4), x)
        self.check_fwd_bwd(lambda t: F.avg_pool2d(t, 2), x)
        self.check_fwd_bwd(lambda t: F.avg_pool2d(t, (4, 3)), x)
        # Overlapping windows, padding (ResNet's stem), windows that are
        # not square, windows that leave the last rows out, ceil_mode
        # where it changes nothing.
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 3, stride=1), x)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 3, stride=2, padding=1), x)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, (2, 3), stride=2, padding=(1, 1)), x)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 3), x)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 2, ceil_mode=True), x)
        # One stride per axis, dilation, or a ceil_mode that adds a window:
        # the CPU, through max_pool2d_with_indices.
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, (2, 3)), x, on_device=False)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 2, dilation=2), x, on_device=False)
        self.check_fwd_bwd(lambda t: F.max_pool2d(t, 3, ceil_mode=True), x, on_device=False)

    def test_batch_norm_train_and_eval(self):
        for shape in ((16, 6), (4, 6, 5, 5)):
            x = self.rand(*shape) * 2 + 1
            cpu, dev = torch.nn.BatchNorm1d(6) if len(shape) == 2 else torch.nn.BatchNorm2d(6), None
            with torch.no_grad():
                cpu.weight.uniform_(0.5, 1.5)
                cpu.bias.uniform_(-0.5, 0.5)
            dev = type(cpu)(6)
            dev.load_state_dict(cpu.state_dict())
            dev.to(HPU)
            self.check_fwd_bwd(lambda t: cpu(t) if t.device.type == "cpu" else dev(t), x)
            torch.testing.assert_close(dev.running_mean.cpu(), cpu.running_mean,
                                       rtol=RTOL, atol=ATOL)
            torch.testing.assert_close(dev.running_var.cpu(), cpu.running_var,
                                       rtol=RTOL, atol=ATOL)
            cpu.eval()
            dev.eval()
            with torch.no_grad(), OnDevice(self):
                out = dev(x.to(HPU))
            torch.testing.assert_close(out.cpu(), cpu(x), rtol=RTOL, atol=ATOL)

    def test_dropout(self):
        x = self.rand(64, 50)
        d = x.to(HPU).requires_grad_(True)
        with OnDevice(self):
            y = torch.nn.functional.dropout(d, 0.25)
        y.backward(torch.ones(64, 50).to(HPU))
        y, g = y.detach().cpu(), d.grad.cpu()
        kept = y != 0
        share = kept.float().mean().item()
        self.assertGreater(share, 0.7)
        self.assertLess(share, 0.8)
        torch.testing.assert_close(y[kept], x[kept] / 0.75, rtol=RTOL, atol=ATOL)
        # The gradient is the mask: 1/(1-p) where kept, 0 where dropped.
        torch.testing.assert_close(g, kept.float() / 0.75, rtol=RTOL, atol=ATOL)
        # A second call draws another mask; eval mode is the identity.
        y2 = torch.nn.functional.dropout(x.to(HPU), 0.25).cpu()
        self.assertFalse(torch.equal(y2 != 0, kept))
        self.assertTrue(torch.equal(torch.nn.functional.dropout(x.to(HPU), 0.25,
                                                                training=False).cpu(), x))

    def test_permute_contiguous_on_device(self):
        x = self.rand(3, 4, 5)
        for perm in ((1, 0, 2), (2, 0, 1), (0, 2, 1)):
            with OnDevice(self):
                out = x.to(HPU).permute(*perm).contiguous()
            self.assertTrue(torch.equal(out.cpu(), x.permute(*perm).contiguous()))
        self.check_fwd_bwd(lambda t: t.t().contiguous() * 2.0, self.rand(6, 7))


class RecipeEviction(unittest.TestCase):
    def test_many_shapes_unload_old_recipes(self):
        # Each recipe loaded on the device holds sync objects; past what the
        # device has, the bridge unloads the others and the op still runs.
        for n in range(1, 400):
            a = torch.full((n, 3), 1.0).to(HPU)
            self.assertEqual(torch.relu(a).sum().item(), 3.0 * n)


class BridgeTensors(unittest.TestCase):
    def test_round_trip_dtypes(self):
        for t in (torch.randn(3, 4), torch.arange(10), torch.tensor([True, False]),
                  torch.randn(2, 3).double()):
            d = t.to(HPU)
            self.assertEqual(d.dtype, t.dtype)
            self.assertTrue(torch.equal(d.cpu(), t))

    def test_views_and_strided_copies(self):
        x = torch.arange(60.).reshape(3, 4, 5)
        d = x.to(HPU)
        self.assertTrue(torch.equal(d.view(12, 5).cpu(), x.view(12, 5)))
        self.assertTrue(torch.equal(d.permute(2, 0, 1).cpu(), x.permute(2, 0, 1)))
        self.assertTrue(torch.equal(d[:, 1:3, ::2].cpu(), x[:, 1:3, ::2]))
        self.assertTrue(torch.equal(d.transpose(0, 2).contiguous().cpu(),
                                    x.transpose(0, 2).contiguous()))
        # A copy into a strided view of a device tensor leaves the rest alone.
        d[:, 0, :] = torch.full((3, 5), -1.)
        x[:, 0, :] = -1.
        self.assertTrue(torch.equal(d.cpu(), x))

    def test_int64_held_as_int32(self):
        # As on Gaudi: INT64 device tensors hold INT32 values; views and
        # strided copies of them work, values past INT32 wrap.
        t = torch.arange(-6, 14).reshape(4, 5)
        d = t.to(HPU)
        self.assertTrue(torch.equal(d[1:, 2:].cpu(), t[1:, 2:]))
        self.assertTrue(torch.equal(d.t().contiguous().cpu(), t.t().contiguous()))
        d[:, 1] = torch.tensor([7, 8, 9, 10])
        t[:, 1] = torch.tensor([7, 8, 9, 10])
        self.assertTrue(torch.equal(d.cpu(), t))
        big = torch.tensor([2 ** 31 + 5, -3])
        self.assertEqual(big.to(HPU).cpu().tolist(), [-2 ** 31 + 5, -3])

    def test_integer_counter_add_(self):
        # BatchNorm's num_batches_tracked += 1, on the device.
        d = torch.tensor(41).to(HPU)
        before = launches()
        d += 1
        d.add_(3, alpha=2)
        self.assertGreater(launches(), before)
        self.assertEqual(d.item(), 48)

    def test_zero_(self):
        for t in (torch.randn(7, 3), torch.arange(5)):
            d = t.to(HPU)
            d.zero_()
            self.assertTrue(torch.equal(d.cpu(), torch.zeros_like(t)))
        d = torch.randn(4, 4).to(HPU)
        d.t().zero_()       # strided: the CPU fallback
        self.assertTrue(torch.equal(d.cpu(), torch.zeros(4, 4)))

    def test_resize(self):
        d = torch.arange(6.).to(HPU)
        d.resize_(4, 4)
        self.assertEqual(d.shape, (4, 4))
        self.assertTrue(torch.equal(d.view(-1)[:6].cpu(), torch.arange(6.)))

    def test_memory_stats_follow_allocations(self):
        torch.hpu.synchronize()
        before = torch.hpu.memory_stats()
        for key in ("Limit", "InUse", "MaxInUse", "NumAllocs", "NumFrees",
                    "ActiveAllocs", "MaxAllocSize"):
            self.assertIn(key, before)
        t = torch.empty(1 << 20, device=HPU)
        after = torch.hpu.memory_stats()
        self.assertEqual(after["InUse"] - before["InUse"], 4 << 20)
        self.assertEqual(after["ActiveAllocs"], before["ActiveAllocs"] + 1)
        self.assertGreaterEqual(torch.hpu.max_memory_allocated(), 4 << 20)
        del t
        self.assertEqual(torch.hpu.memory_allocated(), before["InUse"])
        torch.hpu.reset_peak_memory_stats()
        self.assertEqual(torch.hpu.max_memory_allocated(), torch.hpu.memory_allocated())

    def test_out_of_hbm_raises_and_recovers(self):
        limit = torch.hpu.memory_stats()["Limit"]
        with self.assertRaisesRegex(RuntimeError, "HLRT_OUT_OF_DEVICE_MEMORY"):
            torch.empty(limit // 4 + (1 << 20), device=HPU)
        t = torch.ones(1000).to(HPU)
        self.assertEqual(t.sum().item(), 1000.0)

    def test_device_module(self):
        self.assertTrue(torch.hpu.is_available())
        self.assertEqual(torch.hpu.device_count(), 1)
        self.assertEqual(torch.hpu.current_device(), 0)
        torch.hpu.set_device("hpu:0")
        with self.assertRaises(RuntimeError):
            torch.hpu.set_device(1)


def train_mlp(device, steps=5):
    """Losses of a few SGD steps of a small MLP (same data on every device)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 32),
                                torch.nn.ReLU(), torch.nn.Linear(32, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.Generator().manual_seed(5)
    losses = []
    for _ in range(steps):
        x = torch.randn((16, 8, 8), generator=data)
        y = torch.randint(0, 10, (16,), generator=data)
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        htcore.mark_step()
        opt.step()
        htcore.mark_step()
        losses.append(loss.item())
    return losses


class BridgeTraining(EagerMode):
    def test_mlp_steps_match_cpu(self):
        cpu, hpu = train_mlp("cpu"), train_mlp(HPU)
        for a, b in zip(hpu, cpu):
            self.assertLessEqual(abs(a - b), 1e-4 * abs(b), (hpu, cpu))

    def test_placement_log_names_fallback(self):
        code = ("import torch\n"
                "from habana_frameworks.torch.utils.library_loader import load_habana_module\n"
                "load_habana_module()\n"
                "a = torch.arange(4).to('hpu')\n"
                "print(torch.eq(a, a).cpu().all().item())\n"
                "print(torch.cumsum(a.float(), 0).cpu())\n")
        env = dict(os.environ, HLRT_LOG_DEVICE_PLACEMENT="1")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr, r"aten/eq: \(Equal\): /device:HPU:0")
        self.assertRegex(r.stderr, r"aten/cumsum\S*: \(Cumsum\): /device:CPU:0")

    def placement_of(self, code):
        env = dict(os.environ, HLRT_LOG_DEVICE_PLACEMENT="1", PT_HPU_LAZY_MODE=self.LAZY)
        r = subprocess.run([sys.executable, "-c", "import torch\n"
                            "import habana_frameworks.torch.core as htcore\n" + code],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stderr

    def test_placement_gelu(self):
        log = self.placement_of(
            "x = torch.randn(4, 5).to('hpu').requires_grad_(True)\n"
            "for form in ('none', 'tanh'):\n"
            "    torch.nn.functional.gelu(x, approximate=form).backward(torch.ones(4, 5).to('hpu'))\n"
            "    htcore.mark_step()\n"
            "print(x.grad.cpu())\n")
        self.assertRegex(log, r"aten/gelu: \(Gelu\): /device:HPU:0")
        self.assertRegex(log, r"aten/gelu_backward: \(GeluGrad\): /device:HPU:0")
        self.assertNotIn("/device:CPU:0", log)

    def test_seed_step_runs_on_device(self):
        # The seed recipe's step (Flatten + Linear, cross_entropy, SGD) and
        # its evaluation: every op on the hpu, nothing falls back.
        code = ("import torch\n"
                "import habana_frameworks.torch.core as htcore\n"
                "m = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10)).to('hpu')\n"
                "opt = torch.optim.SGD(m.parameters(), lr=0.01)\n"
                "for _ in range(2):\n"
                "    x, y = torch.rand(32, 28, 28).to('hpu'), torch.randint(0, 10, (32,)).to('hpu')\n"
                "    opt.zero_grad()\n"
                "    loss = torch.nn.functional.cross_entropy(m(x), y)\n"
                "    loss.backward()\n"
                "    htcore.mark_step()\n"
                "    opt.step()\n"
                "    htcore.mark_step()\n"
                "    loss.item()\n"
                "with torch.no_grad():\n"
                "    print((m(x).argmax(dim=1) == y).sum().item())\n")
        env = dict(os.environ, HLRT_LOG_DEVICE_PLACEMENT="1", PT_HPU_LAZY_MODE=self.LAZY)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        for op in ("MatMul", "LogSoftmax", "NLLLoss", "NLLLossGrad", "LogSoftmaxGrad", "ArgMax",
                   "Equal"):
            self.assertRegex(r.stderr, r"\(%s\): /device:HPU:0" % op)
        self.assertNotIn("/device:CPU:0", r.stderr)


class Autocast(EagerMode):
    def test_bf16_matmul_accumulates_in_fp32(self):
        gen = torch.Generator().manual_seed(9)
        a, b = torch.randn((32, 64), generator=gen), torch.randn((64, 16), generator=gen)
        with torch.hpu.amp.autocast():
            out = torch.mm(a.to(HPU), b.to(HPU)).cpu()
        ref = a.bfloat16().float() @ b.bfloat16().float()
        self.assertEqual(out.dtype, torch.float32)
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-4)
        # It is not the FP32 product: the inputs were rounded.
        self.assertGreater((out - a @ b).abs().max().item(), 1e-4)
        # Outside the block the product is FP32 again.
        torch.testing.assert_close(torch.mm(a.to(HPU), b.to(HPU)).cpu(), a @ b,
                                   rtol=1e-5, atol=1e-5)


    def test_bf16_conv_and_its_gradients_accumulate_in_fp32(self):
        # Inside autocast the convolution and, when backward runs in the
        # block, its gradients take BF16 operands on the MME: PyTorch's CPU
        # convolution of the BF16-rounded operands, and not the FP32 one.
        import torch.nn.functional as F
        gen = torch.Generator().manual_seed(17)
        x = torch.randn((2, 3, 11, 9), generator=gen)
        w = torch.randn((5, 3, 3, 3), generator=gen)
        b = torch.randn(5, generator=gen)
        dy = torch.randn((2, 5, 6, 5), generator=gen)

        def bf16(t):
            return t.bfloat16().float()

        xh = x.to(HPU).requires_grad_()
        wh = w.to(HPU).requires_grad_()
        with OnDevice(self), torch.hpu.amp.autocast():
            y = F.conv2d(xh, wh, b.to(HPU), stride=2, padding=1)
            y.backward(dy.to(HPU))
        xr, wr = bf16(x).requires_grad_(), bf16(w).requires_grad_()
        yr = F.conv2d(xr, wr, b, stride=2, padding=1)
        yr.backward(bf16(dy))
        self.assertEqual(y.dtype, torch.float32)
        torch.testing.assert_close(y.cpu(), yr.detach(), rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(xh.grad.cpu(), xr.grad, rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(wh.grad.cpu(), wr.grad, rtol=1e-5, atol=1e-4)
        self.assertGreater((y.cpu() - F.conv2d(x, w, b, stride=2, padding=1)).abs().max().item(),
                           1e-4)
        # Outside the block the convolution is FP32 again.
        torch.testing.assert_close(F.conv2d(x.to(HPU), w.to(HPU), b.to(HPU), stride=2,
                                            padding=1).cpu(),
                                   F.conv2d(x, w, b, stride=2, padding=1), rtol=1e-5, atol=1e-5)

    def test_lower_and_fp32_lists(self):
        # Habana's LOWER_LIST / FP32_LIST files: which ops autocast lowers.
        import tempfile
        code = ("import torch\n"
                "import habana_frameworks.torch.core as htcore\n"
                "g = torch.Generator().manual_seed(9)\n"
                "a, b = torch.randn((32, 64), generator=g), torch.randn((64, 16), generator=g)\n"
                "c = torch.randn(16, generator=g)\n"
                "with torch.hpu.amp.autocast():\n"
                "    mm = torch.mm(a.to('hpu'), b.to('hpu')).cpu()\n"
                "    addmm = torch.addmm(c.to('hpu'), a.to('hpu'), b.to('hpu')).cpu()\n"
                "def bf16(x):\n"
                "    return x.bfloat16().float()\n"
                "print(int(torch.allclose(mm, bf16(a) @ bf16(b), rtol=1e-5, atol=1e-4)),\n"
                "      int(torch.allclose(mm, a @ b, rtol=1e-5, atol=1e-5)),\n"
                "      int(torch.allclose(addmm, bf16(a) @ bf16(b) + c, rtol=1e-5, atol=1e-4)),\n"
                "      int(torch.allclose(addmm, a @ b + c, rtol=1e-5, atol=1e-5)))\n")

        def run(**lists):
            env = dict(os.environ, PT_HPU_LAZY_MODE=self.LAZY)
            with tempfile.TemporaryDirectory() as tmp:
                for var, ops in lists.items():
                    path = os.path.join(tmp, var)
                    with open(path, "w") as f:
                        f.write("".join(op + "\n" for op in ops))
                    env[var] = path
                r = subprocess.run([sys.executable, "-c", code], env=env,
                                   capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.split()

        # Default: both lowered. FP32_LIST keeps mm in FP32; LOWER_LIST with
        # only addmm lowers addmm alone.
        self.assertEqual(run(), ["1", "0", "1", "0"])
        self.assertEqual(run(FP32_LIST=["mm"]), ["0", "1", "1", "0"])
        self.assertEqual(run(LOWER_LIST=["addmm"]), ["0", "1", "1", "0"])
        self.assertEqual(run(LOWER_LIST=["mm", "addmm"], FP32_LIST=["addmm"]),
                         ["1", "0", "0", "1"])


class LazyAutocast(Autocast):
    LAZY = "1"


class Profile(unittest.TestCase):
    def test_trace_carries_op_names(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            code = ("import torch\n"
                    "import habana_frameworks.torch.core as htcore\n"
                    "a = torch.randn(8, 4).to('hpu')\n"
                    "b = torch.nn.functional.linear(a, torch.randn(3, 4).to('hpu'),\n"
                    "                               torch.randn(3).to('hpu'))\n"
                    "htcore.mark_step()\n")
            env = dict(os.environ, HLRT_PROFILE=path)
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                names = {e.get("name") for e in json.load(f)["traceEvents"]}
        self.assertIn("aten/addmm/MatMul", names)
        self.assertIn("aten/addmm/BiasAdd", names)


class LazyOps(BridgeOps):
    LAZY = "1"


class LazyTraining(BridgeTraining):
    LAZY = "1"

    def test_ops_wait_for_mark_step(self):
        a, b = torch.randn(6, 4).to(HPU), torch.randn(4, 3).to(HPU)
        htcore.mark_step()
        runs = torch.ops.hpu_bridge.device_runs()
        c = torch.relu(torch.mm(a, b))
        d = c * 2.0
        self.assertEqual(torch.ops.hpu_bridge.device_runs(), runs)
        htcore.mark_step()
        self.assertEqual(torch.ops.hpu_bridge.device_runs(), runs + 1)
        torch.testing.assert_close(d.cpu(), torch.relu(a.cpu() @ b.cpu()) * 2.0)

    def test_read_back_runs_recorded_ops(self):
        a = torch.randn(5, 5)
        s = (a.to(HPU) + a.to(HPU)).sum()
        self.assertAlmostEqual(s.item(), (a + a).sum().item(), places=4)

    def test_seed_step_is_one_launch(self):
        # Lazy mode: forward and backward are one recipe, the optimizer's
        # update another; from the third step on nothing compiles (the first
        # step sets the gradients, the second adds into them).
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10)).to(HPU)
        opt = torch.optim.SGD(m.parameters(), lr=0.01)
        for step in range(4):
            x, y = torch.rand(16, 28, 28).to(HPU), torch.randint(0, 10, (16,)).to(HPU)
            runs = torch.ops.hpu_bridge.device_runs()
            compiled = torch.ops.hpu_bridge.compiled_recipes()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            self.assertEqual(torch.ops.hpu_bridge.device_runs(), runs)
            htcore.mark_step()
            opt.step()
            htcore.mark_step()
            loss.item()
            self.assertEqual(torch.ops.hpu_bridge.device_runs(), runs + 2)
            if step >= 2:
                self.assertEqual(torch.ops.hpu_bridge.compiled_recipes(), compiled)

    def test_second_step_compiles_nothing(self):
        train_mlp(HPU, steps=2)
        before = torch.ops.hpu_bridge.compiled_recipes()
        train_mlp(HPU, steps=2)
        self.assertEqual(torch.ops.hpu_bridge.compiled_recipes(), before)

    def recipe_counters(self):
        ops = torch.ops.hpu_bridge
        return ops.compiled_recipes(), ops.recipe_copies(), ops.recipe_patches()

    def seed_loop(self, steps, warm_up):
        """The seed step as hello_world.py runs it; the losses and the recipe
        counters after warm_up steps and at the end."""
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10)).to(HPU)
        opt = torch.optim.SGD(m.parameters(), lr=0.01)
        data = torch.Generator().manual_seed(3)
        losses, warm = [], None
        for step in range(steps):
            if step == warm_up:
                warm = self.recipe_counters()
            x = torch.rand((32, 28, 28), generator=data).to(HPU)
            y = torch.randint(0, 10, (32,), generator=data).to(HPU)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            htcore.mark_step()
            opt.step()
            htcore.mark_step()
            losses.append(loss.item())
        return losses, warm, self.recipe_counters()

    def test_steady_loop_stops_patching(self):
        # After some steps (alone, the address sets repeat every 6) the
        # loop's buffers come back at the same addresses: every launch finds
        # a recipe copy patched for them, so nothing compiles, copies or
        # re-patches; the losses are the eager run's, bit for bit.
        losses, warm, end = self.seed_loop(30, 20)
        self.assertEqual(end, warm)
        os.environ["PT_HPU_LAZY_MODE"] = "0"
        eager, _, _ = self.seed_loop(30, 20)
        self.assertEqual(losses, eager)

    def test_alternating_buffers_reuse_recipe_copies(self):
        # One structure on three input buffers in turn: a recipe copy per
        # buffer, made in the first round; later rounds launch them as
        # patched. Ten buffers (more than the 8 copies kept) re-patch the
        # least recently used copy, with correct results throughout.
        gen = torch.Generator().manual_seed(7)
        xs = [torch.randn((33, 5), generator=gen) for _ in range(10)]
        dev = [x.to(HPU) for x in xs]
        htcore.mark_step()

        def run(n):
            for x, d in zip(xs[:n], dev[:n]):
                got = (torch.relu(d) * 2.0).sum().item()
                self.assertAlmostEqual(got, (torch.relu(x) * 2.0).sum().item(), places=3)

        run(3)
        first = self.recipe_counters()
        for _ in range(3):
            run(3)
        self.assertEqual(self.recipe_counters(), first)
        for _ in range(2):
            run(10)
        compiled, copies, patches = self.recipe_counters()
        self.assertEqual(compiled, first[0])
        self.assertGreater(patches, first[2])

    def test_lazy_equals_eager(self):
        lazy = train_mlp(HPU)
        os.environ["PT_HPU_LAZY_MODE"] = "0"
        eager = train_mlp(HPU)
        self.assertEqual(lazy, eager)


if __name__ == "__main__":
    unittest.main()
