"""The hpu device of PyTorch on gaudisim's runtime (libhlrt)."""
import atexit
import os

import torch

_loaded = False


def _load():
    """Load the bridge's extension once and register torch.hpu."""
    global _loaded
    if _loaded:
        return
    lib = os.path.join(os.path.dirname(__file__), "lib", "libhpu_bridge.so")
    torch.ops.load_library(lib)
    from habana_frameworks.torch import hpu as _hpu
    torch._register_device_module("hpu", _hpu)
    # Run what is recorded, wait, release the device (writes HLRT_PROFILE).
    atexit.register(torch.ops.hpu_bridge.release)
    _loaded = True
