"""Primitive ops: one :class:`~lazyjit.ops.registry.OpDef` each, in :data:`REGISTRY`."""
from lazyjit.ops.registry import REGISTRY, SUPPORTED_DTYPES, OpDef, apply, ref_dtype, register
# importing the op modules fills the registry
from lazyjit.ops import control, conv, elementwise, random_ops, sort, structural  # noqa: F401

__all__ = ["REGISTRY", "OpDef", "SUPPORTED_DTYPES", "apply", "ref_dtype", "register"]
