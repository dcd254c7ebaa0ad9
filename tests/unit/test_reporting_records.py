"""The reporting file's host, consumable, queue, advance reservation and sharelog records
and the job_log steps of a reschedule, word for word against 8.1.9's
(tests/data/reference/reporting/host_queue_ar_sharelog: report_variables
load_avg,mem_free,slots,mlic,lic on vm and cpu,np_load_avg,lic on global; job 303
requests lic=1,mlic=1 and is rescheduled with qmod -rj, 356 with qmod -rq; ARs 6, 7
(qrdel'd) and 20 (starts and ends)), and the writer that makes them from the qmaster's
published changes (common.reporting, qmaster.reporting)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from common import reporting
from common.model import ExecHost, Job

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "reporting"
LINES = [line for line in (REF / "host_queue_ar_sharelog.out").read_text().splitlines()
         if not line.startswith("#")]
VM_VARIABLES = ["load_avg", "mem_free", "slots", "mlic", "lic"]
GLOBAL_VARIABLES = ["cpu", "np_load_avg", "lic"]


def captured(kind: str, *fields: str) -> list[str]:
    """The captured lines of a record type whose fields from the third on start so."""
    out = []
    for line in LINES:
        parts = line.split(":")
        if parts[1] == kind and parts[2:2 + len(fields)] == list(fields):
            out.append(line)
    return out


def stamp(line: str) -> int:
    return int(line.split(":")[0])


# ---- host ------------------------------------------------------------------------------
def test_host_record_has_the_listed_load_values_in_their_order() -> None:
    want = captured("host", "vm")[0]
    load = {"mem_free": "23458.015625M", "cpu": "3.1", "load_avg": "2.596191",
            "arch": "lx-amd64"}
    assert reporting.host_line(stamp(want), "vm", stamp(want), load, VM_VARIABLES) == want


def test_no_host_record_without_a_listed_value() -> None:
    """global's variables name no load value of its own: 8.1.9 writes no global record."""
    assert not captured("host", "global")
    assert reporting.host_line(1, "global", 1, {}, GLOBAL_VARIABLES) is None
    assert reporting.host_line(1, "vm", 1, {"cpu": "1"}, []) is None


def test_a_hosts_own_variables_replace_the_global_ones() -> None:
    assert reporting.merged_report_variables(VM_VARIABLES, GLOBAL_VARIABLES) == VM_VARIABLES
    assert reporting.merged_report_variables([], GLOBAL_VARIABLES) == GLOBAL_VARIABLES


# ---- consumables ---------------------------------------------------------------------
def _consumable_lines(now: int, used: dict[str, float], requested: set[str],
                      states: str = "") -> list[str]:
    """The records of job 303's start or end on vm (global: lic of 10; vm: mlic of 4;
    all.q@vm: 4 slots), as qmaster.reporting makes them."""
    out = []
    for host, level, variables in (
            ("global", [reporting.Consumable("lic", used["lic"], "10.000000")],
             GLOBAL_VARIABLES),
            ("vm", [reporting.Consumable("mlic", used["mlic"], "4.000000")], VM_VARIABLES)):
        text = reporting.consumables_text(
            level, reporting.job_requests_logged(requested, variables, False))
        line = reporting.host_consumable_line(now, host, text)
        if line:
            out.append(line)
    text = reporting.consumables_text(
        [reporting.Consumable("slots", used["slots"], "4.000000")],
        reporting.job_requests_logged(requested, VM_VARIABLES, False))
    out.append(reporting.queue_consumable_line(now, "all.q", "vm", states, text) or "")
    return out


def test_consumables_of_a_job_that_requests_them() -> None:
    start = [line for line in LINES if stamp(line) == 1795856246 and "consumable" in line]
    assert _consumable_lines(1795856246, {"lic": 1, "mlic": 1, "slots": 1},
                             {"lic", "mlic"}) == start
    end = [line for line in LINES if stamp(line) == 1795856323 and "consumable" in line]
    assert _consumable_lines(1795856323, {"lic": 0, "mlic": 0, "slots": 0},
                             {"lic", "mlic"}) == end


def test_a_job_without_requests_shows_its_slots_only() -> None:
    """Job 304 (no -l): no host_consumable record, the queue's slots."""
    want = [line for line in LINES if stamp(line) == 1795856250 and "consumable" in line]
    assert _consumable_lines(1795856250, {"lic": 1, "mlic": 1, "slots": 2}, set()) == want


