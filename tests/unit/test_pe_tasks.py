"""Parallel tasks (qrsh -inherit, sge_pe(5) control_slaves): the pure decision and book
(common.pe_tasks), and the qmaster's handlers without sockets: the order to the execd,
refusals before any work, accounting per task or summed, the book across a restart, and
the job's signals reaching every host it was granted."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common import pe_tasks, wire
from common.accounting import read_records
from common.jobstate import State
from common.pe_tasks import PeBook, Running, decide
from qmaster.defaults import pe_defaults
from tests.unit.test_qmaster_core import ALICE, BOB, Harness

GRANTED = [["all.q", "h1", 2], ["all.q", "h2", 2]]
TIGHT = [["pe_name", "tight"], ["control_slaves", "TRUE"], ["job_is_first_task", "TRUE"]]


def _decide(**kw: Any) -> pe_tasks.Grant | str:
    args: dict[str, Any] = dict(job_id=7, owner="alice", user="alice", state=State.RUNNING,
                                granted=GRANTED, master_host="h1", pe_name="tight",
                                pe=TIGHT, host="h2", book=PeBook())
    args.update(kw)
    return decide(**args)


# ---- the decision (pure) -----------------------------------------------------------------
def test_a_task_is_granted_on_a_host_of_the_job() -> None:
    grant = _decide()
    assert grant == pe_tasks.Grant("h2", "all.q", "1.h2", 1)


def test_refusals_come_in_grid_engines_order() -> None:
    not_here = "received task belongs to job 7 but that job is not here"
    assert _decide(state=State.PENDING, user="bob") == not_here
    assert _decide(state=State.SUSPENDED) == not_here
    assert _decide(host="elsewhere", user="bob") == not_here
    assert _decide(user="bob", pe=None) == 'user "bob" is not the owner of job 7'
    assert _decide(pe=None, pe_name=None) == \
        "received task belongs to job 7 but that job is not suited for starting tasks"
    assert _decide(pe=[["control_slaves", "FALSE"]]) == _decide(pe=None, pe_name=None)


def test_job_is_first_task_takes_a_slot_on_the_master_host() -> None:
    one = Running(1, "h1", "all.q", 0.0)
    assert isinstance(_decide(host="h1"), pe_tasks.Grant)
    full = _decide(host="h1", book=PeBook(2, {"1.h1": one}))
    assert full == "no free queue for job 7 of user alice@h1 (localhost = h1)"
    not_first = [["control_slaves", "TRUE"], ["job_is_first_task", "FALSE"]]
    assert _decide(host="h1", pe=not_first, book=PeBook(2, {"1.h1": one})) == \
        pe_tasks.Grant("h1", "all.q", "2.h1", 2)
    two = PeBook(3, {"1.h2": Running(1, "h2", "all.q", 0.0),
                     "2.h2": Running(2, "h2", "all.q", 0.0)})
    assert _decide(book=two).startswith("no free queue")  # type: ignore[union-attr]


def test_granted_hosts_are_found_by_short_and_long_names() -> None:
    granted = [["q", "node1.example.org", 1], ["q", "Node2", 1]]
    assert pe_tasks.find_granted(granted, "node1") == "node1.example.org"
    assert pe_tasks.find_granted(granted, "node2") == "Node2"
    assert pe_tasks.find_granted(granted, "node2.example.org") == "Node2"
    assert pe_tasks.find_granted(granted, "node3") is None
    assert pe_tasks.find_granted([["q", "a.x.org", 1]], "a.y.org") is None


@given(st.lists(st.tuples(st.sampled_from(["h1", "h2", "h3"]), st.integers(1, 8)),
                min_size=1, max_size=6), st.booleans())
def test_tasks_allowed_on_a_host_never_exceed_its_slots(grants: list[tuple[str, int]],
                                                         first: bool) -> None:
    granted = [["q", host, slots] for host, slots in grants]
    master = grants[0][0]
    for host in {h for h, _ in grants}:
        slots = sum(s for h, s in grants if h == host)
        allowed = pe_tasks.allowed_on_host(granted, host, master, first)
        assert allowed == slots - (1 if first and host == master else 0)


@given(st.integers(1, 100), st.dictionaries(
    st.text(min_size=1, max_size=8), st.builds(Running, st.integers(1, 100),
                                               st.text(max_size=8), st.text(max_size=8),
                                               st.floats(0, 1e9)), max_size=5),
    st.dictionaries(st.sampled_from(pe_tasks.SUMMED), st.floats(0, 1e9), max_size=4))
def test_the_book_reads_back_as_spooled(number: int, tasks: dict[str, Running],
                                        summary: dict[str, float]) -> None:
    book = PeBook(number, tasks, summary, {"job_number": number} if number % 2 else None)
    assert PeBook.from_dict(wire.unpack(wire.pack(book.to_dict()))) == book


@pytest.mark.parametrize("data", [None, [], {"next": "1", "tasks": {}},
                                  {"next": 1, "tasks": {"1.h": {"number": 1}}},
                                  {"next": 0, "tasks": {}},
                                  {"next": 1, "tasks": {}, "summary": {"cpu": "x"}},
                                  {"next": 1, "tasks": {}, "held": [1]}])
def test_a_damaged_book_is_refused(data: Any) -> None:
    with pytest.raises(ValueError):
        PeBook.from_dict(data)


def test_summary_adds_usage_and_keeps_peaks() -> None:
    total = pe_tasks.summed({}, {"cpu": 1.5, "ru_utime": 1.0, "maxvmem": 100.0})
    total = pe_tasks.summed(total, {"cpu": 2.0, "maxvmem": 50.0, "ru_maxrss": 7})
    assert total["cpu"] == 3.5 and total["ru_utime"] == 1.0
    assert total["maxvmem"] == 100.0 and total["ru_maxrss"] == 7
    usage = pe_tasks.with_summary({"cpu": 1.0, "ru_wallclock": 5}, total)
    assert usage["cpu"] == 4.5 and usage["ru_wallclock"] == 5


# ---- the qmaster ---------------------------------------------------------------------------
TOKEN = b"t" * 32
SESSION = {"kind": "qrsh", "host": "client", "port": 4242, "token": TOKEN}


def _cell(tmp: Path, **pe: str) -> Harness:
    qm = Harness(tmp, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    qm.register("h2")
    pairs = pe_defaults("mpi")
    changes = {"pe_name": "tight", "control_slaves": "TRUE", "accounting_summary": "FALSE",
               "job_is_first_task": "TRUE", "allocation_rule": "$round_robin", **pe}
    rows = [[k, changes.get(k, v)] for k, v in pairs]
    root = {"name": "root", "uid": 0, "group": "root", "gid": 0}
    qm.call("conf_put", {"user": root, "kind": "pe", "name": "tight", "data": rows,
                         "mode": "add"})
    queue = qm.server.store.conf["queue"]["all.q"]
    queue = [[k, "tight" if k == "pe_list" else ("2" if k == "slots" else v)]
             for k, v in queue]
    qm.call("conf_put", {"user": root, "kind": "queue", "name": "all.q", "data": queue,
                         "mode": "modify"})
    return qm


def _running_job(qm: Harness) -> int:
    job = qm.submit(pe=["tight", 4, 4], hard_resources={"h_vmem": "1G"})
    task = qm.tasks(job)[0]
    order = {"type": "dispatch", "job_id": job, "task_id": 1, "task_version": task["version"],
             "granted": GRANTED, "pe": "tight"}
    qm.call("orders", {"orders": [order]})
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 100.0,
                            "dispatched": dispatched}, identity=b"execd:h1")
    assert qm.tasks(job)[0]["state"] == "running"
    return job


def _start(qm: Harness, job: int, host: str = "h2", user: Any = ALICE) -> dict[str, Any]:
    return qm.call("pe_task_start", {"user": user.to_dict(), "job_id": job, "task_id": 1,
                                     "host": host, "command": "orted",
                                     "args": ["-mca", "x"], "session": SESSION,
                                     "env": {"OMPI_X": "1"}})


def _to_execd(qm: Harness, host: str, msg_type: str) -> list[dict[str, Any]]:
    out = []
    for ident, payload in qm.router.sent:
        if ident == b"execd:" + host.encode():
            rtype, _, body = wire.decode(payload)
            if rtype == msg_type:
                out.append(body)
    return out


def test_a_task_is_ordered_from_the_hosts_execd(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    assert _start(qm, job) == {"pe_task_id": "1.h2", "host": "h2"}
    [order] = _to_execd(qm, "h2", "start_pe_task")
    spec = order["spec"]
    assert (order["job_id"], order["task_id"], order["seq"]) == (job, 1, 1)
    assert spec["pe_task_id"] == "1.h2" and spec["host"] == "h2"
    assert spec["binary"] and spec["command"] == "orted" and spec["args"] == ["-mca", "x"]
    assert spec["session"]["token"] == TOKEN and spec["env"]["OMPI_X"] == "1"
    # per-slot limits for the one slot a task takes (the job's master holds 2 there)
    assert spec["limits"]["h_vmem"] == 1024 ** 3
    assert spec["prolog"] is None and spec["pe_start_proc_args"] is None
    assert spec["noshell"] is False and spec["pty"] is False
    assert not _to_execd(qm, "h1", "start_pe_task")


def test_refusals_change_nothing(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    refused = f'executing task of job {job} failed: execution daemon on host "h2" didn\'t ' \
              "accept task"
    with pytest.raises(RuntimeError, match=refused):
        _start(qm, job, user=BOB)
    with pytest.raises(RuntimeError, match="failed sending task to execd@h3: can't resolve "
                                           "host name"):
        _start(qm, job, host="h3")
    assert _start(qm, job, host="h1")["pe_task_id"] == "1.h1"  # numbers were not used up
    with pytest.raises(RuntimeError, match="didn't accept task"):
        _start(qm, job, host="h1")
    assert qm.server.store.pe_books[f"{job}.1"].next_number == 2


def test_a_task_that_ends_is_accounted_once_with_its_id(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job)
    asked = qm.server.store.pe_books[f"{job}.1"].tasks["1.h2"].started
    result = {"exit_status": 3, "start_time": 110.0, "end_time": 120.0, "cpu": 2.5,
              "ru_utime": 2.0}
    body = {"host": "h2", "job_id": job, "task_id": 1, "seq": 1, "pe_task_id": "1.h2",
            "result": result}
    for _ in range(2):  # (repeated until answered)
        assert qm.call("pe_task_finished", body, identity=b"execd:h2")["seq"] == 1
    qm.server._sync_accounting(force=True)
    [record] = [r for r in read_records(qm.cell.accounting_path) if r.pe_taskid != "NONE"]
    assert (record.pe_taskid, record.hostname, record.exit_status) == ("1.h2", "h2", 3)
    # (8.1.9 writes the job's slots in a task's record too)
    assert (record.start_time, record.end_time, record.cpu, record.slots) == (110, 120, 2.5, 4)
    assert record.granted_pe == "tight" and record.job_number == job
    assert record.submission_time == int(asked)  # (8.1.9: when the task was asked for)
    assert not qm.server.store.pe_books[f"{job}.1"].tasks
    # another execd cannot report it
    _start(qm, job)
    body = {**body, "host": "h1", "seq": 2, "pe_task_id": "2.h2"}
    qm.call("pe_task_finished", body, identity=b"execd:h1")
    assert "2.h2" in qm.server.store.pe_books[f"{job}.1"].tasks


def test_accounting_summary_puts_the_tasks_in_the_jobs_one_record(tmp_path: Path) -> None:
    qm = _cell(tmp_path, accounting_summary="TRUE")
    job = _running_job(qm)
    _start(qm, job)
    qm.call("pe_task_finished", {"host": "h2", "job_id": job, "task_id": 1, "seq": 1,
                                 "pe_task_id": "1.h2", "result": {
                                     "exit_status": 0, "cpu": 2.5, "ru_utime": 2.0}},
            identity=b"execd:h2")
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "dispatched":
                             dispatched, "result": {"exit_status": 0, "cpu": 1.0,
                                                    "ru_utime": 0.5}},
            identity=b"execd:h1")
    qm.server._sync_accounting(force=True)
    [record] = [r for r in read_records(qm.cell.accounting_path) if r.job_number == job]
    assert record.pe_taskid == "NONE" and record.cpu == 3.5 and record.ru_utime == 2.5


def test_the_summary_waits_for_the_tasks_still_running(tmp_path: Path) -> None:
    qm = _cell(tmp_path, accounting_summary="TRUE")
    job = _running_job(qm)
    _start(qm, job)
    _start(qm, job, host="h1")
    qm.call("pe_task_finished", {"host": "h2", "job_id": job, "task_id": 1, "seq": 1,
                                 "pe_task_id": "1.h2", "result": {"exit_status": 0,
                                                                  "cpu": 1.0, "ru_minflt": 3}},
            identity=b"execd:h2")
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "dispatched":
                             dispatched, "result": {"exit_status": 0, "cpu": 1.0,
                                                    "ru_minflt": 5}},
            identity=b"execd:h1")
    qm.server._sync_accounting(force=True)
    assert not qm.cell.accounting_path.exists()  # (no record yet)
    assert qm.server.store.pe_books[f"{job}.1"].held is not None
    qm.call("pe_task_finished", {"host": "h1", "job_id": job, "task_id": 1, "seq": 2,
                                 "pe_task_id": "2.h1", "result": {
                                     "exit_status": 137, "signal": 9, "failed": 100,
                                     "cpu": 0.5, "ru_minflt": 7}},
            identity=b"execd:h1")
    qm.server._sync_accounting(force=True)
    [record] = [r for r in read_records(qm.cell.accounting_path) if r.job_number == job]
    assert (record.pe_taskid, record.cpu, record.ru_minflt) == ("NONE", 2.5, 15)
    assert qm.server.store.pe_books[f"{job}.1"].held is None


def test_the_book_outlives_a_restart(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job, host="h1")
    qm.server.spool.close()
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    again.call("register", {"host": "h1", "load": {"num_proc": "2"}, "jobs": [
        {"job_id": job, "task_id": 1, "dispatched": dispatched}]}, identity=b"execd:h1")
    again.register("h2")
    with pytest.raises(RuntimeError, match="didn't accept task"):
        _start(again, job, host="h1")
    assert _start(again, job)["pe_task_id"] == "2.h2"


def test_the_jobs_signals_and_end_reach_every_host(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job)
    qm.call("qmod", {"user": ALICE.to_dict(), "items": [
        {"action": "suspend", "scope": "job", "ref": str(job)}]})
    assert [b["action"] for b in _to_execd(qm, "h2", "signal_job")] == ["suspend"]
    assert [b["action"] for b in _to_execd(qm, "h1", "signal_job")] == ["suspend"]
    with pytest.raises(RuntimeError, match="didn't accept task"):
        _start(qm, job)
    qm.call("qmod", {"user": ALICE.to_dict(), "items": [
        {"action": "unsuspend", "scope": "job", "ref": str(job)}]})
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "dispatched":
                             dispatched, "result": {"exit_status": 0}},
            identity=b"execd:h1")
    kills = [b for b in _to_execd(qm, "h2", "signal_job") if b["action"] == "kill"]
    assert kills == [{"job_id": job, "task_id": 1, "action": "kill",
                      "dispatched": dispatched}]


# ---- start_proc_args, stop_proc_args (execd.jobdir, qmaster.start_spec) -------------------
def test_pe_procedures_come_from_the_jobs_pe() -> None:
    from qmaster.start_spec import pe_procedures
    conf = {"pe": {"tight": [["start_proc_args", "root@/bin/start $pe_hostfile"],
                             ["stop_proc_args", "NONE"]]}}
    assert pe_procedures(conf, "tight") == {"pe_start_proc_args": "root@/bin/start $pe_hostfile",
                                            "pe_stop_proc_args": None}
    assert pe_procedures(conf, None) == {"pe_start_proc_args": None,
                                         "pe_stop_proc_args": None}


def test_pe_procedures_fail_with_sge_status_codes() -> None:
    from execd import jobdir
    assert jobdir.procedure_outcome("pe_start", 1) == (10, "queue_error")
    assert jobdir.procedure_outcome("pe_stop", 2) == (13, "queue_error")
    assert jobdir.procedure_outcome("pe_start", 99) == (25, "reschedule")
    assert jobdir.procedure_outcome("pe_stop", 0) is None
    assert jobdir.FAILED_REASONS[10] == "in pestart" and jobdir.FAILED_REASONS[9] == \
        "before pestart"


def test_pe_procedure_output_goes_to_po_and_pe_files() -> None:
    from execd import jobdir
    spec = {"stdout_path": None, "stderr_path": "/logs", "host": "h1", "job_name": "mpi",
            "job_id": 12, "task_id": None, "owner": "alice"}
    is_dir = lambda p: p in ("/work", "/logs")  # noqa: E731
    assert jobdir.output_path(spec, "o", "/work", lambda u: "/home", is_dir, "po") == \
        "/work/mpi.po12"
    assert jobdir.output_path(spec, "e", "/work", lambda u: "/home", is_dir, "pe") == \
        "/logs/mpi.pe12"
    assert jobdir.output_path(spec, "o", "/work", lambda u: "/home", is_dir) == \
        "/work/mpi.o12"


def test_launchers_run_the_installed_commands(tmp_path: Path) -> None:
    from deploy.launchers import launcher_dir, write_launchers
    bin_dir = tmp_path / "venv-bin"
    bin_dir.mkdir()
    for name in ("qrsh", "qsub", "not-a-command"):
        (bin_dir / name).write_text("#!/bin/sh\necho \"$0 $*\"\n")
        (bin_dir / name).chmod(0o755)
    root = tmp_path / "root"
    root.mkdir()
    assert sorted(write_launchers(root, "lx-amd64", bin_dir)) == ["qrsh", "qsub"]
    assert write_launchers(root, "lx-amd64", bin_dir) == []  # (already right)
    import subprocess
    out = subprocess.run([str(launcher_dir(root, "lx-amd64") / "qrsh"), "-inherit", "h x"],
                         capture_output=True, text=True, check=True).stdout
    assert out == f"{bin_dir}/qrsh -inherit h x\n"
    planted = launcher_dir(root, "lx-amd64") / "qsub"
    planted.unlink()
    planted.symlink_to(tmp_path / "elsewhere")
    assert write_launchers(root, "lx-amd64", bin_dir) == ["qsub"]
    assert not planted.is_symlink() and not (tmp_path / "elsewhere").exists()


def test_a_registering_host_loses_the_tasks_nobody_counts_on(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job)
    dispatched = qm.tasks(job)[0]["dispatch_time"]
    known = {"job_id": job, "task_id": 1, "seq": 1, "dispatched": dispatched}
    stale = {"job_id": 99, "task_id": 1, "seq": 3, "dispatched": 5.0}
    qm.call("register", {"host": "h2", "load": {"num_proc": "2"}, "jobs": [],
                         "pe_tasks": [known, stale, {**stale, "seq": 4}]},
            identity=b"execd:h2")
    kills = [b for b in _to_execd(qm, "h2", "signal_job") if b["action"] == "kill"]
    assert kills == [{"job_id": 99, "task_id": 1, "action": "kill", "dispatched": 5.0}]
    assert "1.h2" in qm.server.store.pe_books[f"{job}.1"].tasks


def test_a_task_its_host_never_got_is_forgotten(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job)
    register = {"host": "h2", "load": {"num_proc": "2"}, "jobs": [], "pe_tasks": []}
    qm.call("register", register, identity=b"execd:h2")
    assert "1.h2" in qm.server.store.pe_books[f"{job}.1"].tasks  # (may be on its way)
    book = qm.server.store.pe_books[f"{job}.1"]
    old = Running(1, "h2", "all.q", book.tasks["1.h2"].started - 60)
    qm.server.store.pe_books[f"{job}.1"] = PeBook(book.next_number, {"1.h2": old})
    qm.call("register", register, identity=b"execd:h2")
    assert not qm.server.store.pe_books[f"{job}.1"].tasks


def test_a_task_that_fails_takes_its_job_with_it(tmp_path: Path) -> None:
    qm = _cell(tmp_path)
    job = _running_job(qm)
    _start(qm, job)
    _start(qm, job)
    qm.call("pe_task_finished", {"host": "h2", "job_id": job, "task_id": 1, "seq": 1,
                                 "pe_task_id": "1.h2", "result": {"exit_status": 5}},
            identity=b"execd:h2")
    assert not [b for b in _to_execd(qm, "h1", "signal_job")]  # (an exit status is no failure)
    hangup = {"exit_status": 129, "signal": 1, "failed": 100, "ended_by": "hangup"}
    _start(qm, job, host="h1")
    qm.call("pe_task_finished", {"host": "h1", "job_id": job, "task_id": 1, "seq": 3,
                                 "pe_task_id": "3.h1", "result": hangup},
            identity=b"execd:h1")
    assert not [b for b in _to_execd(qm, "h1", "signal_job")]  # (its client went away)
    qm.call("pe_task_finished", {"host": "h2", "job_id": job, "task_id": 1, "seq": 2,
                                 "pe_task_id": "2.h2", "result": {
                                     "exit_status": 137, "signal": 9, "failed": 100}},
            identity=b"execd:h2")
    assert [b["action"] for b in _to_execd(qm, "h1", "signal_job")] == ["kill"]
    assert [b["action"] for b in _to_execd(qm, "h2", "signal_job")] == ["kill"]


def test_a_tasks_environment_names_it_as_8_1_9_does() -> None:
    from execd import jobdir
    spec = {"env": {"PE_HOSTFILE": "/elsewhere"}, "cwd": None, "sge_o": {}, "job_name": "petask",
            "command": " orted", "args": ["-mca", '"x"'], "binary": True, "host": "h2",
            "queue": "all.q", "job_id": 7, "task_id": None, "array": None, "slots": 4,
            "nhosts": 2, "shell": "/bin/sh", "pe": "tight", "pe_hostfile": None,
            "pe_task_id": "1.h2"}
    env = jobdir.job_environment(spec, "alice", "/home/alice", "/tmp/7.1.all.q", "/spool/7.1.1",
                                 "lx-amd64")
    assert env["JOB_NAME"] == env["REQUEST"] == "petask"
    assert env["JOB_SCRIPT"] == "QRSH" and env["QRSH_COMMAND"] == ' orted -mca "x"'
    assert env["PE"] == "tight" and env["PE_HOSTFILE"] == "/elsewhere"  # (-V's only)
    assert env["NSLOTS"] == "4" and env["PATH"].startswith("/tmp/7.1.all.q:")


# ---- 8.1.9's words and formats (tests/data/reference/pe) -----------------------------------
def _ref(name: str) -> str:
    from tests.reference import REFERENCE
    return (REFERENCE / "pe" / name).read_text()


def test_the_clients_words_are_8_1_9s(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from clients.qrsh import inherit
    monkeypatch.delenv("JOB_ID", raising=False)
    assert inherit.main(["vm", "hostname"]) == int(_ref("outside-job-inherit.rc"))
    assert capsys.readouterr().err == _ref("outside-job-inherit.err")
    assert inherit.main([]) == int(_ref("outside-job-inherit-nohost.rc"))
    assert capsys.readouterr().err == _ref("outside-job-inherit-nohost.err")
    monkeypatch.setenv("JOB_ID", "9999")
    monkeypatch.delenv("SGE_TASK_ID", raising=False)
    assert inherit.main(["vm", "hostname"]) == 1
    assert capsys.readouterr().err == _ref("outside-job-inherit-jobid-unknown.err")
    assert inherit.job_of({"JOB_ID": "9", "SGE_TASK_ID": "undefined"}) == (9, 1)
    assert inherit.job_of({"JOB_ID": "9", "SGE_TASK_ID": "4"}) == (9, 4)
    verbose = _ref("jobs/9-inherit-verbose.err").splitlines()
    assert verbose == [inherit.STARTING.format(host="vm"), inherit.STARTED.format(task="8.vm")]


def test_refusals_are_worded_as_8_1_9s() -> None:
    refused = "error: " + pe_tasks.STARTING.format(job_id=9, why=pe_tasks.REFUSED.format(
        host="vm"))
    assert refused + "\n" == _ref("jobs/9-toomany.err")
    assert "error: " + pe_tasks.STARTING.format(job_id=9, why=pe_tasks.UNREACHABLE.format(
        host="nosuchhost29")) + "\n" == _ref("jobs/9-notgranted-unknown.err")
    messages = _ref("messages.txt")
    for line in (pe_tasks.NO_FREE_SLOT.format(job_id=9, user="sgeuser", host="vm"),
                 pe_tasks.NOT_HERE.format(job_id=9999), pe_tasks.NOT_SUITED.format(job_id=12),
                 pe_tasks.TASK_FAILED.format(job_id=9, task_id=1, pe_task_id="4.vm")):
        assert f"|{line}\n" in messages, line


def test_the_pe_hostfile_is_8_1_9s() -> None:
    from common.model import Task
    from qmaster.start_spec import pe_hostfile
    task = Task(job_id=10, task_id=1, granted=[["all.q", "vm", 2]])
    assert pe_hostfile(task) == _ref("jobs/10-pe_hostfile.out")


def test_a_tasks_record_reads_as_8_1_9s() -> None:
    from common.accounting import parse_line
    lines = [r for r in map(parse_line, _ref("accounting-bench.txt").splitlines()) if r]
    tasks = [r for r in lines if r.job_number == 10 and r.pe_taskid != "NONE"]
    master = [r for r in lines if r.job_number == 10 and r.pe_taskid == "NONE"]
    assert len(master) == 1 and len(tasks) == 8
    assert {r.slots for r in tasks} == {master[0].slots} and \
        {r.job_name for r in tasks} == {"tightB"}
    # a task's qsub_time: when it was asked for (its start, or a second before)
    assert all(master[0].start_time <= r.submission_time <= r.start_time for r in tasks)
    summary = [r for r in lines if r.job_number == 13]
    assert [r.pe_taskid for r in summary] == ["NONE"]


def test_a_tasks_environment_differs_from_its_jobs_as_8_1_9s() -> None:
    def read(name: str) -> dict[str, str]:
        return dict(line.split("=", 1) for line in _ref(name).splitlines() if "=" in line)
    task, job = read("jobs/10-task-env.out"), read("jobs/10-master-env.out")
    assert "PE_HOSTFILE" in job and "PE_HOSTFILE" not in task
    assert (task["JOB_NAME"], task["REQUEST"], task["JOB_SCRIPT"]) == \
        ("petask", "petask", "QRSH")
    assert task["TMPDIR"] == job["TMPDIR"] and task["NSLOTS"] == job["NSLOTS"]


def test_the_clients_options() -> None:
    from clients.qrsh import inherit
    opts = inherit.parse(["-inherit", "-nostdin", "-V", "-v", "A=1,B", "-cwd", "-noshell",
                          "-verbose", "node2", " orted", "-mca", "ess", '"env"'])
    assert (opts.host, opts.command, opts.args) == ("node2", " orted",
                                                     ["-mca", "ess", '"env"'])
    assert not opts.stdin and opts.export_all and opts.cwd and opts.noshell and opts.verbose
    assert opts.variables["A"] == "1" and "B" in opts.variables
    with pytest.raises(inherit.UsageError):
        inherit.parse(["-inherit", "node2"])
    with pytest.raises(inherit.UsageError):
        inherit.parse(["-bogus", "node2", "true"])
