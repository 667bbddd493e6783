"""Habana's entry point: load_habana_module() makes torch.device("hpu") usable."""
from habana_frameworks.torch import _load


def load_habana_module():
    _load()
