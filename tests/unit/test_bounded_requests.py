"""Requests that name many jobs are worked through in parts (issue 12: no one request
holds the qmaster's loop for long): the qmaster stops after ``REQUEST_JOBS`` jobs and
says where to go on; the client sends the rest again until done."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, ClientError, _resumed, job_request
from qmaster import jobs
from tests.unit.test_qmaster_core import ALICE, BOB, Harness

LIMIT = 40


class HarnessClient(Client):
    """The command's client, its requests handled by a Harness (no sockets)."""

    def __init__(self, qm: Harness, user: Any = ALICE) -> None:  # noqa: D107 - no socket
        self.qm, self.user, self.requests = qm, user, 0

    def request(self, msg_type: str, body: dict[str, Any], timeout: float | None = None,
                **_: Any) -> dict[str, Any]:
        self.requests += 1
        return self.qm.call(msg_type, body)


@pytest.fixture
def qm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    monkeypatch.setattr(jobs, "REQUEST_JOBS", LIMIT)
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def submit_held(qm: Harness, count: int, user: Any = ALICE) -> list[int]:
    reply = qm.call("submit", {"user": user.to_dict(),
                               "jobs": [job_request("/bin/true", binary=True, hold=True)]
                               * count})
    return [int(j) for j in reply["job_ids"]]


def waiting(qm: Harness, owner: str) -> set[int]:
    store = qm.server.store
    return {j for j in store.owner_jobs.get(owner, ()) if not store.job_finished(j)}


def test_a_users_jobs_are_deleted_a_part_at_a_time(qm: Harness) -> None:
    mine = submit_held(qm, 100)
    theirs = submit_held(qm, 3, BOB)
    first = qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"user": "alice"}]})
    assert [r["job_id"] for r in first["results"]] == mine[:LIMIT]
    assert first["resume"] == {"target": 0, "after": mine[LIMIT - 1]}
    assert waiting(qm, "alice") == set(mine[LIMIT:])
    client = HarnessClient(qm)
    rest = client.delete([{"user": "alice"}])
    assert [r["job_id"] for r in rest] == mine[LIMIT:]
    assert client.requests == 2  # 60 jobs: a part of 40 and one of 20
    assert not waiting(qm, "alice") and waiting(qm, "bob") == set(theirs)


def test_every_part_answers_as_one_request_would(qm: Harness) -> None:
    """Job id targets count too; a target that names no job is answered in its turn; a
    pattern of users goes by job id across them."""
    mine, theirs = submit_held(qm, 30), submit_held(qm, 30, BOB)
    targets = [{"job_id": j} for j in mine[:25]] + [{"job_id": 999}, {"user": "*"}]
    client = HarnessClient(qm, user=_manager())
    results = client.delete(targets)
    assert client.requests == 2
    assert [r.get("job_id") for r in results] == mine[:25] + [None] + mine[25:] + theirs
    assert results[25]["result"] == "unknown"
    assert not waiting(qm, "alice") and not waiting(qm, "bob")


def test_holds_releases_and_alterations_go_on_where_they_stopped(qm: Harness) -> None:
    mine = submit_held(qm, 70)
    client = HarnessClient(qm)
    assert len(client.hold([{"user": "alice"}], "o")) == 70  # denied for a user: answered
    assert len(client.release([{"user": "alice"}], "u")) == 70
    assert client.requests == 4
    assert all(not qm.server.store.ranges[j].holds for j in mine)
    altered = client.alter([{"user": "alice"}], {"priority": -5})
    assert [r["result"] for r in altered] == ["modified"] * 70
    assert {qm.server.store.jobs[j].opts["priority"] for j in mine} == {-5}


def test_a_part_is_taken_after_jobs_that_ended_meanwhile(qm: Harness) -> None:
    mine = submit_held(qm, 50)
    first = qm.call("hold", {"user": ALICE.to_dict(), "targets": [{"user": "alice"}],
                             "hold_type": "u"})
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": mine[45]}]})
    again = qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                             "targets": [{"user": "alice",
                                          "after": first["resume"]["after"]}]})
    assert [r["job_id"] for r in again["results"]] == mine[LIMIT:45] + mine[46:]
    assert "resume" not in again


