"""The web view's pure state (clients.web.state): full reads, events applied, resync,
the reasons and quotas read now and then, the caps of the snapshot and the plot's
samples."""
from __future__ import annotations

import json
from typing import Any

import pytest

from clients.web import state as web_state
from clients.web.state import MAX_SAMPLES, WebState, quota_row
from common.quota.report import QuotaRow


def job(job_id: int, owner: str = "ann", name: str = "sleeper", **opts: Any) -> dict[str, Any]:
    return {"job_id": job_id, "owner": owner, "group": "g", "submit_time": 1000.0 + job_id,
            "opts": {"job_name": name, **opts}}


def task(job_id: int, task_id: int = 1, state: str = "running", slots: int = 1,
         host: str | None = "h1", **more: Any) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "state": state, "holds": [],
            "suspend_reasons": [], "restarts": 0, "queue": "all.q" if host else None,
            "host": host, "slots": slots,
            "granted": [["all.q", host, slots]] if host and state != "pending" else [],
            "start_time": 2000.0 if host else None, "dispatch_time": None, **more}


CLUSTER = {"hosts": [{"name": "h1", "alive": True, "load": {"load_avg": "0.5",
                                                             "mem_used": "100M"}},
                     {"name": "global", "alive": True, "load": {}}],
           "instances": [{"queue": "all.q", "host": "h1", "slots": 4, "qtype": "BATCH INTERACTIVE",
                          "alive": True, "states": ""}]}


def read_state() -> WebState:
    st = WebState()
    st.reset({"jobs": [job(1), job(2, owner="bob")],
              "tasks": [task(1, slots=2)],
              "ranges": [{"job_id": 1}, {"job_id": 2, "pending": [[1, 5, 2]]}]},
             CLUSTER, "e:1")
    return st


def event(seq: int, kind: str, op: str = "put", **fields: Any) -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "op": op, **fields}


def task_event(seq: int, finished: bool, *args: Any, **fields: Any) -> dict[str, Any]:
    return event(seq, "task", job_finished=finished, **task(*args, **fields))


def test_a_full_read_gives_the_rows_qstat_and_qhost_show() -> None:
    snap = read_state().snapshot()
    assert [(r["job_id"], r["state"], r["queue"], r["slots"]) for r in snap["running"]] == \
        [(1, "r", "all.q@h1", 2)]
    assert [(r["job_id"], r["tasks"], r["state"], r["owner"]) for r in snap["pending"]] == \
        [(2, "1-5:2", "qw", "bob")]
    assert snap["queues"] == [{"name": "all.q@h1", "qtype": "BI", "used": 2, "slots": 4,
                               "load_avg": "0.5", "states": ""}]
    assert [h["name"] for h in snap["hosts"]] == ["h1"]  # ("global" is no host)
    assert snap["counts"]["slots_used"] == 2 and snap["counts"]["jobs_pending"] == 1
    json.dumps(snap)  # (what the page gets is JSON)


def test_a_job_appears_runs_and_leaves_through_events() -> None:
    st = read_state()
    st.apply(event(2, "job", job_id=3, owner="cy", name="new", submit_time=5.0))
    st.apply(event(3, "pending", job_id=3, job_finished=False, pending=[[1, 1, 1]], holds=[],
                   deleted=[]))
    assert [r["job_id"] for r in st.snapshot()["pending"]] == [2, 3]
    st.apply(event(4, "pending", job_id=3, job_finished=False, pending=[], holds=[],
                   deleted=[]))
    st.apply(task_event(5, False, 3, state="transferring"))
    st.apply(task_event(6, False, 3))
    snap = st.snapshot()
    assert [r["job_id"] for r in snap["pending"]] == [2]
    assert [(r["job_id"], r["name"], r["owner"]) for r in snap["running"]] == \
        [(1, "sleeper", "ann"), (3, "new", "cy")]
    assert snap["queues"][0]["used"] == 3
    st.apply(task_event(7, True, 3, state="finished"))
    snap = st.snapshot()
    assert [r["job_id"] for r in snap["running"]] == [1]
    assert 3 not in st.jobs and snap["counts"]["slots_used"] == 2


def test_an_enrolled_task_that_waits_is_pending_with_its_letters() -> None:
    st = read_state()
    st.apply(task_event(2, False, 2, task_id=7, state="hold", host=None, holds=["u"]))
    st.apply(task_event(3, False, 2, task_id=9, state="error", host=None))
    rows = st.snapshot()["pending"]
    assert [(r["tasks"], r["state"]) for r in rows] == [("1-5:2", "qw"), ("7", "hqw"),
                                                      ("9", "Eqw")]


def test_held_ranges_show_as_held() -> None:
    st = read_state()
    st.apply(event(2, "pending", job_id=2, job_finished=False, pending=[[1, 1, 1]],
                   holds=["u"], deleted=[]))
    assert st.snapshot()["pending"][0]["state"] == "hqw"


def test_a_deleted_job_goes_with_its_tasks_and_reasons() -> None:
    st = read_state()
    st.set_explained({"scheduling_info": {"2": ["no suitable queue"]}}, now=10.0)
    st.apply(event(2, "job", "del", job_id=2))
    st.apply(event(3, "task", "del", job_id=1, task_id=1, job_finished=False))
    snap = st.snapshot()
    assert snap["pending"] == [] and snap["running"] == [] and st.reasons == {}


