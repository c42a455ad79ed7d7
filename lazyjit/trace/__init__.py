"""The graph: hash-consed nodes, traces (the pending subgraph of a realize) and their keys."""
from lazyjit.trace.node import Node, creation_site, LazyjitError, op_error
from lazyjit.trace.graph import Trace, collect

__all__ = ["Node", "Trace", "collect", "creation_site", "LazyjitError", "op_error"]
