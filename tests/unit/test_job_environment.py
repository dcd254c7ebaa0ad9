"""A batch job's environment (``execd.jobdir.job_environment`` and the output paths the
shepherd adds) against what Grid Engine 8.1.9 gave the same jobs
(tests/data/reference/jobenv/, README.md there says how they were captured).

Every variable 8.1.9 sets is set here with the same value, except the spool layout (the
script and job directory paths are ours) and the variables an 8.1.9 job inherits from
its execd's own environment (``execd_params INHERIT_ENV``), which docs/compatibility.md
lists: our execd passes none of its environment on.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from clients.api import submit_environment
from clients.qsub.main import with_term
from execd import jobdir

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "jobenv"
# in the captured jobs' environment because 8.1.9's execd had them (INHERIT_ENV)
FROM_THE_EXECD = {"SGE_QMASTER_PORT", "SGE_EXECD_PORT", "SGE_EXECD_PIDFILE",
                  "SGE_BINARY_PATH"}
# set by the job's shell, not by the shepherd (a login sh also rewrites PATH)
FROM_THE_SHELL = {"PWD"}
SPOOL = "/var/spool/gridengine/execd/vm/active_jobs"
OUT = "/tmp/p-mail-cap/out"
SUBMIT_ENV = {"HOME": "/home/sgeuser", "USER": "sgeuser", "LOGNAME": "sgeuser",
              "SHELL": "/bin/bash",
              "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
RAW_V_ENV = {"HOME": "/home/sgeuser", "PATH": "/usr/bin:/bin:/usr/lib/gridengine",
             "SGE_ROOT": "/var/lib/gridengine", "SGE_CELL": "default",
             "SGE_QMASTER_PORT": "6444", "SGE_EXECD_PORT": "6445", "FOO": "bar"}

# name -> (job id, task id, options as the start record carries them, submit environment)
JOBS: dict[str, tuple[int, int | None, dict[str, Any], dict[str, str]]] = {
    "plain": (147, None, {"stdout_path": OUT, "stderr_path": OUT}, SUBMIT_ENV),
    "noout": (148, None, {}, SUBMIT_ENV),
    "arr.1": (149, 1, {"stdout_path": OUT, "stderr_path": OUT, "array": [1, 3, 2]},
              SUBMIT_ENV),
    "arr.3": (149, 3, {"stdout_path": OUT, "stderr_path": OUT, "array": [1, 3, 2]},
              SUBMIT_ENV),
    "pejob": (150, None, {"stdout_path": f"{OUT}/pe.o", "stderr_path": f"{OUT}/pe.e",
                          "pe": "smp", "slots": 2}, SUBMIT_ENV),
    "cwdjob": (151, None, {"cwd": "/tmp/p-mail-cap/sub"}, SUBMIT_ENV),
    "binjob": (154, None, {"stdout_path": OUT, "stderr_path": OUT, "binary": True,
                           "command": "/tmp/p-mail-cap/envdump.sh"}, SUBMIT_ENV),
    "rawplain": (159, None, {"stdout_path": OUT, "stderr_path": OUT,
                             "shell": "/bin/dash"}, SUBMIT_ENV),
    "rawv": (160, None, {"stdout_path": OUT, "stderr_path": OUT, "shell": "/bin/dash",
                         "env": {"FOO": "x", "PATH": "/opt/x:/bin", "TERM": "vt100",
                                 "TMPDIR": "/mine", "JOB_ID": "99", "SGE_ROOT": "/x"}},
             SUBMIT_ENV),
    "rawV": (161, None, {"stdout_path": OUT, "stderr_path": OUT, "shell": "/bin/dash",
                         "env": RAW_V_ENV}, RAW_V_ENV),
}
# the spec pieces the execd fills in for every job of the captures
EXECD = {"host": "vm", "queue": "all.q", "tmpdir_base": "/tmp", "sge_root": "/var/lib/gridengine",
         "cell": "default", "nhosts": 1}


def captured(name: str) -> dict[str, str]:
    lines = (REFERENCE / f"{name}.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def sge_o(submit_env: dict[str, str], cwd: str) -> dict[str, str]:
    """What our qsub records of that submitter (as clients.api does it) in ``cwd``."""
    here = os.getcwd()
    os.chdir("/")
    try:
        recorded = submit_environment(submit_env)
    finally:
        os.chdir(here)
    return {**recorded, "WORKDIR": cwd, "HOST": "vm"}


def spec_of(name: str) -> dict[str, Any]:
    job_id, task_id, opts, submit_env = JOBS[name]
    script = "/tmp/p-mail-cap/envdump.sh"
    spec: dict[str, Any] = {
        **EXECD, "job_id": job_id, "task_id": task_id, "job_name": name.split(".")[0],
        "binary": False, "command": script, "shell": "/bin/sh", "cwd": None,
        "stdout_path": None, "stderr_path": None, "merge": False, "slots": 1,
        "array": None, "pe": None, "owner": "sgeuser", **opts,
    }
    spec["env"] = with_term(dict(opts.get("env") or {}))
    spec["sge_o"] = sge_o(submit_env, spec["cwd"] or "/home/sgeuser")
    return spec


def our_environment(spec: dict[str, Any], job_dir: str) -> dict[str, str]:
    """jobdir.job_environment plus the output paths, as the shepherd exports them."""
    tmpdir = jobdir.tmpdir_path(spec)
    env = jobdir.job_environment(spec, "sgeuser", "/home/sgeuser", tmpdir, job_dir,
                                 "lx-amd64")
    cwd = jobdir.working_dir(spec, "/home/sgeuser")
    out_dirs = {OUT, "/home/sgeuser", "/tmp/p-mail-cap/sub"}
    is_dir = out_dirs.__contains__
    env.update(SGE_STDIN_PATH="/dev/null",
               SGE_STDOUT_PATH=jobdir.output_path(spec, "o", cwd, lambda u: "/home/" + u,
                                                  is_dir),
               SGE_STDERR_PATH=jobdir.output_path(spec, "e", cwd, lambda u: "/home/" + u,
                                                  is_dir),
               SGE_CWD_PATH=cwd)
    return env


@pytest.mark.parametrize("name", sorted(JOBS))
def test_the_job_gets_8_1_9_s_variables_with_8_1_9_s_values(name: str) -> None:
    spec = spec_of(name)
    task = spec["task_id"] or 1
    job_dir = f"{SPOOL}/{spec['job_id']}.{task}"
    ours = our_environment(spec, job_dir)
    theirs = captured(name)
    # the spool layouts differ: 8.1.9 keeps the script apart from the job directory
    theirs["JOB_SCRIPT"] = ours["JOB_SCRIPT"]
    for gone in FROM_THE_EXECD | FROM_THE_SHELL:
        if gone not in spec["env"]:
            theirs.pop(gone, None)
    ours.pop("PWD", None)
    if spec["shell"] == "/bin/sh":  # a login shell: /etc/profile rewrote PATH
        theirs.pop("PATH")
        ours.pop("PATH")
    assert ours == theirs


def test_a_variable_without_a_value_is_set_empty() -> None:
    spec = spec_of("plain")
    spec["env"] = {"TERM": None, "UNSETV": None, "EMPTYV": ""}
    env = jobdir.job_environment(spec, "u", "/home/u", "/tmp/t", "/spool/1.1", "lx-amd64")
    assert (env["TERM"], env["UNSETV"], env["EMPTYV"]) == ("", "", "")


def test_qsub_sends_term_unless_the_job_names_it() -> None:
    assert with_term({}) == {"TERM": None}
    assert list(with_term({"A": "1"})) == ["TERM", "A"]
    assert with_term({"A": "1", "TERM": "xterm"}) == {"A": "1", "TERM": "xterm"}


def test_the_submit_context_has_only_the_variables_the_submitter_had() -> None:
    recorded = submit_environment({"HOME": "/h", "PATH": "/bin"})
    assert set(recorded) == {"HOME", "PATH", "WORKDIR", "HOST"}
    full = submit_environment({**SUBMIT_ENV, "MAIL": "/var/mail/u", "TZ": "UTC"})
    assert {full[k] for k in ("LOGNAME", "SHELL", "MAIL", "TZ")} == \
        {"sgeuser", "/bin/bash", "/var/mail/u", "UTC"}
