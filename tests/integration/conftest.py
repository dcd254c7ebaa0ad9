"""A shepherd fork server (execd.launcher) for the modules that run jobs through it
without daemons; stopped after the module."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from execd.launcher import Launcher


@pytest.fixture(scope="module")
def launcher() -> Iterator[Launcher]:
    zygote = Launcher()
    zygote.start()
    yield zygote
    zygote.stop()
