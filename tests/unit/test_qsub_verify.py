"""qsub -verify (clients.qsub.verify): the job printed as 8.1.9's qsub prints it, nothing
submitted; compared with the captures in tests/data/reference/qsub/."""
from __future__ import annotations

import shlex
from datetime import datetime
from pathlib import Path

from clients.qsub.main import job_description
from clients.qsub.options import parse_qsub
from clients.qsub.verify import verify_text

REFERENCE = Path(__file__).parent.parent / "data" / "reference" / "qsub"
SGE_O = {"HOME": "/home/sgeuser", "LOGNAME": "sgeuser",
         "PATH": "/usr/lib/gridengine:/usr/bin:/bin", "SHELL": "/bin/bash",
         "WORKDIR": "/home/sgeuser", "HOST": "vm"}
SCRIPT = "#!/bin/sh\necho hi\n"


def printed(name: str) -> str:
    argv = shlex.split((REFERENCE / f"{name}.cmd").read_text().removeprefix("$ "))[1:]
    opts = parse_qsub(argv, script_text=SCRIPT, cwd="/home/sgeuser", environ={},
                      home="/home/sgeuser")
    now = datetime(2026, 11, 28, 7, 0).astimezone().timestamp()
    return verify_text(job_description(opts, dict(SGE_O)), "sgeuser", now)


def test_a_binary_job_as_8_1_9_prints_it() -> None:
    assert printed("qsub-verify") == (REFERENCE / "qsub-verify.out").read_text()


def test_every_option_and_the_script_as_8_1_9_prints_them() -> None:
    assert printed("qsub-verify-rich") == (REFERENCE / "qsub-verify-rich.out").read_text()
