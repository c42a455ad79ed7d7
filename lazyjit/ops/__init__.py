"""Primitive ops: one :class:`~lazyjit.ops.registry.OpDef` each, in :data:`REGISTRY`."""
from lazyjit.ops.registry import REGISTRY, OpDef, SUPPORTED_DTYPES, ref_dtype, register
from lazyjit.ops import control, elementwise, structural  # noqa: F401  (fill the registry)

__all__ = ["REGISTRY", "OpDef", "SUPPORTED_DTYPES", "ref_dtype", "register"]
