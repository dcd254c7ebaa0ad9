"""``qdel``: delete jobs, array tasks, or all jobs of users."""
from __future__ import annotations

import sys
from typing import Any

from clients.jobctl import run_job_command, unknown_text
from clients.joblist import (deleted_job, deleted_task, no_delete_privileges,
                             registered_job_deletion, registered_task_deletion)

USAGE = ("usage: qdel [options] job_task_list\n"
         "   [-f]                               force action\n"
         "   [-help]                            print this help\n"
         "   [-u user_list]                     delete all jobs of users specified in list\n"
         "   job_task_list                      delete all jobs given in list\n")


def describe(result: dict[str, Any], user: str) -> list[str]:
    kind, job_id, task_id = result["result"], result.get("job_id"), result.get("task_id")
    if kind == "unknown":
        return [unknown_text(result)]
    if kind == "denied":
        return [no_delete_privileges(user, job_id)]
    if kind == "registered":
        return [registered_job_deletion(user, job_id) if task_id is None
                else registered_task_deletion(user, job_id, task_id)]
    return [deleted_job(user, job_id) if task_id is None else deleted_task(user, job_id, task_id)]


def main(argv: list[str] | None = None) -> int:
    return run_job_command("qdel", sys.argv[1:] if argv is None else argv, USAGE,
                           lambda client, targets: client.delete(targets), describe)


if __name__ == "__main__":
    raise SystemExit(main())
