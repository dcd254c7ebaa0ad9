"""``qconf -tsm``: the scheduler run log, ``$SGE_ROOT/$SGE_CELL/common/schedd_runlog``.

8.1.9's qmaster sends its scheduler an event and the next scheduling run appends its
log. Here the qmaster appends the log itself, at the request, from what it works out for
``qstat -j`` (``qmaster.submit_checks.scheduling_info``: the pass's own rules and caps
on the qmaster's bookkeeping): our scheduler runs a pass on every event, so a pass run
now would see what the qmaster sees; the pass keeps no explanations (they are worked out
when asked), the scheduler needs no new event nor file access to the cell's common
directory, and the file is complete when ``qconf`` returns. The lines and their format
are ``common.sched_info``'s.

The file is appended through a descriptor that cannot be a link, a FIFO, another
user's file or a second name of another file: the qmaster may run as root in a
directory others may have written to.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from common.cluster import attr
from common.conf_values import seconds_or
from common.placement.caps import USER_LIMIT_REASON
from common.sched_info import PendingJob, RunningGrant, job_info_of, run_log_lines, stamp
from qmaster.context import Ctx, RequestError
from qmaster.host_rights import require_admin_host
from qmaster.store import Store
from qmaster.submit_checks import scheduling_info

RUNLOG_NAME = "schedd_runlog"
# pending jobs a run log explains: the request runs in the qmaster's loop, which must not
# stop for long (about 70 us a job: 5,000 take a third of a second; qstat -j answers as
# many at a time, qmaster.jobs.QUERY_RECORDS)
MAX_LISTED_JOBS = 5000
NO_PERMISSION = "starting scheduler monitoring requires manager privileges"
_APPEND_FLAGS = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                 | os.O_CLOEXEC)


def handle_trigger_monitor(ctx: Ctx) -> dict[str, Any]:
    """Managers only, as in 8.1.9, then, as for every change of the cell's files, an
    administrative host (where 8.1.9's qconf runs anyway); the answer is 8.1.9's
    ``root@vm triggers scheduler monitoring``."""
    user = ctx.user
    if not ctx.store.is_manager(user.name):
        raise RequestError("denied", NO_PERMISSION)
    require_admin_host(ctx.store, user)
    path = ctx.services.runlog_path
    if path is None:
        raise RequestError("error", "the scheduler run log has no place in this qmaster")
    text = stamp(monitor_lines(ctx.store, ctx.now), ctx.now)
    try:
        append_safely(path, text)
    except (OSError, UnsafeRunlog) as exc:
        raise RequestError("error", f"cannot write the scheduler run log {path}: {exc}"
                           ) from None
    return {"message": f"{user.name}@{user.host} triggers scheduler monitoring"}


def monitor_lines(store: Store, now: float) -> list[str]:
    """The run log of a scheduling run on the store as it is at ``now``."""
    sconf = (store.conf.get("sconf") or {}).get("global") or []
    info = job_info_of(sconf)
    decay = seconds_or(attr(sconf, "load_adjustment_decay_time", "0:7:30"), 450.0)
    grants = [RunningGrant(t.job_id, t.task_id, str(queue), str(host), int(slots),
                           float(t.dispatch_time or t.start_time or 0.0))
              for t in store.active_tasks() for queue, host, slots in t.granted]
    jobs = [store.jobs[j] for j in sorted(store.jobs)
            if store.job_has_pending(j) and info.collects(j)]
    placed: set[int] = set()
    reasons = scheduling_info(store, jobs[:MAX_LISTED_JOBS], placed)
    pending = [_pending(job_id, lines, job_id in placed) for job_id, lines in reasons.items()]
    return run_log_lines(grants, pending, info, decay, now,
                         unlisted=max(0, len(jobs) - MAX_LISTED_JOBS))


def _pending(job_id: int, lines: list[str], placed: bool) -> PendingJob:
    """8.1.9 logs a user-capped job once as it splits the job list, and again as it
    discards the dropped jobs (``with_cap_reasons`` gives the line twice)."""
    if lines[:1] == [USER_LIMIT_REASON]:
        return PendingJob(job_id, tuple(lines[1:]), tuple(lines[:1]), placed)
    return PendingJob(job_id, tuple(lines), (), placed)


class UnsafeRunlog(Exception):
    """The run log's name is taken by something the qmaster must not write to."""


def append_safely(path: Path, text: str) -> None:
    """Append ``text`` to ``path`` (made 0644 if missing) in one write, refusing a
    symbolic link (``O_NOFOLLOW``), anything but a regular file (a FIFO would block),
    a file of another owner and a file with a second name (a hard link a user made to a
    file the qmaster may write)."""
    fd = os.open(path, _APPEND_FLAGS, 0o644)
    try:
        seen = os.fstat(fd)
        if not stat.S_ISREG(seen.st_mode):
            raise UnsafeRunlog("is not a regular file")
        if seen.st_uid != os.geteuid():
            raise UnsafeRunlog(f"belongs to uid {seen.st_uid}, not to the qmaster")
        if seen.st_nlink != 1:
            raise UnsafeRunlog("has more than one name (a hard link)")
        os.write(fd, text.encode())
    finally:
        os.close(fd)