def test_queue_consumable_carries_the_queue_state() -> None:
    [want] = captured("queue_consumable", "all.q", "vm", "1795856347", "d")
    assert _consumable_lines(1795856347, {"lic": 0, "mlic": 0, "slots": 0}, set(),
                             "d") == [want]


def test_consumables_comma_quirk_and_log_consumables() -> None:
    level = [reporting.Consumable("a", 1, "2.000000"), reporting.Consumable("b", 0, "1G")]
    assert reporting.consumables_text(level, lambda name: name == "a") == "a=1.000000=2.000000,"
    every = reporting.job_requests_logged(set(), [], True)
    assert reporting.consumables_text(level, every) == "a=1.000000=2.000000,b=0.000000=1G"


# ---- queue -----------------------------------------------------------------------------
def test_queue_state_records() -> None:
    want = [line for line in LINES if line.split(":")[1] == "queue"][:4]
    got = [reporting.queue_line(stamp(line), "all.q", "vm", states)
           for line, states in zip(want, ("d", "", "s", ""))]
    assert got == want


# ---- advance reservations -------------------------------------------------------------
AR_KINDS = ("new_ar", "ar_attr", "ar_log", "ar_acct")
AR6 = {"ar_id": 6, "name": "ar1", "owner": "root", "account": "acct1",
       "submission_time": 1795856338.4, "start": 1795856350.0, "end": 1795856365.0,
       "hard_resources": {"mlic": "1"}, "granted_pe": None,
       "granted": [["all.q", "vm", 1]], "state": "w"}
AR7 = {**AR6, "ar_id": 7, "name": "ar2", "account": "sge", "start": 1795859938.0,
       "end": 1795859998.0, "hard_resources": {}, "granted_pe": "smp",
       "granted": [["all.q", "vm", 2]]}
AR20 = {**AR6, "ar_id": 20, "name": "ar3", "account": "sge", "submission_time": 1795856386,
        "start": 1795856394.0, "end": 1795856406.0, "granted_pe": "smp",
        "granted": [["all.q", "vm", 2]]}


def test_new_ar_and_its_attributes() -> None:
    assert reporting.new_ar_lines(1795856338, AR6) + reporting.new_ar_lines(
        1795856338, AR7) == [line for line in LINES if stamp(line) == 1795856338
                             and line.split(":")[1] in ("new_ar", "ar_attr")]


def test_ar_deleted_start_and_end() -> None:
    assert reporting.ar_end_lines(1795856341, AR7, "d") == [
        line for line in LINES if stamp(line) == 1795856341]
    assert [reporting.ar_log_line(1795856394, AR20, "r", "start")] == captured(
        "ar_log", "1795856394")
    assert reporting.ar_end_lines(1795856406, AR20, "x") == [
        line for line in LINES if stamp(line) == 1795856406 and line.split(":")[1] in
        ("ar_log", "ar_acct")]


# ---- share tree ------------------------------------------------------------------------
def test_sharelog_lines() -> None:
    want = [line for line in LINES if stamp(line) == 1795856219]
    rows = [{"curr_time": 1795856219, "usage_time": 0, "node_name": "/", "user_name": "",
             "project_name": "", "shares": 1, "job_count": 0, "level%": 1.0, "total%": 1.0,
             "long_target_share": 1.0, "short_target_share": 0.0, "actual_share": 1.0,
             "usage": 4.021162},
            {"curr_time": 1795856219, "usage_time": 1795856218, "node_name": "/sgeuser",
             "user_name": "sgeuser", "project_name": "", "shares": 80, "job_count": 0,
             "level%": 0.8, "total%": 0.8, "long_target_share": 0.0,
             "short_target_share": 0.0, "actual_share": 1.0, "usage": 4.021162,
             "cpu": 4.021162, "mem": 0.000137, "io": 0.001805, "ltcpu": 50.371972,
             "ltmem": 0.050732, "ltio": 0.045897},
            {"curr_time": 1795856219, "usage_time": 1795855826, "node_name": "/sgeuser2",
             "user_name": "sgeuser2", "project_name": "", "shares": 20, "job_count": 0,
             "level%": 0.2, "total%": 0.2, "long_target_share": 0.0,
             "short_target_share": 0.0, "actual_share": 0.0, "usage": 0.0,
             "ltcpu": 8.046967, "ltmem": 0.005913, "ltio": 0.006551}]
    assert reporting.sharelog_lines(1795856219, rows) == want


