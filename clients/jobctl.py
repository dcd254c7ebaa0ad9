"""What qdel, qhold and qrls share: the command line frame, job views, request targets.

Grid Engine 8.1.9's streams: every answer about a job, errors included, goes to stdout;
option errors and the usage go to stderr. Before acting, the commands look at the jobs
(``Client.jobs``) so that they can word what the qmaster's answer leaves open: which jobs
a name stands for (only the caller's, or those of ``-u``), whether a task was already in
deletion, whether a hold really changed. A refusal for the host the request came from
(``denied: host "h" is not a submit host``, ``qmaster.host_rights``) is an answer too:
stdout, with the command's exit status for it.
"""
from __future__ import annotations

import sys

from clients.api import Client, ClientError
from clients.joblist import (NO_OPTION_ARGUMENT, JobRef, JobSelection, RangeError,
                             parse_job_selection)
from common.record import Record, field
from common.cell import CellNotFound

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

VERSION_LINE = "SGE 8.1.9"
JOB_TASK_SYNTAX = ("job_task_list           job_tasks[,job_tasks,...]\n"
                   "job_tasks               [job_id['.'task_id_range]|job_name|pattern]"
                   "[' -t 'task_id_range]\n"
                   "task_id_range           task_id['-'task_id[':'step]]\n"
                   "user_list               user[,user,...]\n")


class JobView(Record):
    """A job as the command saw it before acting: owner, name, tasks' state and holds."""

    job_id: int
    owner: str
    name: str
    is_array: bool
    states: dict[int, str] = field(default_factory=dict)
    holds: dict[int, set[str]] = field(default_factory=dict)


class Target(Record):
    """One request target and what its messages need: the item as the user wrote it."""

    body: dict[str, Any]
    item: str = ""
    users: list[str] = field(default_factory=list)  # a name stands for these users' jobs
    unknown: bool = False  # a name that matched no job: no request is sent


def job_views(reply: dict[str, Any]) -> dict[int, JobView]:
    """``Client.jobs()``'s answer as views by job id."""
    views = {int(j["job_id"]): JobView(int(j["job_id"]), str(j.get("owner", "")),
                                       str((j.get("opts") or {}).get("job_name") or ""),
                                       bool((j.get("opts") or {}).get("array")))
             for j in reply.get("jobs", [])}
    for task in reply.get("tasks", []):
        view = views.get(int(task["job_id"]))
        if view is not None:
            view.states[int(task["task_id"])] = str(task["state"])
            view.holds[int(task["task_id"])] = set(task.get("holds") or [])
    for rng in reply.get("ranges", []):  # (asked with ranges=True) ids not enrolled
        view = views.get(int(rng["job_id"]))
        if view is None:
            continue
        holds = list(rng.get("holds") or [])
        for first, last, step in rng.get("pending") or []:
            for task_id in range(first, last + 1, step):
                view.states[task_id] = "hold" if holds else "pending"
                view.holds[task_id] = set(holds)
    return views


def seen_jobs(client: Client, refs: list[JobRef], users: list[str]) -> dict[int, JobView]:
    """The jobs the command looks at before acting: when every item names a job id, those
    jobs only (they are all the answers can be about: a qdel of one job in a cell of
    thousands then reads one job, not all of them), for ``-u`` alone those users' jobs,
    else every job; as listings (a view reads the owner, the name and the array)."""
    if refs and not users and all(ref.is_id for ref in refs):
        return job_views(client.jobs(sorted({int(ref.target) for ref in refs}), ranges=True,
                                     brief=True))
    return job_views(client.jobs(ranges=True, brief=True, owners=None if refs else users))


def targets(sel: JobSelection, user: str, views: dict[int, JobView]) -> list[Target]:
    """Request targets in command line order; names resolve to the matching jobs of the
    caller (or of the ``-u`` users), as Grid Engine restricts them."""
    out: list[Target] = []
    for ref in sel.refs:
        out += _ref_targets(ref, user, sel.users, views)
    # (8.1.9's qhold -u u of no job: "The job * of user(s) u does not exist")
    out += [Target({"user": u}, "*", [u]) for u in sel.users if not sel.refs]
    return out


def _ref_targets(ref: JobRef, user: str, users: list[str], views: dict[int, JobView]
                 ) -> list[Target]:
    tasks = {"tasks": [list(t) for t in ref.tasks]} if ref.tasks else {}
    if ref.target == "all":
        return [Target({"user": user}, user, [user])]
    if ref.is_id:
        return [Target({"job_id": int(ref.target), **tasks}, ref.target)]
    import fnmatch  # (job names only: it loads re)
    owners = users or [user]
    ids = sorted(v.job_id for v in views.values()
                 if v.owner in owners and fnmatch.fnmatchcase(v.name, ref.target))
    if not ids:
        return [Target({"name": ref.target}, ref.target, owners, unknown=True)]
    return [Target({"job_id": i, **tasks}, str(i)) for i in ids]


def format_task_ids(ids: list[int]) -> str:
    """Task ids as Grid Engine prints a compressed range list: runs of consecutive ids,
    ``n`` alone, ``a,b`` for two, ``a-b:1`` for more."""
    parts: list[str] = []
    ordered = sorted(set(ids))
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        low, high = ordered[start], ordered[end]
        parts.append(str(low) if low == high else f"{low},{high}" if high == low + 1
                     else f"{low}-{high}:1")
        start = end + 1
    return ",".join(parts)


def usage_text(prog: str, options: str, syntax: str = "") -> str:
    """Grid Engine's usage block: version, options, then the argument syntax."""
    return (f"{VERSION_LINE}\nusage: {prog} [options] job_task_list\n{options}\n"
            f"{syntax}{JOB_TASK_SYNTAX}")


if TYPE_CHECKING:
    Act = Callable[[Client, JobSelection, dict[int, JobView]], tuple[list[str], int]]


def host_refusal(err: ClientError) -> bool:
    """Did the qmaster refuse the request for the host it came from?"""
    return err.code == "denied" and err.message.startswith('denied: host "')


def run_job_command(argv: list[str], usage: str, act: Act, *,
                    no_args: Callable[[str], int], host_denied_status: int = 1) -> int:
    """Parse the selection, look at the jobs, act; print the answers on stdout.
    ``host_denied_status``: the exit status after a host refusal (8.1.9: qdel 1, qhold and
    qrls 8)."""
    if not argv:
        return no_args(usage)
    try:
        sel = parse_job_selection(argv)
    except RangeError as err:
        sys.stderr.write(err.message + "\n")
        return 1
    if sel.help:
        sys.stdout.write(usage)
        return 0
    if not (sel.refs or sel.users):
        return no_args(usage)
    try:
        client = Client()
        views = seen_jobs(client, sel.refs, sel.users)
        lines, rc = act(client, sel, views)
    except (ClientError, CellNotFound) as err:
        if isinstance(err, ClientError) and host_refusal(err):
            print(err.message)
            return host_denied_status
        sys.stderr.write(f"error: {getattr(err, 'message', err)}\n")
        return 1
    for line in lines:
        print(line)
    return rc


def no_args_usage_last(usage: str) -> int:
    """qhold and qrls without arguments: the usage, then the complaint, on stderr."""
    sys.stderr.write(usage + NO_OPTION_ARGUMENT + "\n")
    return 1
