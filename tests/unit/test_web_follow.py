"""The web view's follower (clients.web.follow) against a scripted client: the cursor is
taken before the state is read, events are applied, a gap reads the state again; the
periodic reads fill the quotas, the plot and the reasons, and a click's reasons are
read at most once per ASKED_SECONDS."""
from __future__ import annotations

import threading
from typing import Any

import pytest
import structlog

from clients.api import ClientError
from clients.web.follow import Follower
from clients.web.state import WebState
from common.cell import Cell
from common.quota.report import QuotaRow

CLUSTER = {"hosts": [{"name": "h1", "alive": True, "load": {}}],
           "instances": [{"queue": "all.q", "host": "h1", "slots": 2, "qtype": "BATCH",
                          "alive": True, "states": ""}]}


def listing(*job_ids: int) -> dict[str, Any]:
    return {"jobs": [{"job_id": j, "owner": "ann", "opts": {"job_name": f"j{j}"}}
                     for j in job_ids],
            "ranges": [{"job_id": j, "pending": [[1, 1, 1]]} for j in job_ids]}


class ScriptedClient:
    def __init__(self, answers: list[dict[str, Any]], listings: list[dict[str, Any]]) -> None:
        self.answers, self.listings = answers, listings
        self.polls: list[tuple[Any, Any]] = []
        self.calls: list[str] = []
        self.user = type("U", (), {"name": "ann"})()

    def events(self, *, epoch: Any = None, after: Any = None, **_: Any) -> dict[str, Any]:
        self.calls.append("events")
        self.polls.append((epoch, after))
        if not self.answers:
            raise ClientError("refused", "end of the script")
        return {"version": 1, **self.answers.pop(0)}

    def jobs(self, job_ids: list[int] | None = None, **opts: Any) -> dict[str, Any]:
        self.calls.append("jobs")
        if opts.get("explain"):
            return {"jobs": [], "scheduling_info": {str(j): [f"why {j}"] for j in job_ids or []}}
        return self.listings.pop(0)

    def cluster(self) -> dict[str, Any]:
        self.calls.append("cluster")
        return CLUSTER


def follower(client: ScriptedClient | None = None) -> tuple[Follower, list[int]]:
    notified: list[int] = []
    f = Follower(Cell("/nonexistent"), WebState(), threading.Lock(),
                 lambda: notified.append(1), log=structlog.get_logger())
    f._client = client  # type: ignore[assignment]
    return f, notified


def test_the_cursor_comes_first_then_the_state_then_the_events_and_a_gap_reads_again() -> None:
    client = ScriptedClient(
        answers=[{"epoch": "e1", "seq": 5, "gap": False, "events": []},
                 {"epoch": "e1", "seq": 7, "gap": False, "events": [
                     {"seq": 6, "kind": "job", "op": "put", "job_id": 2, "owner": "bob",
                      "name": "new"},
                     {"seq": 7, "kind": "pending", "op": "put", "job_id": 2,
                      "job_finished": False, "pending": [[1, 1, 1]], "holds": []}]},
                 {"epoch": "e2", "seq": 0, "gap": True, "events": []}],
        listings=[listing(1), listing(3)])
    f, notified = follower()
    with pytest.raises(ClientError):
        f._follow_with(client)  # type: ignore[arg-type]
    assert client.calls[:3] == ["events", "jobs", "cluster"]
    assert client.polls == [(None, None), ("e1", 5), ("e1", 7), ("e2", 0)]
    assert f.ready.is_set() and len(notified) >= 4
    # the gap's second read replaced everything the events had built on the first
    assert sorted(f.state.jobs) == [3] and f.state.cursor == "e2:0"


def test_events_between_reads_are_applied() -> None:
    client = ScriptedClient(
        answers=[{"epoch": "e1", "seq": 5, "gap": False, "events": []},
                 {"epoch": "e1", "seq": 6, "gap": False, "events": [
                     {"seq": 6, "kind": "job", "op": "del", "job_id": 1}]}],
        listings=[listing(1, 4)])
    f, _ = follower()
    with pytest.raises(ClientError):
        f._follow_with(client)  # type: ignore[arg-type]
    assert sorted(f.state.jobs) == [4] and f.state.cursor == "e1:6"


def test_samples_and_quotas_are_read_as_qquota_reads_them(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import clients.qquota
    seen: list[dict[str, Any]] = []

    def usage_rows(client: Any, lists: dict[str, Any]) -> list[QuotaRow]:
        seen.append(lists)
        return [QuotaRow("max/1", "slots", 2.0, "4", (("users", "ann"),))]
    monkeypatch.setattr(clients.qquota, "usage_rows", usage_rows)
    client = ScriptedClient([], [])
    f, _ = follower(client)
    f.state.reset(listing(1), CLUSTER)
    f._sample_and_quotas()
    assert seen == [{}]  # qquota without options: the caller's own rules in use
    assert f.state.quotas == [{"rule": "max/1", "limit": "slots=2/4", "filter": "users ann"}]
    assert [s[1:] for s in f.state.history_lists()] == [[0, 1]]


def test_reasons_are_read_for_pending_jobs_and_a_click_is_not_repeated_at_once() -> None:
    client = ScriptedClient([], [])
    f, _ = follower(client)
    f.state.reset(listing(1, 2), CLUSTER)
    f._explain(f.state.to_explain())
    assert f.state.reasons == {1: ["why 1"], 2: ["why 2"]}
    client.calls.clear()
    assert f.explain(2) == ["why 2"] and client.calls == ["jobs"]
    assert f.explain(2) == ["why 2"] and client.calls == ["jobs"]  # (kept ASKED_SECONDS)
    assert f.explain(9) is None and client.calls == ["jobs"]        # (not pending: not read)