# ---- job_log: a reschedule -------------------------------------------------------------
def _cut(line: str) -> list[str]:
    """job_log fields from the event on, without the submission time (qmod -rj sets
    8.1.9's anew, ours stays: docs) and the consumable records' times."""
    fields = line.split(":")
    if fields[1] == "job_log":
        return fields[3:12] + fields[13:]
    return fields[1:3]


def test_job_log_of_qmod_rj_and_its_consumables() -> None:
    """Job 303: sent (its consumables taken), delivered, qmod -rj (restart by the
    execution daemon and the master, its consumables freed), sent again, ended."""
    job = reporting.job_facts(303, {}, name="cons", owner="sgeuser", group="sgeuser",
                              submit_time=1795856242, is_array=False)
    log = reporting.JobLogState()
    granted = [["all.q", "vm", 1]]

    takes: list[bool] = []

    def consumables(facts: reporting.JobFacts, grant: list[list[Any]], taking: bool
                    ) -> list[str]:
        assert grant == granted
        takes.append(taking)
        return ["0:host_consumable:global", "0:host_consumable:vm", "0:queue_consumable:all.q"]
    got = []
    for state in ({"state": "transferring", "host": "vm", "granted": granted},
                  {"state": "running", "host": "vm", "granted": granted},
                  {"state": "pending"},  # (the requeued task forgets its host and grant)
                  {"state": "transferring", "host": "vm", "granted": granted},
                  {"state": "running", "host": "vm", "granted": granted},
                  {"state": "finished", "host": "vm", "granted": granted}):
        got += log.steps(0, job, {"task_id": 1, **state}, "vm", consumables=consumables)
    want = [line for line in LINES if line.split(":")[1] in
            ("job_log", "host_consumable", "queue_consumable") and
            (":303:" in line or 1795856246 <= stamp(line) <= 1795856246 or
             stamp(line) in (1795856256, 1795856302, 1795856323)) and
            ":304:" not in line and line.split(":")[3] != "pending"]
    assert [_cut(line) for line in got] == [_cut(line) for line in want]
    assert takes == [True, False, True, False]
    # (joblog=false: the consumable records alone)
    quiet = reporting.JobLogState().steps(0, job, {"task_id": 1, "state": "transferring",
                                                   "granted": granted}, "vm", joblog=False,
                                          consumables=consumables)
    assert [line.split(":")[1] for line in quiet] == ["host_consumable", "host_consumable",
                                                      "queue_consumable"]


def test_job_log_of_qmod_rq() -> None:
    job = reporting.job_facts(356, {}, name="rq", owner="sgeuser", group="sgeuser",
                              submit_time=1795856338, is_array=False)
    log = reporting.JobLogState()
    got = []
    for state in ({"state": "transferring", "host": "vm"}, {"state": "running", "host": "vm"},
                  {"state": "pending"}):
        got += log.steps(0, job, {"task_id": 1, **state}, "vm")
    want = [line for line in LINES if ":356:" in line and line.split(":")[1] == "job_log"
            and line.split(":")[3] in ("sent", "delivered", "restart")][:4]
    assert [_cut(line) for line in got] == [_cut(line) for line in want]


# ---- qmaster.reporting: the writer -------------------------------------------------------
class FakeStore:
    """What the writer reads of the qmaster's store."""

    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self.ars: dict[int, dict[str, Any]] = {}
        self.hosts: dict[str, ExecHost] = {}
        self.conf: dict[str, dict[str, Any]] = {
            "exechost": {"global": [["report_variables", "cpu,np_load_avg,lic"]],
                         "vm": [["report_variables", "load_avg,mem_free,slots,mlic,lic"]]},
            "queue": {}, "hgrp": {}}
        self.qi_states: dict[str, dict[str, str]] = {}
        self.used_slots: dict[tuple[str, str], int] = {}


def _writer(tmp_path: Path) -> Any:
    from qmaster.reporting import ReportingWriter
    writer = ReportingWriter(tmp_path / "reporting", "vm", lambda event, **kw: None)
    writer.configure("reporting=true flush_time=00:00:00")
    return writer


