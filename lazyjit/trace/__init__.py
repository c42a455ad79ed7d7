"""The graph: hash-consed nodes, traces (the pending subgraph of a realize) and their keys."""
from lazyjit.trace.graph import Trace, collect
from lazyjit.trace.node import Node

__all__ = ["Node", "Trace", "collect"]
