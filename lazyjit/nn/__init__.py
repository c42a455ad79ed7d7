"""Neural-network building blocks over lazyjit tensors: layers with parameters held as
shared variables (``lj.nn.Linear``, ``Conv2d``, ``LSTM``, ...: :mod:`.modules`) and
functions (``lazyjit.nn.functional``).

>>> import lazyjit.nn.functional as F
>>> y = F.conv2d(x, w, bias, stride=2, padding=1)

Everything here is a composite of lazyjit's public primitives (slicing, stacking,
``matmul``, ``maximum``, ...), so gradients in both modes, to any order, come from the
primitives' derivative rules.
"""
from lazyjit.nn import functional
from lazyjit.nn.functional import avg_pool2d, conv2d, max_pool2d
from lazyjit.nn.modules import (LSTM, BatchNorm1d, BatchNorm2d, Conv2d, Dropout, Embedding,
                                Linear, MaxPool2d, Module, ReLU, Sequential, manual_seed)

__all__ = ["functional", "conv2d", "max_pool2d", "avg_pool2d", "Module", "Linear", "Conv2d",
           "MaxPool2d", "ReLU", "Embedding", "Dropout", "Sequential", "LSTM", "BatchNorm1d",
           "BatchNorm2d", "manual_seed"]
