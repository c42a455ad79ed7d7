"""Primitive ops: one :class:`~lazyjit.ops.registry.OpDef` each, in :data:`REGISTRY`."""
from lazyjit.ops.registry import (REGISTRY, SUPPORTED_DTYPES, OpDef, apply, kind_of, ref_dtype,
                                   register)
# importing the op modules fills the registry
from lazyjit.ops import (control, conv, deferred, elementwise, fft, linalg,  # noqa: F401
                         random_ops, sort, structural)

__all__ = ["REGISTRY", "OpDef", "SUPPORTED_DTYPES", "apply", "kind_of", "ref_dtype", "register"]
