"""How the qmaster spools a job: its options without those at their defaults
(``common.jobspec.sparse_job_options``), which the check at a restart fills in again, so
that a job reads back exactly as it was; and the ``Struct`` check that fills them in."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings

from common.jobspec import JOB_OPTIONS, check_job_options, sparse_job_options
from common.schema import Int, ListOf, SchemaError, Str, Struct
from tests.strategies import accepted, valid
from tests.unit.test_qmaster_core import Harness


def _packed(value: Any) -> bytes:
    """Equal values of equal types pack alike (True and 1 do not, nor 1 and 1.0)."""
    return msgpack.packb(value, use_bin_type=True)


@settings(max_examples=100, deadline=None)
@given(valid(JOB_OPTIONS).filter(lambda v: accepted(JOB_OPTIONS, v)))
def test_sparse_options_check_back_to_the_same_options(drawn: dict[str, Any]) -> None:
    opts = check_job_options(drawn)
    sparse = sparse_job_options(opts)
    again = check_job_options(sparse)
    assert list(again) == list(opts)  # the same fields, in the same order
    assert _packed(again) == _packed(opts)
    assert len(sparse) <= len(opts) and "job_name" in sparse


def test_a_plain_job_spools_only_what_differs_from_the_defaults() -> None:
    opts = check_job_options({"script_path": "/bin/true", "binary": True,
                              "hard_resources": {"h_vmem": "1G"}, "hold": False})
    assert sparse_job_options(opts) == {"job_name": "true", "script_path": "/bin/true",
                                        "binary": True, "hard_resources": {"h_vmem": "1G"}}


def test_a_value_of_another_type_than_the_default_is_kept() -> None:
    struct = Struct(optional={"count": (Int(0, 9), 0), "names": (ListOf(Str()), list)})
    assert struct.sparse_copy({"count": 0, "names": []}) == {}
    assert struct.sparse_copy({"count": False, "names": ()}) == {"count": False, "names": ()}


def test_defaults_made_per_check_are_new_objects_each_time() -> None:
    struct = Struct(required={"id": Int(0, 9)},
                    optional={"names": (ListOf(Str()), list), "count": (Int(0, 9), 3)})
    first, second = struct.check({"id": 1}), struct.check({"id": 2})
    assert first == {"id": 1, "names": [], "count": 3}
    assert list(first) == ["id", "names", "count"]  # required, then declared order
    first["names"].append("x")
    assert second["names"] == [] and struct.check({"id": 3})["names"] == []
    given = struct.check({"count": 4, "names": ["a"], "id": 5})
    assert list(given) == ["id", "names", "count"] and given["count"] == 4


def test_given_fields_are_still_checked_and_unknown_ones_refused() -> None:
    struct = Struct(optional={"count": (Int(0, 9), 0)})
    with pytest.raises(SchemaError, match="count"):
        struct.check({"count": 10})
    with pytest.raises(SchemaError, match="unknown field"):
        struct.check({"other": 1})
    assert Struct(optional={"count": (Int(0, 9), 0)}, open=True).check({"other": 1}) == \
        {"count": 0}
    assert Struct(optional={"count": (Int(0, 9), 0)}, sparse=True).check({}) == {}


def _spooled_opts(root: Path, job_id: int) -> dict[str, Any]:
    [path] = list(root.rglob("spool.db"))
    db = sqlite3.connect(path)
    try:
        [(data,)] = db.execute("SELECT data FROM objects WHERE kind='job' AND key=?",
                               (str(job_id),)).fetchall()
    finally:
        db.close()
    return msgpack.unpackb(data, raw=False)["opts"]


def test_a_restart_reads_a_sparsely_spooled_job_back_as_it_was(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    job_id = qm.submit(job_name="sparse", hard_resources={"h_vmem": "1G"}, priority=-5)
    before = qm.server.store.jobs[job_id]
    spooled = _spooled_opts(tmp_path, job_id)
    assert spooled["priority"] == -5 and "hold_jid" not in spooled and "env" not in spooled
    assert len(spooled) < len(before.opts) // 3
    qm.server.spool.close()
    again = Harness(tmp_path)
    after = again.server.store.jobs[job_id]
    assert after == before and _packed(after.opts) == _packed(before.opts)
    assert again.server.store.set_aside == {}
    again.server.spool.close()


def test_a_restart_still_reads_a_job_spooled_with_every_option(tmp_path: Path) -> None:
    """Spools written before options were spooled sparsely carry them all."""
    qm = Harness(tmp_path)
    job_id = qm.submit(job_name="whole")
    before = qm.server.store.jobs[job_id]
    qm.server.spool.close()
    [path] = list(tmp_path.rglob("spool.db"))
    db = sqlite3.connect(path)
    data = msgpack.unpackb(db.execute("SELECT data FROM objects WHERE kind='job'")
                           .fetchone()[0], raw=False)
    data["opts"] = dict(before.opts)
    db.execute("UPDATE objects SET data=? WHERE kind='job'", (_packed(data),))
    db.commit()
    db.close()
    again = Harness(tmp_path)
    assert again.server.store.jobs[job_id] == before
    again.server.spool.close()


def test_of_several_faults_the_first_declared_is_named_whatever_the_key_order() -> None:
    struct = Struct(optional={"first": (Int(0, 9), 0), "second": (Int(0, 9), 0)})
    for body in ({"second": 10, "first": 10}, {"first": 10, "second": 10}):
        with pytest.raises(SchemaError, match="first"):
            struct.check(body)
    for body in ({"mail_options": "zz", "job_name": "1x"},
                 {"job_name": "1x", "mail_options": "zz"}):
        with pytest.raises(SchemaError, match="job_name"):
            check_job_options(body)
