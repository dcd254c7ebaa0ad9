"""qmaster_params keys that change what a request does (sge_conf(5)):
ENABLE_FORCED_QDEL (an owner's qdel -f) and ENABLE_FORCED_QDEL_IF_UNKNOWN (a qdel of a
job on an unknown host is a forced one)."""
from __future__ import annotations

from pathlib import Path

from tests.unit.test_bounded_cost import set_global
from tests.unit.test_qmaster_core import ALICE, BOB, Harness


def running_job(qm: Harness) -> int:
    qm.register("h1")
    job = qm.submit(ALICE)
    qm.dispatch(job)
    return job


def delete(qm: Harness, user: object, job: int, force: bool) -> list[dict[str, object]]:
    return qm.call("delete", {"user": user.to_dict(),  # type: ignore[attr-defined]
                              "targets": [{"job_id": job}], "force": force})["results"]


def test_enable_forced_qdel_lets_the_owner_force_its_own_jobs_only(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    job = running_job(qm)
    assert delete(qm, ALICE, job, True) == [{"result": "force_denied"}]
    set_global(qm, qmaster_params="ENABLE_FORCED_QDEL=true")
    assert delete(qm, BOB, job, True)[0]["result"] == "denied"
    assert delete(qm, ALICE, job, True) == [{"job_id": job, "task_id": None,
                                              "result": "forced"}]
    assert qm.tasks(job)[0]["state"] == "finished"


def test_enable_forced_qdel_if_unknown_forces_a_qdel_on_an_unknown_host(
        tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    first, second = running_job(qm), running_job(qm)
    qm.server.store.hosts["h1"].alive = False  # (not heard from: unknown)
    assert delete(qm, ALICE, first, False)[0]["result"] == "registered"
    set_global(qm, qmaster_params="ENABLE_FORCED_QDEL_IF_UNKNOWN=1")
    assert delete(qm, ALICE, second, False)[0]["result"] == "forced"
    assert qm.tasks(second)[0]["state"] == "finished"


def test_forbid_reschedule_and_forbid_apperror_make_exit_99_and_100_ordinary() -> None:
    from common.model import Job, Task
    from execd import jobdir
    from qmaster.start_spec import start_spec
    job = Job(job_id=5, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
              opts={"job_name": "j"}, sge_o={})
    task = Task(job_id=5, task_id=1, queue="all.q", host="n1", slots=1,
                granted=[["all.q", "n1", 1]])

    def spec(params: str) -> dict[str, object]:
        conf = {"queue": {"all.q": []}, "hgrp": {}, "complex": {},
                "conf": {"global": [["qmaster_params", params]]}}
        return start_spec(conf, job, task)

    default, forbidden = spec("none"), spec("FORBID_RESCHEDULE=true,FORBID_APPERROR=1")
    assert (jobdir.exit_failure(default, 99, 0), jobdir.exit_failure(default, 100, 0)) == \
        (jobdir.FAILED_AGAIN, jobdir.FAILED_APPERROR)
    assert (jobdir.exit_failure(forbidden, 99, 0), jobdir.exit_failure(forbidden, 100, 0)) \
        == (0, 0)
    assert jobdir.procedure_outcome("prolog", 99, default) == (jobdir.FAILED_AGAIN, "reschedule")
    assert jobdir.procedure_outcome("prolog", 99, forbidden)[1] == "queue_error"  # type: ignore
    assert jobdir.procedure_outcome("epilog", 100, forbidden)[1] == "queue_error"  # type: ignore


def test_a_qsh_job_runs_the_xterm_of_its_host() -> None:
    """sge_conf(5) xterm (host-local over global) is what a qsh job's shepherd runs."""
    from common.model import Job, Task
    from qmaster.start_spec import start_spec
    session = {"kind": "qsh", "host": "sub", "port": 1, "token": b"t" * 16}
    job = Job(job_id=5, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
              opts={"job_name": "INTERACTIVE", "binary": True, "script_path": "xterm",
                    "script_args": ["-display", ":0"], "session": session}, sge_o={})
    conf = {"queue": {"all.q": []}, "hgrp": {}, "complex": {},
            "conf": {"global": [["xterm", "/opt/X11/bin/xterm"]],
                     "n2": [["xterm", "/usr/local/bin/xterm"]]}}

    def command(host: str, **changes: object) -> tuple[str, list[str]]:
        task = Task(job_id=5, task_id=1, queue="all.q", host=host, slots=1,
                    granted=[["all.q", host, 1]])
        spec = start_spec(conf, Job(**{**job.to_dict(), **changes}), task)
        return str(spec["command"]), list(spec["args"])

    assert command("n1") == ("/opt/X11/bin/xterm", ["-display", ":0"])
    assert command("n2")[0] == "/usr/local/bin/xterm"
    other = {**job.opts, "session": {**session, "kind": "qrsh"}, "script_path": "/bin/date",
             "script_args": []}
    assert command("n2", opts=other) == ("/bin/date", [])
