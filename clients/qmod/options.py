"""qmod's command line, read as Grid Engine 8.1.9's qmod reads it: pure, no sockets.

Two stages, as in 8.1.9 (``sge_parse_cmdline_qmod``, ``sge_parse_qmod``): the first reads
options with the arguments up to the next option (``-d option must have argument``, an
unknown option with the usage); the second turns them into request items, option by
option in 8.1.9's fixed order (-c -cj -cq -d -r -rj -rq -e -s -sj -sq -us -usj -usq, not
the order on the command line), each option's arguments in command line order. Job lists
(``-sj`` and the options that take jobs or queues) are read as job tasks: ``id``,
``id.range``, a name or pattern, ``-t range`` after the last one; a comma in them is
``ERROR! "1,2" is an invalid job-task identifier``. Queue lists split at commas.
``-help`` prints the usage on stdout; anything with it is ``too many options``.
"""
from __future__ import annotations

from clients.joblist import NO_OPTION_ARGUMENT, RangeError, parse_job_ref, _task_option
from common.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# short option, long option, action, scope ("any": a job or a queue), in 8.1.9's order
OPTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("-c", "--clear", "clear", "any"), ("-cj", "--clearjob", "clear", "job"),
    ("-cq", "--clearqueue", "clear", "queue"), ("-d", "--disable", "disable", "queue"),
    ("-r", "--reschedule", "reschedule", "any"),
    ("-rj", "--reschedulejob", "reschedule", "job"),
    ("-rq", "--reschedulequeue", "reschedule", "queue"), ("-e", "--enable", "enable", "queue"),
    ("-s", "--suspend", "suspend", "any"), ("-sj", "--suspendjob", "suspend", "job"),
    ("-sq", "--suspendqueue", "suspend", "queue"), ("-us", "--unsuspend", "unsuspend", "any"),
    ("-usj", "--unsuspendjob", "unsuspend", "job"),
    ("-usq", "--unsuspendqueue", "unsuspend", "queue"))
_LONG = {long: short for short, long, _, _ in OPTIONS} | {"--help": "-help", "--force": "-f"}
_BY_SHORT = {short: (action, scope) for short, _, action, scope in OPTIONS}

USAGE = """\
SGE 8.1.9
usage: qmod [options]
   [-c job_wc_queue_list]  clear error state
   [-cj job_list]          clear job error state
   [-cq wc_queue_list]     clear queue error state
   [-d wc_queue_list]      disable
   [-e wc_queue_list]      enable
   [-f]                    force action
   [-help]                 print this help
   [-r job_wc_queue_list]  reschedule jobs (running in queue)
   [-rj job_list]          reschedule jobs
   [-rq wc_queue_list]     reschedule all jobs in a queue
   [-s job_wc_queue_list]  suspend
   [-sj job_list]          suspend jobs
   [-sq wc_queue_list]     suspend queues
   [-us job_wc_queue_list] unsuspend
   [-usj job_list]         unsuspend jobs
   [-usq wc_queue_list]    unsuspend queues

job_wc_queue_list          {job_tasks|wc_queue}[{','|' '}{job_tasks|wc_queue}[{','|' '}...]]
job_list                   {job_tasks}[{','|' '}job_tasks[{','|' '}...]]
job_tasks                  {{job_id'.'task_id_range}|job_name|pattern}[' -t 'task_id_range]
task_id_range              task_id['-'task_id[':'step]]
wc_cqueue                  wildcard expression matching a cluster queue
wc_host                    wildcard expression matching a host
wc_hostgroup               wildcard expression matching a hostgroup
wc_qinstance               wc_cqueue@wc_host
wc_qdomain                 wc_cqueue@wc_hostgroup
wc_queue                   wc_cqueue|wc_qdomain|wc_qinstance
wc_queue_list              wc_queue[','wc_queue[','...]]
"""


class Request(Record):
    """What qmod asks the qmaster: items in the order they apply, and ``-f``."""

    items: list[dict[str, Any]] = field(default_factory=list)
    force: bool = False


class Refusal(Record, Exception):
    """What qmod prints instead of asking (stdout, stderr) and its exit status."""

    stdout: str = ""
    stderr: str = ""
    status: int = 1


def _stage1(argv: list[str]) -> list[tuple[str, list[str]]]:
    """(option, its arguments) in command line order; ``-t`` is an element of its own."""
    if not argv:
        raise Refusal(stderr=USAGE + NO_OPTION_ARGUMENT + "\n")
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(argv):
        opt = _LONG.get(argv[i], argv[i])
        i += 1
        if opt in ("-help", "-f"):
            out.append((opt, []))
        elif opt == "-t":
            value = argv[i] if i < len(argv) else None
            i += 1
            if value is None:
                raise Refusal(stderr=USAGE + "-t option must have a list of task id ranges\n")
            try:
                _task_option(value)
            except RangeError as err:
                raise Refusal(stderr=USAGE + err.message + "\n") from None
            out.append(("-t", [value]))
        elif opt in _BY_SHORT:
            args = []
            while i < len(argv) and not argv[i].startswith("-"):
                args.append(argv[i])
                i += 1
            if not args:
                raise Refusal(stderr=f"{opt} option must have argument\n")
            out.append((opt, args))
        else:
            raise Refusal(stderr=USAGE + f'invalid option argument "{argv[i - 1]}"\n')
    return out


def parse(argv: list[str]) -> Request | Refusal:
    """The request, or what to print instead (``-help`` included: status 0)."""
    try:
        elements = _stage1(argv)
        if any(opt == "-help" for opt, _ in elements):
            if len(elements) > 1:
                return Refusal(stdout=USAGE, stderr="too many options\n")
            return Refusal(stdout=USAGE, status=0)
        return _stage2(elements)
    except Refusal as refusal:
        return refusal


def _stage2(elements: list[tuple[str, list[str]]]) -> Request:
    request = Request(force=any(opt == "-f" for opt, _ in elements))
    attached: set[int] = set()  # the -t elements a job list took
    per_option: dict[str, list[dict[str, Any]]] = {short: [] for short in _BY_SHORT}
    for index, (opt, args) in enumerate(elements):
        if opt not in _BY_SHORT:
            continue
        action, scope = _BY_SHORT[opt]
        nxt = elements[index + 1] if index + 1 < len(elements) else None
        if scope == "queue":
            refs = [{"ref": q} for arg in args for q in arg.split(",") if q]
        else:
            refs = [_job_item(arg) for arg in args]
            if nxt is not None and nxt[0] == "-t":
                refs[-1]["tasks"] = [list(r) for r in _task_option(nxt[1][0])]
                attached.add(index + 1)
        per_option[opt] += [{"action": action, "scope": scope, **r} for r in refs]
    for index, (opt, args) in enumerate(elements):
        if opt == "-t" and index not in attached:
            raise Refusal(stderr=USAGE + f"found lonely '-t {args[0]}' option (The -t option "
                          "needs a leading job name).\ntoo many options\n")
    for short, _, _, _ in OPTIONS:
        request.items += per_option[short]
    return request


def _job_item(arg: str) -> dict[str, Any]:
    """One job task (or queue, for the options that take both) as a request item."""
    invalid = Refusal(stderr=f'ERROR! "{arg}" is an invalid job-task identifier\n')
    if "," in arg:
        raise invalid
    try:
        ref = parse_job_ref(arg)
    except RangeError:
        raise invalid from None
    item: dict[str, Any] = {"ref": ref.target}
    if ref.tasks:
        item["tasks"] = [list(r) for r in ref.tasks]
    return item
