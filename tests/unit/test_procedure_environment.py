"""What a prolog, epilog or method gets that does not run as the job owner
(``jobdir.procedure_environment``): Grid Engine's own variables, the procedure user's
HOME/USER/LOGNAME/SHELL and a fixed PATH; never a variable the job owner chose (-v/-V),
whatever its name, and never the owner's value under one of Grid Engine's names."""
from __future__ import annotations

import os
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from execd import jobdir, safefs

ATTACK = {"LD_PRELOAD": "/home/u/evil.so", "LD_LIBRARY_PATH": "/home/u/lib",
          "BASH_ENV": "/home/u/x.sh", "ENV": "/home/u/x.sh", "PYTHONPATH": "/home/u/py",
          "IFS": "/", "PATH": "/home/u/bin", "SHELLOPTS": "xtrace", "PERL5LIB": "/home/u",
          "GCONV_PATH": "/home/u", "TZ": "/home/u/zone", "PE_HOSTFILE": "/home/u/hosts",
          "SGE_ROOT": "/home/u/sge", "PWD": "/home/u", "HOME": "/home/u"}


def spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "job_id": 17, "task_id": 3, "array": [1, 5, 1], "job_name": "j", "binary": False,
        "command": "j.sh", "cwd": "/home/u/work", "env": dict(ATTACK), "shell": "/home/u/sh",
        "sge_o": {"HOME": "/home/u", "WORKDIR": "/home/u/work", "HOST": "sub",
                  "PATH": "/home/u/bin", "LD_PRELOAD": "/home/u/evil.so"},
        "queue": "all.q", "host": "node1", "slots": 2, "nhosts": 1, "pe": None,
    }
    base.update(changes)
    return base


def procedure_env(s: dict[str, Any]) -> dict[str, str]:
    return jobdir.procedure_environment(s, "root", "/root", "/bin/bash", "/tmp/17.3.all.q",
                                        "/spool/jobs/17.3", "lx-amd64", None)


def test_a_root_procedure_gets_none_of_the_attack_variables() -> None:
    env = procedure_env(spec())
    for name in ("LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PYTHONPATH", "IFS",
                 "SHELLOPTS", "PERL5LIB", "GCONV_PATH", "TZ", "PE_HOSTFILE", "SGE_ROOT",
                 "PWD", "SGE_O_LD_PRELOAD"):
        assert name not in env, name
    assert env["PATH"] == jobdir.PROCEDURE_PATH == \
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    assert (env["HOME"], env["USER"], env["LOGNAME"], env["SHELL"]) == \
        ("/root", "root", "root", "/bin/bash")


def test_it_keeps_grid_engine_s_own_variables() -> None:
    env = procedure_env(spec(pe="smp"))
    assert (env["JOB_ID"], env["SGE_TASK_ID"], env["QUEUE"], env["NSLOTS"]) == \
        ("17", "3", "all.q", "2")
    assert env["TMPDIR"] == env["TMP"] == "/tmp/17.3.all.q"
    assert env["PE"] == "smp" and env["PE_HOSTFILE"] == "/spool/jobs/17.3/pe_hostfile"
    assert (env["SGE_O_WORKDIR"], env["SGE_O_HOST"]) == ("/home/u/work", "sub")
    assert env["JOB_SCRIPT"] == "/spool/jobs/17.3/script"
    # the execd's own TZ and SGE_ROOT, not the owner's
    with_tz = jobdir.procedure_environment(spec(sge_root="/opt/sge"), "root", "/root",
                                           "/bin/sh", "/t", "/d", "a", "Europe/Paris")
    assert (with_tz["TZ"], with_tz["SGE_ROOT"]) == ("Europe/Paris", "/opt/sge")


def test_the_job_itself_still_gets_what_its_owner_asked_for() -> None:
    env = jobdir.job_environment(spec(), "u", "/home/u", "/tmp/t", "/spool/jobs/17.3", "a")
    assert env["LD_PRELOAD"] == "/home/u/evil.so" and env["BASH_ENV"] == "/home/u/x.sh"
    assert env["PATH"] == "/tmp/t:/home/u/bin"


NAMES = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="="),
                min_size=1, max_size=12)


@given(st.dictionaries(NAMES, st.text(max_size=20), max_size=20),
       st.dictionaries(NAMES, st.text(max_size=20), max_size=8),
       st.sampled_from([None, "smp"]))
def test_no_value_of_the_owner_reaches_a_procedure(user_env: dict[str, str],
                                                   sge_o: dict[str, str],
                                                   pe: str | None) -> None:
    """Whatever the owner sets with -v (and whatever the submit client sends as SGE_O_*),
    the procedure's environment is the one it gets without any of it, except the
    submit context under the fixed SGE_O_* names."""
    clean = procedure_env(spec(env={}, sge_o={}, pe=pe))
    env = procedure_env(spec(env=user_env, sge_o=sge_o, pe=pe))
    submitted = {f"SGE_O_{k}": v for k, v in sge_o.items()
                 if k in jobdir.PROCEDURE_SUBMIT_VARIABLES}
    assert env == {**clean, **submitted}
    assert all(name.startswith("SGE_O_") or name in clean for name in env)


def test_a_fresh_unpredictable_directory(tmp_path: Any) -> None:
    prefix = tmp_path / "17.1.all.q"
    prefix.symlink_to("/")
    made = {safefs.make_unique_dir(prefix, 0o700) for _ in range(3)}
    assert len(made) == 3
    for path in made:
        assert path.startswith(f"{prefix}.") and len(path) == len(str(prefix)) + 17
        st_ = os.lstat(path)
        assert oct(st_.st_mode & 0o7777) == "0o700" and st_.st_uid == os.geteuid()
