"""BF16 autocast on the hpu: torch.autocast(device_type="hpu") is refused
by PyTorch 1.13, so the bridge has its own. Inside autocast() the device's
matrix products (mm, addmm: linear) take BF16 inputs with FP32
accumulation and output (cast nodes before libhlrt's gemm_bf16);
everything else stays FP32. Habana's overrides apply: LOWER_LIST names a
file of the ops to lower (replacing the default list), FP32_LIST one of
ops to keep in FP32, one aten op name a line."""
import contextlib

import torch


@contextlib.contextmanager
def autocast(enabled=True, dtype=torch.bfloat16):
    if dtype != torch.bfloat16:
        raise ValueError("hpu autocast supports torch.bfloat16 only")
    old = torch.ops.hpu_bridge.set_autocast(bool(enabled))
    try:
        yield
    finally:
        torch.ops.hpu_bridge.set_autocast(old)
