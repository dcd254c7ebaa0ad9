"""``qhold`` and ``qrls``: add or remove user, operator or system holds.

Both are ``qalter`` in Grid Engine 8.1.9, which shows in their texts and exit codes:
an unknown option is ``qalter: invalid option argument "-x"`` (exit 2); an unknown job
exits 3, another user's job 18 (``must be at least owner of job 1 to change job
attributes``), a missing operator or manager right 10. Answers go to stdout. A hold that
does not change (``qhold`` of a held job, ``qrls`` of one not held) is a silent success,
checked after ownership and before the right to the hold type, as Grid Engine does.
"""
from __future__ import annotations

import sys

from clients.api import Client
from clients.jobctl import (JobView, Target, no_args_usage_last, run_job_command, targets,
                            usage_text)
from clients.joblist import JobSelection, hold_denied, hold_modified, job_does_not_exist

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOLD_TYPES = ("u", "o", "s")
KNOWN_OPTIONS = ("-h", "-u", "-t", "-help")
EXIT_UNKNOWN_JOB = 3
EXIT_NOT_OWNER = 18
EXIT_NO_RIGHT = 10
EXIT_BAD_OPTION = 2
EXIT_HOST_DENIED = 8  # not from a submit host (captured: tests/data/reference/auth)


def usage(prog: str) -> str:
    return usage_text(prog, (
        "   [-h hold_list]                           list of hold types concerned\n"
        "   [-help]                                  print this help\n"
        "   [-u user_list]                           specify a list of users\n"
        "                                            (not allowed in combination with "
        "job_task_list)\n"
        "   job_task_list                            jobids (and taskids) of jobs to be "
        "altered\n"), "hold_list               `u' `s' `o'\n")


def not_owner(user: str, job_id: int) -> str:
    """Refusal for another user's job (``clients.joblist.hold_denied`` words only the
    operator and manager holds as Grid Engine does)."""
    return f'denied: "{user}" must be at least owner of job {job_id} to change job attributes'


def split_hold_types(argv: list[str]) -> tuple[list[str], list[str]]:
    """The ``-h`` hold types (default ``u``) and the other arguments.

    Raises ``ValueError`` with Grid Engine's text for an unknown option or hold type.
    """
    types: list[str] = []
    rest: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "-h":
            value = next(args, "")
            if not value or any(c not in HOLD_TYPES for c in value.replace(",", "")):
                raise ValueError(f'qalter: invalid option argument "{value}"')
            types += [c for c in value.replace(",", "") if c not in types]
        elif arg.startswith("-") and arg not in KNOWN_OPTIONS:
            raise ValueError(f'qalter: invalid option argument "{arg}"')
        else:
            rest.append(arg)
    return types or ["u"], rest


def changed_tasks(view: JobView, hold_type: str, add: bool,
                  selected: list[int] | None = None) -> list[int]:
    """Unfinished tasks of the job (of ``selected`` if given) whose holds this change
    would alter."""
    chosen = None if selected is None else set(selected)  # (75,000 tasks: no list scans)
    return sorted(t for t, holds in view.holds.items()
                  if (hold_type in holds) != add and view.states.get(t) != "finished"
                  and (chosen is None or t in chosen))


def _named_tasks(result: dict[str, Any]) -> list[int] | None:
    """The task ids a hold answer names (``task_ranges``; ``task_ids`` of an older
    qmaster), None for a job that is no array."""
    if result.get("task_ranges") is not None:
        from common.task_ranges import ids
        return list(ids(result["task_ranges"]))
    ids_ = result.get("task_ids")
    return list(ids_) if ids_ is not None else None


class HoldCommand:
    """One qhold/qrls run: the hold types, the direction, the caller."""

    def __init__(self, types: list[str], add: bool) -> None:
        self.types = types
        self.add = add

    def act(self, client: Client, sel: JobSelection, views: dict[int, JobView]
            ) -> tuple[list[str], int]:
        lines: list[str] = []
        codes: list[int] = []
        for target in targets(sel, client.user.name, views):
            more, code = self._target(client, target, views)
            lines += more
            codes.append(code)
        return lines, next((c for c in codes if c), 0)

    def _target(self, client: Client, target: Target, views: dict[int, JobView]
                ) -> tuple[list[str], int]:
        if target.unknown:
            return [job_does_not_exist(target.item, target.users)], EXIT_UNKNOWN_JOB
        method = client.hold if self.add else client.release
        answers = {t: method([target.body], t) for t in self.types}
        if any(r["result"] == "unknown" for rs in answers.values() for r in rs):
            return [job_does_not_exist(target.item, target.users or None)], EXIT_UNKNOWN_JOB
        job_ids = sorted({r["job_id"] for rs in answers.values() for r in rs})
        lines: list[str] = []
        code = 0
        for job_id in job_ids:
            more, job_code = self.decide(client, views.get(job_id), job_id, answers)
            lines += more
            code = code or job_code
        return lines, code

    def decide(self, client: Client, view: JobView | None, job_id: int,
               answers: dict[str, list[dict[str, Any]]]) -> tuple[list[str], int]:
        """The lines and exit code for one job, from the qmaster's answers per hold type
        and the job as it was before: ownership first, then whether anything changes,
        then the right to the hold type."""
        user = client.user.name
        mine = {t: next(r for r in rs if r["job_id"] == job_id)
                for t, rs in answers.items() if any(r["job_id"] == job_id for r in rs)}
        denied = [t for t, r in mine.items() if r["result"] == "denied"]
        owner = view.owner if view is not None else None
        if denied and owner != user and not self._is_operator(client, user):
            return [not_owner(user, job_id)], EXIT_NOT_OWNER
        changed = {t: self._changed(view, t, r) for t, r in mine.items()}
        refused = [t for t in denied if changed[t]]
        if refused:
            return [hold_denied(user, job_id, refused[0], not self.add)], EXIT_NO_RIGHT
        tasks = sorted({task for t in mine if t not in denied for task in changed[t]})
        if not tasks:
            return [], 0
        is_array = (view.is_array if view is not None
                    else any(r.get("task_ranges") or r.get("task_ids")
                             for r in mine.values()))
        if not is_array:
            return [hold_modified(job_id)], 0
        return [hold_modified(job_id, task) for task in tasks], 0

    def _changed(self, view: JobView | None, hold_type: str, result: dict[str, Any]
                 ) -> list[int]:
        """Tasks this hold type changes; a job the command did not see before (submitted
        meanwhile) counts as changed in every task the qmaster names (``task_ranges``:
        the qmaster names an array's tasks as ranges, not one by one)."""
        named = _named_tasks(result)
        if view is None:
            return named or [1]
        return changed_tasks(view, hold_type, self.add, named)

    @staticmethod
    def _is_operator(client: Client, user: str) -> bool:
        return user in client.conf_get("operator") or user in client.conf_get("manager")


def run(prog: str, argv: list[str], *, add: bool) -> int:
    try:
        types, rest = split_hold_types(argv)
    except ValueError as err:
        sys.stderr.write(f"{err}\n")
        return EXIT_BAD_OPTION
    command = HoldCommand(types, add)
    return run_job_command(rest, usage(prog), command.act, no_args=no_args_usage_last,
                           host_denied_status=EXIT_HOST_DENIED)


def main(argv: list[str] | None = None) -> int:
    return run("qhold", sys.argv[1:] if argv is None else argv, add=True)


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
