"""DRMAA 1.0 for pygridengine (docs/drmaa.md): ``libdrmaa.c`` and ``drmaa.h``, the C
library programs load (python-drmaa through DRMAA_LIBRARY_PATH), and the agent it starts
at drmaa_init, ``python -m clients.drmaa`` (``server``: the channel; ``session``: the
calls; ``template``: job templates; ``status``: states and status words; ``backend``:
the cell through ``clients.api``; ``reaper``: the jobs' ends).

The package's build (setup.py) compiles libdrmaa.so beside these files where a C
compiler exists; ``library_path`` names it."""
from __future__ import annotations

import os

LIBRARY_NAME = "libdrmaa.so"
HEADER_NAME = "drmaa.h"


def library_path() -> str | None:
    """The built libdrmaa.so of this installation, or None when none was built."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)
    return path if os.path.isfile(path) else None
