"""habana_frameworks.torch.core: importing it registers the device; mark_step()."""
import os

import torch

from habana_frameworks.torch import _load

_load()


def is_lazy():
    """PT_HPU_LAZY_MODE: 1 (the default) records the device's ops until
    mark_step() or a read back to the host; 0 runs each op when called."""
    return os.environ.get("PT_HPU_LAZY_MODE", "1") != "0"


def mark_step(device_str="", sync=False):
    """Run the ops recorded since the last step as one graph (lazy mode);
    with sync=True also wait for the device."""
    torch.ops.hpu_bridge.mark_step()
    if sync:
        torch.ops.hpu_bridge.synchronize()
