"""habana_frameworks.torch.core: importing it registers the device; mark_step()."""
import os

import torch

from habana_frameworks.torch import _load

_load()


def is_lazy():
    """PT_HPU_LAZY_MODE (default 1). The bridge runs every op when called
    (eager); in lazy mode mark_step() is where queued device work is waited for."""
    return os.environ.get("PT_HPU_LAZY_MODE", "1") != "0"


def mark_step(device_str="", sync=False):
    """The end of a step: the device's queued work is complete on return."""
    torch.ops.hpu_bridge.synchronize()
