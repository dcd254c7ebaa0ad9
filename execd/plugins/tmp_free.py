"""The ``tmp_free`` load-sensor plugin: free bytes of the temporary directory's file system.

Reports ``tmp_free`` (the name complex(5) uses in its load sensor example) as an integer
number of bytes, to be declared a MEMORY complex. The path is ``tempfile.gettempdir()``,
or the one in the environment variable ``PYGE_TMP_FREE_PATH`` when that is set (e.g. a
scratch file system that jobs use as ``tmpdir``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from execd.plugins import Value

PATH_ENV = "PYGE_TMP_FREE_PATH"


def tmp_path() -> str:
    """The path whose file system is measured (read on every call: the env may change)."""
    path = os.environ.get(PATH_ENV)
    if path:
        return path
    import tempfile  # only when needed: tempfile pulls in random, shutil, ...
    return tempfile.gettempdir()


class TmpFree:
    """Free bytes of the file system holding the temporary directory."""

    name = "tmp_free"

    def read(self) -> Mapping[str, Value]:
        st = os.statvfs(tmp_path())
        # f_bavail, not f_bfree: the blocks reserved for root are not free for jobs
        # (what df calls "Avail").
        return {"tmp_free": int(st.f_bavail) * int(st.f_frsize)}