def test_a_task_being_deleted_while_it_runs_stays_as_dr() -> None:
    st = read_state()
    st.apply(task_event(2, False, 1, state="deleted"))
    assert st.snapshot()["running"][0]["state"] == "dr"
    st.apply(task_event(3, False, 2, task_id=3, state="deleted", host=None))
    assert (2, 3) not in st.tasks


def test_queue_and_host_events_change_states_and_load() -> None:
    st = read_state()
    st.apply(event(2, "queue", queue_instance="all.q@h1", states="d"))
    st.apply(event(3, "host", host="h1", alive=False, load_time=9.0,
                   load={"load_avg": "1.25", "mem_total": "2G"}))
    snap = st.snapshot()
    assert snap["queues"][0]["states"] == "du" and snap["queues"][0]["load_avg"] == "1.25"
    assert snap["hosts"][0]["alive"] is False and snap["hosts"][0]["mem_total"] == "2G"
    assert not st.needs_cluster


@pytest.mark.parametrize("ev", [event(2, "queue", queue_instance="all.q@h2", states=""),
                                event(2, "host", host="h2", alive=True, load={})])
def test_an_unknown_instance_or_host_asks_for_the_cluster_again(ev: dict[str, Any]) -> None:
    st = read_state()
    st.apply(ev)
    assert st.needs_cluster
    st.reset_cluster(CLUSTER)
    assert not st.needs_cluster


def test_gone_instances_and_hosts_are_dropped() -> None:
    st = read_state()
    st.apply(event(2, "queue", "del", queue_instance="all.q@h1"))
    st.apply(event(3, "host", "del", host="h1"))
    assert st.snapshot()["queues"] == [] and st.snapshot()["hosts"] == []


def test_resync_replaces_everything_and_keeps_reasons_of_jobs_still_there() -> None:
    st = read_state()
    st.set_explained({"scheduling_info": {"2": ["why 2"]}}, now=1.0)
    st.apply(task_event(2, False, 9))  # (unknown job)
    st.reset({"jobs": [job(2)], "tasks": [], "ranges": [{"job_id": 2, "pending": [[1, 1, 1]]}]},
             CLUSTER, "e2:0")
    snap = st.snapshot()
    assert snap["running"] == [] and st.tasks == {}
    assert [(r["job_id"], r["reasons"]) for r in snap["pending"]] == [(2, ["why 2"])]
    assert st.cursor == "e2:0"


def test_unknown_kinds_change_nothing() -> None:
    st = read_state()
    version = st.version
    st.apply(event(2, "config", name="x"))
    assert st.version == version


def test_explained_jobs_get_reasons_and_the_slots_they_ask_for() -> None:
    st = read_state()
    assert st.to_explain() == [2]
    st.set_explained({"jobs": [job(2, pe="mpi", pe_ranges=[[4, 8]])],
                      "scheduling_info": {"2": ["cannot run in PE \"mpi\""]}}, now=5.0)
    row = st.snapshot()["pending"][0]
    assert row["reasons"] == ['cannot run in PE "mpi"'] and row["slots"] == 4
    assert st.snapshot()["reasons_time"] == 5.0


def test_only_the_first_pending_jobs_are_explained() -> None:
    st = WebState()
    st.reset({"jobs": [job(n) for n in range(1, 41)],
              "ranges": [{"job_id": n, "pending": [[1, 1, 1]]} for n in range(1, 41)]},
             CLUSTER)
    assert st.to_explain() == list(range(1, web_state.EXPLAINED_JOBS + 1))


def test_lists_are_capped_and_counts_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_state, "MAX_ROWS", 10)
    st = WebState()
    st.reset({"jobs": [job(n) for n in range(1, 31)],
              "tasks": [task(n) for n in range(1, 16)],
              "ranges": [{"job_id": n, "pending": [[1, 1, 1]]} for n in range(16, 31)]},
             CLUSTER)
    snap = st.snapshot()
    assert len(snap["running"]) == 10 and snap["counts"]["running"] == 15
    assert len(snap["pending"]) == 10 and snap["counts"]["pending"] == 15
    assert snap["counts"]["slots_used"] == 15 and snap["counts"]["jobs_pending"] == 15
    assert [r["job_id"] for r in snap["pending"]] == list(range(16, 26))


def test_samples_record_slots_and_pending_and_keep_six_hours() -> None:
    st = read_state()
    first = st.sample(100.0)
    assert first.to_list() == [100.0, 2, 1]
    for n in range(MAX_SAMPLES + 5):
        st.sample(110.0 + 10 * n)
    history = st.history_lists()
    assert len(history) == MAX_SAMPLES == 6 * 360
    assert history[0][0] == 110.0 + 10 * 5 and history[-1][0] == 110.0 + 10 * (MAX_SAMPLES + 4)


def test_quota_rows_read_as_qquota_shows_them() -> None:
    row = QuotaRow("maxslots/1", "slots", 3.0, "10", (("users", "ann"), ("queues", "all.q")))
    assert quota_row(row) == {"rule": "maxslots/1", "limit": "slots=3/10",
                              "filter": "users ann queues all.q"}
    st = read_state()
    st.set_quotas([quota_row(row)])
    assert st.snapshot()["quotas"] == [quota_row(row)] and st.snapshot()["counts"]["quotas"] == 1
