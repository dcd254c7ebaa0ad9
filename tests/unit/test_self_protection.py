"""The daemons protect themselves (issue 7): what passed the boundary cannot make a later
step raise, and what is already in the spool cannot stop a start."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.accounting import read_records
from common.cell import Cell
from qmaster.accounting_log import accounting_record, writable
from qmaster.spool import SqliteSpool, Transaction
from tests.reference import REFERENCE
from tests.strategies import anything
from tests.unit.test_qmaster_core import ALICE, Harness


def spool_rows(root: Path, rows: dict[tuple[str, str], Any]) -> None:
    """Write objects straight into a cell's spool, as an older version or a bug might."""
    spool = SqliteSpool(Cell(root).qmaster_spool_dir)
    txn = Transaction()
    for (kind, key), data in rows.items():
        txn.put(kind, key, data)
    spool.commit(txn)
    spool.close()


def test_a_job_name_qsub_refuses_is_refused_from_any_client(tmp_path: Path) -> None:
    """Issue 7: 'a:b' came in through the client API, and writing its accounting record
    then stopped the qmaster, at every start again."""
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    with pytest.raises(RuntimeError, match=r"jobs\[0\]\.opts\.job_name: Colon \(':'\) not "
                                           "allowed in objectname"):
        qm.submit(job_name="a:b")
    assert qm.server.store.jobs == {}


@given(st.dictionaries(st.sampled_from(["qname", "hostname", "owner", "group", "job_name",
                                        "job_number", "account", "priority", "failed",
                                        "start_time", "ru_utime", "category", "slots",
                                        "maxvmem", "granted_pe", "bogus"]), anything))
def test_any_record_becomes_a_writable_line(record: dict[str, Any]) -> None:
    complaints: list[str] = []
    line = writable(record, lambda _, why: complaints.append(why)).to_line()
    assert "\n" not in line and not line.startswith("#")
    assert len(line.split(":")) >= 45


def test_an_unformattable_record_is_replaced_and_the_qmaster_goes_on(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    job = qm.submit()
    record = accounting_record(qm.server.store.jobs[job], qm.server.store.all_tasks(job)[0],
                               qm.server.store)
    spool_rows(tmp_path, {("acct", "77.1"): {**record, "owner": "x:y\nz",
                                              "job_number": 77}})
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)  # recovers the record
    [line] = [r for r in read_records(again.cell.accounting_path) if r.job_number == 77]
    assert line.owner == "x_y z"
    assert again.submit() == job + 1


def test_start_up_sets_unreadable_objects_aside_and_reports_them(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    good = qm.submit(hold=True)
    bad_opts = {**qm.server.store.jobs[good].to_dict(), "job_id": 8,
                "opts": {**qm.server.store.jobs[good].opts, "hard_queues": 5}}
    spool_rows(tmp_path, {("job", "8"): bad_opts,
                          ("task", "8.1"): {**qm.server.store.all_tasks(good)[0].to_dict(),
                                            "job_id": 8},
                          ("job", "9"): 17, ("task", "12.1"): {"job_id": "x"},
                          ("queue", "broken.q"): [["qname", 5]]})
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    store = again.server.store
    assert sorted(store.jobs) == [good] and "broken.q" not in store.conf["queue"]
    assert set(store.set_aside) == {("job", "8"), ("task", "8.1"), ("job", "9"),
                                    ("task", "12.1"), ("queue", "broken.q")}
    reply = again.call("job_query", {"user": ALICE.to_dict(), "set_aside": True,
                                     "job_ids": [8, 9]})
    assert set(reply["set_aside"]) == {8, 9} and "hard_queues" in reply["set_aside"][8]
    assert again.submit() > good  # the cell works
    third = Harness(tmp_path, auto_add_hosts=True, default_slots=2)  # and starts again
    assert third.server.store.set_aside == {} and set(third.server.store.aside_jobs) == {8, 9}


def test_the_client_api_checks_jobs_with_the_shared_description() -> None:
    from clients.api import ClientError, checked_jobs, job_request
    with pytest.raises(ClientError, match=r"^Colon \(':'\) not allowed in objectname$"):
        checked_jobs([job_request("/bin/true", binary=True, job_name="a:b")])
    with pytest.raises(ClientError, match=r"^job rejected: jobs\[1\]\.opts\.hard_queues: "):
        checked_jobs([job_request("/bin/true"), job_request("/bin/true", hard_queues=5)])
    [job] = checked_jobs([job_request("/bin/true", binary=True)])
    assert job["opts"]["job_name"] == "true" and job["opts"]["priority"] == 0


def test_a_zero_pe_range_is_refused_in_grid_engine_words(tmp_path: Path) -> None:
    from clients.api import ClientError, checked_jobs, job_request
    captured = (REFERENCE / "submit" / "qsub-pe-smp-0.err").read_text()
    with pytest.raises(ClientError) as err:
        checked_jobs([job_request("/bin/true", binary=True, pe=["smp", 0, 0],
                                  pe_ranges=[[0, 0]])])
    assert captured == f"Unable to run job: {err.value.message}\nExiting.\n"
