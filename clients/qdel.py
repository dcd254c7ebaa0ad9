"""``qdel``: delete jobs, array tasks, or all jobs of users.

Texts and exit codes of Grid Engine 8.1.9: every answer on stdout, exit 1 if any job did
not exist or could not be deleted. An argument starting with ``-`` that is no option is a
job name (``qdel -bogus`` → ``The job -bogus of user(s) sgeuser does not exist``).
Pending tasks deleted by a task range are reported in one line (``has deleted job-array
tasks 2,3 of job 4``); a task already in deletion gives ``job 41 is already in deletion``.
"""
from __future__ import annotations

import sys

from clients.api import Client
from clients.jobctl import (JobView, Target, format_task_ids, run_job_command, targets,
                            usage_text)
from clients.joblist import (NO_OPTION_ARGUMENT, JobSelection, already_in_deletion,
                             deleted_job, deleted_task, job_does_not_exist,
                             force_needs_manager, forced_job_deletion, forced_task_deletion,
                             no_delete_privileges, no_jobs_for_users, registered_job_deletion,
                             registered_task_deletion, tasks_do_not_exist)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USAGE = usage_text("qdel", (
    "   [-f]                                     force action\n"
    "   [-help]                                  print this help\n"
    "   [-u user_list]                           delete all jobs of users specified in list\n"
    "   job_task_list                            delete all jobs given in list\n"))


def unknown_line(target: Target) -> str:
    """What Grid Engine says when a target matched no job."""
    body = target.body
    if "user" in body:
        return no_jobs_for_users(target.users)
    if "name" in body:
        return job_does_not_exist(target.item, target.users)
    return job_does_not_exist(target.item)


def result_lines(user: str, results: list[dict[str, Any]], views: dict[int, JobView]
                 ) -> tuple[list[str], bool]:
    """The lines for one target's results, and whether any was a refusal."""
    entries: list[str | int] = []  # an int stands for the range line of that job
    refused = False
    pending: dict[int, list[int]] = {}  # job -> pending task ids deleted by a range
    for result in results:
        kind, job_id, task_id = result["result"], result.get("job_id"), result.get("task_id")
        if kind == "force_denied":
            refused = True
            entries.append(force_needs_manager(user))
        elif kind == "forced":
            entries.append(forced_job_deletion(user, job_id) if task_id is None
                           else forced_task_deletion(user, job_id, task_id))
        elif kind == "denied":
            refused = True
            entries.append(no_delete_privileges(user, job_id))
        elif kind == "registered":
            entries.append(_registered(user, job_id, task_id, views.get(job_id)))
        elif task_id is not None:
            if job_id not in pending:
                entries.append(job_id)
            pending.setdefault(job_id, []).append(task_id)
        else:
            entries.append(deleted_job(user, job_id))
    return [e if isinstance(e, str) else _range_line(user, e, pending[e])
            for e in entries], refused


def _registered(user: str, job_id: int, task_id: int | None, view: JobView | None) -> str:
    if view is not None and view.states.get(task_id or 1) == "deleted":
        return already_in_deletion(job_id)
    if task_id is None:
        return registered_job_deletion(user, job_id)
    return registered_task_deletion(user, job_id, task_id)


def _range_line(user: str, job_id: int, ids: list[int]) -> str:
    """Pending tasks deleted by a task range: one line per job."""
    if len(ids) == 1:
        return deleted_task(user, job_id, ids[0])
    return f"{user} has deleted job-array tasks {format_task_ids(ids)} of job {job_id}"


def act(client: Client, sel: JobSelection, views: dict[int, JobView]) -> tuple[list[str], int]:
    user = client.user.name
    lines: list[str] = []
    rc = 0
    for target in targets(sel, user, views):
        results = [] if target.unknown else client.delete([target.body], force=sel.force)
        if target.unknown or any(r["result"] == "unknown" for r in results):
            lines.append(unknown_line(target))
            rc = 1
        elif not results and target.body.get("tasks"):
            lines.append(tasks_do_not_exist(target.item, tuple(target.body["tasks"][0])))
            rc = 1
        else:
            more, refused = result_lines(user, results, views)
            lines += more
            rc = 1 if refused else rc
    return lines, rc


def no_args(usage: str) -> int:
    """qdel without arguments: the complaint on stdout, the usage on stderr."""
    print(NO_OPTION_ARGUMENT)
    sys.stderr.write(usage)
    return 1


def main(argv: list[str] | None = None) -> int:
    return run_job_command(sys.argv[1:] if argv is None else argv, USAGE, act,
                           no_args=no_args)


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