def _written(writer: Any, tmp_path: Path) -> list[str]:
    writer.flush_due(0.0, force=True)
    path = tmp_path / "reporting"
    return path.read_text().splitlines()[4:] if path.exists() else []


def test_writer_host_records_at_each_load_report(tmp_path: Path) -> None:
    writer, store = _writer(tmp_path), FakeStore()
    host = ExecHost(name="vm", load={"load_avg": "2.596191", "mem_free": "23458.015625M"},
                    load_time=1795856229.5, alive=True)
    store.hosts["vm"] = host
    event = {"kind": "host", "op": "put", "key": "vm", "obj": host.to_dict()}
    writer.note_batch(1795856229.7, [event], [], store)
    writer.note_batch(1795856230.0, [event], [], store)  # (the same report again: nothing)
    assert _written(writer, tmp_path) == [captured("host", "vm")[0]]


def test_writer_queue_records(tmp_path: Path) -> None:
    writer, store = _writer(tmp_path), FakeStore()
    store.hosts["vm"] = ExecHost(name="vm", alive=True)
    store.qi_states["all.q@vm"] = {"states": "d"}
    writer.note_batch(1795856233, [{"kind": "qstate", "op": "put", "key": "all.q@vm"}], [],
                      store)
    del store.qi_states["all.q@vm"]
    writer.note_batch(1795856235, [{"kind": "qstate", "op": "del", "key": "all.q@vm"}], [],
                      store)
    assert _written(writer, tmp_path) == [
        line for line in LINES if line.split(":")[1] == "queue"][:2]


def test_writer_ar_life(tmp_path: Path) -> None:
    """Granted, started, ended with no job (its end and its going in one batch: logged
    once, as an end); one deleted with qrdel is logged when it goes."""
    writer, store = _writer(tmp_path), FakeStore()
    store.ars[20] = dict(AR20)
    writer.note_batch(1795856386, [{"kind": "ar", "op": "put", "key": "20"}], [], store)
    store.ars[20] = {**AR20, "state": "r"}
    writer.note_batch(1795856394, [{"kind": "ar", "op": "put", "key": "20"}], [], store)
    del store.ars[20]
    writer.note_batch(1795856406, [
        {"kind": "ar_deleted", "op": "del", "key": "20", "obj": {"ar_id": 20, "state": "x"}},
        {"kind": "ar_deleted", "op": "del", "key": "20", "obj": {"ar_id": 20}}], [], store)
    assert _written(writer, tmp_path) == [
        line for line in LINES if line.split(":")[1] in AR_KINDS and line.split(":")[3:5]
        in (["20", "root"], ["1795856386", "20"])]
    store.ars[7] = dict(AR7)
    writer.note_batch(1795856338, [{"kind": "ar", "op": "put", "key": "7"}], [], store)
    store.ars[7] = {**AR7, "state": "d"}  # (qrdel while a job of it runs: not yet)
    writer.note_batch(1795856340, [{"kind": "ar_deleted", "op": "del", "key": "7",
                                    "obj": {"ar_id": 7, "state": "d"}}], [], store)
    del store.ars[7]
    writer.note_batch(1795856341, [{"kind": "ar_deleted", "op": "del", "key": "7",
                                    "obj": {"ar_id": 7}}], [], store)
    assert _written(writer, tmp_path)[-4:] == [
        line for line in LINES if line.split(":")[1] in AR_KINDS and line.split(":")[3:5]
        in (["7", "root"], ["1795856338", "7"])]


def test_writer_ars_made_while_off_are_no_new_ars(tmp_path: Path) -> None:
    writer, store = _writer(tmp_path), FakeStore()
    writer.configure("reporting=false")
    store.ars[20] = dict(AR20)
    writer.note_batch(1795856386, [{"kind": "ar", "op": "put", "key": "20"}], [], store)
    writer.configure("reporting=true flush_time=00:00:00")
    store.ars[20] = {**AR20, "state": "r"}
    writer.note_batch(1795856394, [{"kind": "ar", "op": "put", "key": "20"}], [], store)
    assert _written(writer, tmp_path) == captured("ar_log", "1795856394")


