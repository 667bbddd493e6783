"""gaudisim's hpu bridge for PyTorch, under the package name Gaudi users import."""
