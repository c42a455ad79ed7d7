"""Package layout for setuptools; metadata lives in pyproject.toml.

``lazyjit`` and all its subpackages are found automatically.  The C runtime header is
kept in the top-level ``native/`` folder; when that folder exists it is shipped as
``lazyjit/native/*.h`` so an installed (non-editable) package finds it too.  In a source
checkout or an editable install (``pip install -e .``) it is ``<repo>/native/``.

``lazyjit._speedups`` (``native/lj_speedups.c``, against NumPy's C headers) is an optional
extension: where it cannot be built (no Python headers), the install goes on and lazyjit
runs the same loops in Python (``lazyjit.speedups``).
"""
import os

from setuptools import Extension, find_packages, setup

try:  # (pyproject's build requirements bring it; an install without it goes on)
    import numpy
except ImportError:
    numpy = None

packages = find_packages(include=["lazyjit", "lazyjit.*"])
package_dir = {}
package_data = {"lazyjit": ["py.typed", "**/*.h", "**/*.c"]}
if os.path.isdir("native"):
    packages.append("lazyjit.native")
    package_dir["lazyjit.native"] = "native"
    package_data["lazyjit.native"] = ["*.h"]

speedups = Extension("lazyjit._speedups", ["native/lj_speedups.c", "native/lj_graph.c",
                                          "native/lj_numbers.c", "native/lj_tensor.c",
                                          "native/lj_memo.c", "native/lj_ops.c"],
                     include_dirs=[numpy.get_include()] if numpy else [], optional=True)
setup(packages=packages, package_dir=package_dir, package_data=package_data,
      ext_modules=[speedups] if numpy and os.path.isfile("native/lj_speedups.c") else [])