def test_writer_sharelog_every_interval(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    assert not writer.sharelog_due(100.0)  # (sharelog 0: never)
    writer.configure("reporting=true flush_time=00:00:00 sharelog=00:00:05")
    assert writer.sharelog_due(100.0)
    writer.note_sharelog(100.0, [{"node_name": "/"}])
    assert not writer.sharelog_due(104.0) and writer.sharelog_due(105.0)
    assert _written(writer, tmp_path) == [
        "100:sharelog:0:0:/:::0:0:" + "0.000000:" * 12]



def test_writer_ar_resources_unsatisfied_and_satisfied(tmp_path: Path) -> None:
    """Captured at 1795856347: another session disabled all.q@vm while AR 6 waited
    (W, RESOURCES UNSATISFIED), enabled it (w, SATISFIED), disabled it again; ARs 8
    (waiting) and 9 (starting at once) granted meanwhile."""
    writer, store = _writer(tmp_path), FakeStore()
    store.hosts["vm"] = ExecHost(name="vm", alive=True)
    store.ars[6] = dict(AR6)
    writer.seed([], store.ars)
    for states in ("d", "", "d"):
        if states:
            store.qi_states["all.q@vm"] = {"states": states}
        else:
            del store.qi_states["all.q@vm"]
        writer.note_batch(1795856347, [{"kind": "qstate", "op": "put", "key": "all.q@vm"}],
                          [], store)
    ar8 = {**AR6, "ar_id": 8, "name": "", "account": "sge", "submission_time": 1795856347,
           "start": 1798761540.0, "end": 1798761540.0, "hard_resources": {}}
    ar9 = {**ar8, "ar_id": 9, "account": "acct", "start": 1795856347.0, "state": "r"}
    for ar in (ar8, ar9):
        store.ars[ar["ar_id"]] = ar
        writer.note_batch(1795856347, [{"kind": "ar", "op": "put", "key": str(ar["ar_id"])}],
                          [], store)
    at = [line for line in LINES if stamp(line) == 1795856347]
    queues = [line for line in at if line.split(":")[1] == "queue"][:3]
    ar6 = [line for line in at if line.split(":")[1] == "ar_log" and
           line.split(":")[4] == "6"][:3]
    ars = [line for line in at if line.split(":")[1] in AR_KINDS[:3] and "DELETED" not in line
           and line.split(":")[3 if line.split(":")[1] == "new_ar" else 4] in ("8", "9")]
    want = [queues[0], ar6[0], queues[1], ar6[1], queues[2], ar6[2], *ars]
    assert _written(writer, tmp_path) == want


# ---- report_variables ------------------------------------------------------------------
def test_report_variables_must_name_complex_attributes(tmp_path: Path) -> None:
    """8.1.9: each name must be a complex attribute's name or shortcut, else
    ``unknown resource "x"``."""
    import pytest

    from qmaster.defaults import exechost_defaults
    from tests.unit.test_qmaster_core import ROOT, Harness
    qm = Harness(tmp_path)

    def put(value: str) -> None:
        pairs = [[k, value if k == "report_variables" else v]
                 for k, v in exechost_defaults("global")]
        qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "exechost", "name": "global",
                             "data": pairs, "mode": "modify"})
    put("cpu,np_load_avg")
    with pytest.raises(RuntimeError, match='unknown resource "nosuch"'):
        put("cpu,nosuch")
    put("nla")  # (a shortcut: taken, as 8.1.9 takes it)
    put("NONE")


def test_writer_forgets_what_went_while_reporting_is_off(tmp_path: Path) -> None:
    """The writer's sets stay bounded by what the qmaster holds, reporting on or off."""
    writer, store = _writer(tmp_path), FakeStore()
    writer.configure("reporting=false")
    for job_id in range(1, 101):
        writer.note_batch(1.0, [{"kind": "job", "op": "put", "key": str(job_id)},
                                {"kind": "job", "op": "del", "key": str(job_id)}], [], store)
    assert not writer._known


def test_an_immediate_job_no_pass_could_start() -> None:
    """qsub -now y refused: 8.1.9's one step (sge_give_jobs, COMMIT_ST_NO_RESOURCES)."""
    from common.jobstate import NOT_SCHEDULED
    job = reporting.job_facts(5, {}, name="now", owner="u", group="g", submit_time=1,
                              is_array=False)
    [line] = reporting.pending_deleted(2, job, 1, NOT_SCHEDULED, "vm")
    assert line.split(":")[3:10] == ["deleted", "5", "0", "NONE", "", "scheduler", "vm"]
    assert line.endswith(":immediate job deleted by scheduler")


