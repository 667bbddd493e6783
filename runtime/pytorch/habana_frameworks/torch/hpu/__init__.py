"""torch.hpu: device queries, selection and memory statistics."""
import torch

from habana_frameworks.torch.hpu import amp  # noqa: F401  (torch.hpu.amp.autocast)

_STAT_KEYS = ("Limit", "InUse", "MaxInUse", "NumAllocs", "NumFrees", "ActiveAllocs",
              "MaxAllocSize")


def _ops():
    return torch.ops.hpu_bridge


def is_available():
    try:
        return _ops().device_count() > 0
    except RuntimeError:
        return False


def device_count():
    return _ops().device_count()


def current_device():
    return _ops().current_device()


def _index(device):
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != "hpu":
        raise ValueError(f"not an hpu device: {device}")
    return current_device() if device.index is None else device.index


def set_device(device):
    _ops().set_device(_index(device))


def synchronize(device=None):
    _ops().synchronize()


def memory_stats(device=None):
    return dict(zip(_STAT_KEYS, _ops().memory_stats()))


def memory_allocated(device=None):
    return memory_stats(device)["InUse"]


def max_memory_allocated(device=None):
    return memory_stats(device)["MaxInUse"]


def reset_peak_memory_stats(device=None):
    _ops().reset_peak_memory_stats()


def get_device_name(device=None):
    return "GAUDISIM"
