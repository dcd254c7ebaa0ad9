"""Issue 26 on a live cell: a hostile user sends the worst request of each kind the issue
found (a hold naming 400 repeated task ranges of another user's 75,000-task array, 8 MB
frames of empty lists, 2000 waits on one job, qhold -t 2-75000 of its own large array, a
5 MiB script, one job past max_u_jobs), and the cell keeps answering another client's
job listing after each, loses nothing (the jobs submitted before are all there, as they
were) and grants nothing (the hold is refused, the caps hold). No time is asserted: the
figures are the benchmark's (tests/bench/bench_attack.py).

As root the attacker and the victim are two other users (tests/identity.py); otherwise
both are ourselves (a manager of the cell: the hold is then granted, and what "grants
nothing" checks of it is skipped).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from clients.api import Client
from qmaster.context import MAX_USER_WAITS
from tests.hostile import BIG_ARRAY, Attacker
from tests.identity import client_as, other_users
from tests.integration.cellutil import client, pid_of, running_cell, true_job


def listing(cl: Client) -> dict[int, tuple[str, Any]]:
    """job id -> (owner, its tasks' states and holds as qstat's listing reads them)."""
    reply = cl.jobs(ranges=True, brief=True)
    out: dict[int, tuple[str, Any]] = {j["job_id"]: (j["owner"], []) for j in reply["jobs"]}
    for task in reply["tasks"]:
        out[task["job_id"]][1].append(("task", task["task_id"], task["state"],
                                       sorted(task.get("holds") or [])))
    for rng in reply.get("ranges") or []:
        out[rng["job_id"]][1].append(("ranges", rng.get("pending"), sorted(rng.get("holds") or [])))
    return {job_id: (owner, sorted(map(str, tasks))) for job_id, (owner, tasks) in out.items()}


def set_global(cl: Client, **values: str) -> None:
    pairs = cl.conf_get("conf")["global"]
    cl.conf_put("conf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def test_a_hostile_user_neither_stalls_nor_robs_the_cell(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        cell = local.cell
        observer = client(local)  # another client: its listing must keep answering
        if os.geteuid() == 0:
            stranger, owner = other_users(2)
            victim = client_as(cell, owner, timeout=30)
        else:
            stranger, owner, victim = None, None, client(local, timeout=30)
        theirs = victim.submit([true_job(hold=True)] * 3
                               + [true_job(hold=True, array=[1, BIG_ARRAY, 1])])
        big = theirs[-1]
        before = listing(observer)
        mine_before = 0 if stranger else len(before)  # (non-root: the victim's are ours)
        set_global(observer, max_u_jobs=str(mine_before + 2))
        qmaster = pid_of(local, "qmaster")
        attacker = Attacker(cell, stranger)
        answered = 0
        try:
            # another user's array, 400 repeated ranges: refused, before any task work
            held = attacker.hold_repeated(big)
            answered += bool(observer.jobs(brief=True))
            # 8 MB frames of empty lists: refused on their size; a submit of them, at
            # the values cap
            assert attacker.large_frames(5) == ["too_large"] * 5
            assert attacker.large_frames(1, "submit") == ["too_large"]
            answered += bool(observer.jobs(brief=True))
            # a 5 MiB script: refused (qmaster_params MAX_SCRIPT_SIZE, 4M by default)
            rtype, body = attacker.oversize_script()
            assert rtype == "error" and "MAX_SCRIPT_SIZE" in body["message"], body
            # waits: capped per user
            rtype, body = attacker.submit()
            assert rtype == "reply", body
            [own] = body["job_ids"]
            refused = attacker.waits(own)
            assert refused == ["denied"] * (len(refused)) and \
                len(refused) == 2000 - MAX_USER_WAITS
            answered += bool(observer.jobs(brief=True))
            # qhold -t 2-75000 of its own array (waiting for its held job: never
            # dispatched), and qrls again: range records
            rtype, body = attacker.submit(array=[1, BIG_ARRAY, 1], hold=False,
                                          hold_jid=[str(own)])
            assert rtype == "reply", body
            [own_big] = body["job_ids"]
            assert attacker.hold_tasks(own_big) == "modified"
            assert attacker.hold_tasks(own_big, add=False) == "modified"
            answered += bool(observer.jobs(brief=True))
            # one job past max_u_jobs: refused with Grid Engine's words
            rtype, body = attacker.submit()
            assert (rtype, body.get("message")) == ("error", (
                f"job rejected: Only {mine_before + 2} jobs are allowed per user "
                f"(current job count: {mine_before + 2})"))
            answered += bool(observer.jobs(brief=True))
        finally:
            attacker.close()
        assert answered == 5
        assert pid_of(local, "qmaster") == qmaster and os.path.exists(f"/proc/{qmaster}")
        after = listing(observer)
        # loses nothing: the jobs submitted before are all there, as they were (the
        # hold was granted only when the attacker is their owner)
        if stranger:
            assert held == ["denied"]
            assert {j: after[j] for j in before} == before
            attackers = {j for j, (who, _) in after.items() if who == stranger}
            assert attackers == {own, own_big}
        else:
            assert set(before) <= set(after)
        assert after[own_big][1] == [str(("ranges", [[1, BIG_ARRAY, 1]], ["h"]))]