@pytest.mark.parametrize("resume, why", [
    ({"target": 0}, "resumes where it began"),
    ({"target": 0, "after": 3}, "resumes where it began"),
    ({"target": 5}, "malformed resume"),
    ({"target": "1"}, "malformed resume"),
    ({"target": 1, "after": "x"}, "malformed resume"),
    ([1], "malformed resume"),
])
def test_the_client_refuses_a_resume_that_goes_nowhere(resume: Any, why: str) -> None:
    with pytest.raises(ClientError, match=why):
        _resumed([{"user": "alice", "after": 3}, {"job_id": 7}], resume)


def test_the_client_goes_on_from_the_named_target() -> None:
    targets = [{"job_id": 1}, {"user": "a"}, {"name": "n*"}]
    assert _resumed(targets, {"target": 1, "after": 9}) == [{"user": "a", "after": 9},
                                                            {"name": "n*"}]
    assert _resumed(targets, {"target": 2}) == [{"name": "n*"}]
    assert targets[1] == {"user": "a"}  # the caller's targets stay as they were


def _manager() -> Any:
    from tests.unit.test_qmaster_core import ROOT
    return ROOT


def test_a_job_listing_comes_in_parts_that_add_up_to_the_whole(
        qm: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """job_query answers a part of about QUERY_RECORDS jobs and tasks at a time, by job
    id, with ``next`` while more may follow; Client.jobs puts the parts together."""
    mine, theirs = submit_held(qm, 12), submit_held(qm, 5, BOB)
    array = qm.submit(array=[1, 6, 1])
    qm.register("h1")
    qm.dispatch(array, 2)  # an enrolled task of its own
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": mine[0]}]})
    client = HarnessClient(qm)
    queries = [dict(ranges=True, brief=True), dict(ranges=True, owners=["bob"]),
               dict(include_finished=True, explain=True), dict(job_ids=[array, mine[3]])]
    whole = [client.jobs(**q) for q in queries]
    monkeypatch.setattr(jobs, "QUERY_RECORDS", 4)
    first = qm.call("job_query", {"user": ALICE.to_dict(), "ranges": True})
    # four candidates, the first of them finished (not listed without include_finished)
    assert [j["job_id"] for j in first["jobs"]] == mine[1:4] and first["next"] == mine[3]
    client.requests = 0
    assert [client.jobs(**q) for q in queries] == whole
    assert client.requests > len(queries)
    assert [j["job_id"] for j in whole[0]["jobs"]] == mine[1:] + theirs + [array]
    assert [j["job_id"] for j in whole[1]["jobs"]] == theirs
    assert len(whole[2]["jobs"]) == 18 and len(whole[2]["tasks"]) == 12 + 5 + 6
    assert array in whole[2]["scheduling_info"]  # (held jobs have none)
    assert "next" not in whole[0]


def test_a_bulk_submit_is_bounded(qm: Harness) -> None:
    """One submit request is checked, numbered and spooled in one transaction: it may
    carry at most MAX_SUBMIT_JOBS jobs (about a second of the qmaster's time)."""
    from common.wire import MAX_SUBMIT_JOBS
    job = job_request("/bin/true", binary=True, hold=True)
    with pytest.raises(RuntimeError, match=f"jobs: needs 1 to {MAX_SUBMIT_JOBS} entries, "
                                           f"has {MAX_SUBMIT_JOBS + 1}"):
        qm.call("submit", {"user": ALICE.to_dict(), "jobs": [job] * (MAX_SUBMIT_JOBS + 1)})
    assert qm.server.store.jobs == {}
    reply = qm.call("submit", {"user": ALICE.to_dict(), "jobs": [job] * MAX_SUBMIT_JOBS})
    assert len(reply["job_ids"]) == MAX_SUBMIT_JOBS
