"""Package layout for setuptools; metadata lives in pyproject.toml.

``lazyjit`` and all its subpackages are found automatically.  The C runtime header is
kept in the top-level ``native/`` folder; when that folder exists it is shipped as
``lazyjit/native/*.h`` so an installed (non-editable) package finds it too.  In a source
checkout or an editable install (``pip install -e .``) it is ``<repo>/native/``.
"""
import os

from setuptools import find_packages, setup

packages = find_packages(include=["lazyjit", "lazyjit.*"])
package_dir = {}
package_data = {"lazyjit": ["py.typed", "**/*.h", "**/*.c"]}
if os.path.isdir("native"):
    packages.append("lazyjit.native")
    package_dir["lazyjit.native"] = "native"
    package_data["lazyjit.native"] = ["*.h"]

setup(packages=packages, package_dir=package_dir, package_data=package_data)
