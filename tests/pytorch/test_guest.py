"""Guest tests of PyTorch on the hpu, in the Debian userland on the
simulated device (scripts/run-tests.sh suite torch): the seed script's
per-step loss on the hpu (lazy and eager) against the same script on the
CPU with nothing falling back, its final accuracy (FP32 and BF16
autocast) with hl-smi listing the process, the MLP and CNN examples'
accuracy after one epoch (both also in BF16), memory statistics of
the real device."""
import os
import re
import subprocess
import sys
import time
import unittest

EXAMPLES = "/usr/share/gaudisim/examples/pytorch"
DATA = os.environ.get("GSIM_MNIST", "/mnt/host/data/mnist")


def run_seed(*args, env=None):
    cmd = [sys.executable, os.path.join(EXAMPLES, "hello_world.py"), "--data", DATA, *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3000,
                       env=dict(os.environ, **(env or {})))
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    return r


def losses(out):
    return [float(m.group(1)) for m in re.finditer(r"^step \d+ loss (\S+)$", out, re.M)]


class SeedScript(unittest.TestCase):
    def test_losses_match_cpu_50_steps(self):
        cpu = losses(run_seed("--steps", "50", "--print-loss", "--device", "cpu").stdout)
        self.assertEqual(len(cpu), 50)
        for mode in ("1", "0"):
            hpu = run_seed("--steps", "50", "--print-loss",
                           env={"HLRT_LOG_DEVICE_PLACEMENT": "1", "PT_HPU_LAZY_MODE": mode})
            lh = losses(hpu.stdout)
            self.assertEqual(len(lh), 50)
            for step, (a, b) in enumerate(zip(lh, cpu), 1):
                self.assertLessEqual(abs(a - b), 1e-4 * abs(b),
                                     f"lazy={mode} step {step}: {a} vs {b}")
            # The whole step and the evaluation ran on the device: nothing fell back.
            for op in ("MatMul", "LogSoftmax", "NLLLossGrad", "ArgMax", "Equal"):
                self.assertRegex(hpu.stderr, r"\(%s\): /device:HPU:0" % op)
            self.assertNotIn("/device:CPU:0", hpu.stderr)

    def test_accuracy_5_epochs_bf16_and_hl_smi(self):
        # FP32, with hl-smi watched while it trains: the python process and
        # its HBM appear in its process list.
        cmd = [sys.executable, os.path.join(EXAMPLES, "hello_world.py"), "--data", DATA]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = ""
        while proc.poll() is None:
            time.sleep(5)
            smi = subprocess.run(["hl-smi"], capture_output=True, text=True).stdout
            for line in smi.splitlines():
                if re.search(rf"\b{proc.pid}\b.*python3.*\b\d+MiB", line):
                    seen = line
        out, err = proc.communicate()
        self.assertEqual(proc.returncode, 0, err)
        self.assertTrue(seen, "hl-smi never listed the training process with its HBM")
        self.assertEqual(len(re.findall(r"^epoch \d/5", out, re.M)), 5, out)
        acc = float(re.search(r"^accuracy: (\S+)$", out, re.M).group(1))
        self.assertGreaterEqual(acc, 0.87)
        self.assertLessEqual(acc, 0.91)
        # BF16 autocast: within 0.01 of the FP32 accuracy.
        bf16 = run_seed("--bf16")
        acc16 = float(re.search(r"^accuracy: (\S+)$", bf16.stdout, re.M).group(1))
        print(f"[seed accuracy: FP32 {acc:.4f}, BF16 {acc16:.4f}]", end=" ", flush=True)
        self.assertLessEqual(abs(acc16 - acc), 0.01, (acc16, acc))


def accuracy(out):
    return float(re.search(r"^accuracy: (\S+)$", out, re.M).group(1))


def run_example(name, *args, env=None):
    cmd = [sys.executable, os.path.join(EXAMPLES, name), "--data", DATA, *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3000,
                       env=dict(os.environ, HLRT_LOG_DEVICE_PLACEMENT="1", **(env or {})))
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")
    return r


class Examples(unittest.TestCase):
    def test_mlp_one_epoch_fp32_and_bf16(self):
        fp32 = run_example("mlp.py")
        acc = accuracy(fp32.stdout)
        self.assertNotIn("/device:CPU:0", fp32.stderr)
        bf16 = run_example("mlp.py", "--bf16")
        acc16 = accuracy(bf16.stdout)
        # The matrix products took BF16 inputs (autocast's cast nodes).
        self.assertRegex(bf16.stderr, r"aten/addmm/cast0_bf16: \(Cast\): /device:HPU:0")
        print(f"[mlp accuracy: FP32 {acc:.4f}, BF16 {acc16:.4f}]", end=" ", flush=True)
        self.assertGreaterEqual(acc, 0.90)
        self.assertLessEqual(abs(acc16 - acc), 0.01, (acc16, acc))

    def test_cnn_one_epoch_fp32_and_bf16(self):
        r = run_example("cnn.py")
        acc = accuracy(r.stdout)
        for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool",
                   "MaxPoolGrad", "FusedBatchNormV3", "FusedBatchNormGradV3"):
            self.assertRegex(r.stderr, r"\(%s\): /device:HPU:0" % op)
        self.assertNotIn("/device:CPU:0", r.stderr)
        bf16 = run_example("cnn.py", "--bf16")
        acc16 = accuracy(bf16.stdout)
        # The convolutions and their gradients took BF16 operands.
        for part in ("convolution/cast0_bf16", "convolution_backward/cast0_bf16"):
            self.assertRegex(bf16.stderr, r"aten/%s: \(Cast\): /device:HPU:0" % part)
        self.assertNotIn("/device:CPU:0", bf16.stderr)
        print(f"[cnn accuracy: FP32 {acc:.4f}, BF16 {acc16:.4f}]", end=" ", flush=True)
        self.assertGreaterEqual(acc, 0.97)
        self.assertLessEqual(abs(acc16 - acc), 0.01, (acc16, acc))


class DeviceModule(unittest.TestCase):
    def test_memory_stats_and_out_of_hbm_on_the_device(self):
        code = ("import torch\n"
                "import habana_frameworks.torch.core\n"
                "assert torch.hpu.is_available() and torch.hpu.device_count() == 1\n"
                "s0 = torch.hpu.memory_stats()\n"
                "t = torch.empty(1 << 20, device='hpu')\n"
                "s1 = torch.hpu.memory_stats()\n"
                "assert s1['InUse'] - s0['InUse'] == 4 << 20, (s0, s1)\n"
                "assert s1['Limit'] > 0\n"
                "t.fill_(1.0)\n"
                "assert t.sum().item() == float(1 << 20)\n"
                "try:\n"
                "    torch.empty(s1['Limit'] // 4 + (1 << 20), device='hpu')\n"
                "    raise SystemExit('allocating past the HBM did not fail')\n"
                "except RuntimeError as e:\n"
                "    assert 'HLRT_OUT_OF_DEVICE_MEMORY' in str(e), e\n"
                "assert (t * 2.0).sum().item() == float(2 << 20)\n"
                "print('ok')\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ok", r.stdout)


if __name__ == "__main__":
    unittest.main()
