"""A request taken while the job's first process is between its fork and its setsid
(qdel right after the dispatch): the signal must reach it although its group does not
exist yet when the shepherd signals the group (execd.shepherd._JobWatch.signal_tree)."""
from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

import pytest

from execd import shepherd


def test_a_job_whose_group_came_too_late_still_gets_the_signal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the child in its own session already (the tree shows it in its own group) while
    # the shepherd's killpg came a moment before its setsid (no such group then)
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        def no_group_yet(pgid: int, signum: int) -> None:
            raise ProcessLookupError(3, "No such process")
        monkeypatch.setattr(shepherd.os, "killpg", no_group_yet)
        watch: Any = object.__new__(shepherd._JobWatch)
        watch.pid, watch.helpers, watch.cgroup = child.pid, {}, None
        watch.signal_tree(signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