def test_the_consumable_book_kept_step_by_step_agrees_with_the_store(tmp_path: Path) -> None:
    """Through a qmaster core: the records' figures, kept from the tasks' steps after the
    first full count, are the store's own after every batch (slots of the queue
    instance, a global consumable of 4 each job takes 1 of)."""
    from tests.unit.test_qmaster_core import ROOT, Harness
    from qmaster.defaults import exechost_defaults
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    qm.register("h1")
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "complex", "name": "lic",
                         "data": [["lic", "lic", "INT", "<=", "YES", "YES", "1", "0"]],
                         "mode": "add"})
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "exechost", "name": "global",
                         "data": [[k, {"complex_values": "lic=4",
                                       "report_variables": "slots,lic"}.get(k, v)]
                                  for k, v in exechost_defaults("global")],
                         "mode": "modify"})
    conf = dict(qm.server.store.conf["conf"]["global"])
    conf["reporting_params"] = "reporting=true flush_time=00:00:00"
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                         "data": [[k, v] for k, v in conf.items()], "mode": "modify"})
    qm.cell.common_dir.mkdir(parents=True, exist_ok=True)
    path = qm.cell.common_dir / reporting.FILE_NAME

    def last(kind: str) -> str:
        qm.server.reporting.flush_due(0.0, force=True)
        return [line for line in path.read_text().splitlines()
                if line.split(":")[1:2] == [kind]][-1].split(":")[-1]
    jobs = [qm.submit(hard_resources={"lic": "1"}) for _ in range(3)]
    for count, job_id in enumerate(jobs, 1):
        qm.dispatch(job_id)
        assert qm.server.reporting._book.current(qm.server.store)  # (kept, not redone)
        assert last("queue_consumable") == f"slots={count:f}=4.000000"
        assert last("host_consumable") == f"lic={count:f}=4.000000"
    for count, job_id in zip((2, 1), jobs):
        qm.call("job_finished", {"host": "h1", "job_id": job_id, "task_id": 1,
                                 "result": {"exit_status": 0}}, identity=b"execd:h1")
        assert last("queue_consumable") == f"slots={count:f}=4.000000"
        assert last("host_consumable") == f"lic={count:f}=4.000000"
        assert qm.server.store.used_slots[("all.q", "h1")] == count


def test_job_log_of_a_task_rescheduled_by_a_queue_error() -> None:
    """A failed prolog puts the queue instance in error and the task back (its reason
    kept): 8.1.9's execution daemon says the job never ran (job_exit.c's case)."""
    job = reporting.job_facts(7, {}, name="p", owner="u", group="g", submit_time=1,
                              is_array=False)
    log = reporting.JobLogState()
    got = []
    for state in ({"state": "transferring", "host": "vm"}, {"state": "running"},
                  {"state": "pending", "error_reason": "prolog failed"}):
        got += log.steps(0, job, {"task_id": 1, **state}, "qm")
    assert [line.split(":")[3] + ":" + line.split(":")[-1] for line in got[-2:]] == [
        "restart:job never ran -> schedule it again", "restart:rescheduling job 7.1"]
    assert got[-2].split(":")[8:10] == ["execution daemon", "vm"]


def test_steps_taken_while_reporting_was_off_are_not_told_again(tmp_path: Path) -> None:
    """A task sent while reporting was off and started after it was turned on: its
    start alone (no second "sent", no second taking of its slots)."""
    writer, store = _writer(tmp_path), FakeStore()
    store.jobs[7] = Job(job_id=7, owner="u", uid=1000, group="g", gid=1000, submit_time=5.0,
                        opts={"job_name": "j", "array": None}, sge_o={}, script=None,
                        umask=0o22)
    writer.configure("reporting=false")
    sent = {"job_id": 7, "task_id": 1, "state": "transferring", "host": "vm",
            "granted": [["all.q", "vm", 1]]}
    writer.note_batch(1.0, [{"kind": "job", "op": "put", "key": "7"},
                            {"kind": "task", "op": "put", "key": "7.1", "obj": sent}], [],
                      store)
    writer.configure("reporting=true joblog=true flush_time=00:00:00")
    writer.note_batch(2.0, [{"kind": "task", "op": "put", "key": "7.1",
                             "obj": {**sent, "state": "running"}}], [], store)
    assert [line.split(":")[3] for line in _written(writer, tmp_path)] == ["delivered"]
