"""Neural-network building blocks over lazyjit tensors (``lazyjit.nn.functional``).

>>> import lazyjit.nn.functional as F
>>> y = F.conv2d(x, w, bias, stride=2, padding=1)

Everything here is a composite of lazyjit's public primitives (slicing, stacking,
``matmul``, ``maximum``, ...), so gradients in both modes, to any order, come from the
primitives' derivative rules.
"""
from lazyjit.nn import functional
from lazyjit.nn.functional import avg_pool2d, conv2d, max_pool2d

__all__ = ["functional", "conv2d", "max_pool2d", "avg_pool2d"]
