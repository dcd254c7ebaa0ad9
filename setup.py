"""The build's one step that pyproject.toml cannot say: compiling DRMAA's C library,
clients/drmaa/libdrmaa.c, into clients/drmaa/libdrmaa.so (docs/drmaa.md).

It is built as a setuptools extension, so that a plain ``pip install .`` puts it into
the installed package and an editable install (``pip install -e .``) beside its source;
it is a plain shared library (no Python module: programs dlopen it), named
``libdrmaa.so``. The agent's interpreter is fixed here: this build's ``sys.executable``
(``PYGE_DRMAA_PYTHON`` names another at run time). Without a working C compiler the
installation goes on without DRMAA and says so.
"""
from __future__ import annotations

import json
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LIBRARY = "clients.drmaa.libdrmaa"
NO_DRMAA = ("pygridengine: no working C compiler ({why}): libdrmaa.so (DRMAA) is not "
            "built; everything else is installed. Install a C compiler (Debian: gcc) "
            "and install pygridengine again to have DRMAA.")


class BuildLibdrmaa(build_ext):
    """build_ext for a library that is not a Python module."""

    def get_ext_filename(self, fullname: str) -> str:
        return os.path.join(*fullname.split(".")) + ".so"

    def get_export_symbols(self, ext: Extension) -> list[str]:
        return []  # (no PyInit_ function: it is no Python module)

    def get_libraries(self, ext: Extension) -> list[str]:
        return list(ext.libraries)  # (never libpython: a C program loads it)

    def build_extension(self, ext: Extension) -> None:
        # a C string literal of the interpreter's path
        ext.define_macros = [("PYGE_PYTHON", json.dumps(sys.executable))]
        try:
            super().build_extension(ext)
        except Exception as err:  # noqa: BLE001 - CompileError, LinkError, no compiler...
            self.warn(NO_DRMAA.format(why=str(err).strip() or type(err).__name__))
            print(NO_DRMAA.format(why=str(err).strip() or type(err).__name__),
                  file=sys.stderr)

    def run(self) -> None:
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - no compiler found at all
            print(NO_DRMAA.format(why=str(err).strip() or type(err).__name__),
                  file=sys.stderr)


setup(ext_modules=[Extension(LIBRARY, sources=["clients/drmaa/libdrmaa.c"],
                             extra_compile_args=["-pthread", "-std=c99"],
                             extra_link_args=["-pthread"], libraries=["dl"],
                             optional=True)],
      cmdclass={"build_ext": BuildLibdrmaa})
