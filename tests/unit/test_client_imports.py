"""What a command loads when it starts: ``qsub`` and ``qdel`` run once per job in
workflow engines and shell loops, so modules only some of their runs need are imported
where those runs need them (issue 12). A module on the list below coming back into the
start-up of these commands fails this test; the time it costs is measured by the
benchmarks, not here.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

# modules none of these commands may load at start-up: the remote path (MUNGE, CURVE
# keys, hashlib), -sync's signal names, daemons' libraries and the placement code
NOT_AT_START = ("common.munge", "common.keys", "clients.remote", "hashlib", "signal",
                "secrets", "zmq", "psutil", "structlog", "asyncio", "subprocess", "json",
                "logging", "tempfile", "shutil", "uuid", "execd", "qmaster", "scheduler",
                "common.placement", "common.quota")

PROBE = """
import sys
before = set(sys.modules)
import {module}
print("\\n".join(sorted(set(sys.modules) - before)))
"""


def loaded_by(module: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module)],
                          capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("module", ["clients.qsub.main", "clients.qdel"])
def test_a_command_loads_only_what_every_run_needs(module: str) -> None:
    loaded = loaded_by(module)
    unwanted = sorted(name for name in loaded
                      if any(name == m or name.startswith(m + ".") for m in NOT_AT_START))
    assert unwanted == [], f"{module} loads {unwanted} at start-up"
