"""Job lists and task ranges of the job-control clients, and their messages.

Owns, as pure functions: the task range grammar `n[-m[:s]]` of sge_types(5)
(the same parser serves `qsub -t`, `qsub -pe` and `qdel 5.1-3`), the
`wc_job_range_list` arguments of qdel/qhold/qrls (`job_id[.range]`, job names,
patterns, `all`, `-t range`, `-u users`, `-f`), and Grid Engine's exact
texts for deletion, hold changes and unknown jobs.

Streams: qdel prints every answer of the qmaster, errors included, on
stdout and exits 1 if any answer was an error; option errors go to stderr
prefixed "error: " (the client logging of Grid Engine).
"""
from __future__ import annotations

from common.record import Record, field

STATUS_ESEMANTIC = 2
STATUS_ESYNTAX = 7
RANGE_INFINITY = 9999999  # what Grid Engine prints for an open range end
U32 = 0xFFFFFFFF

TaskRange = tuple[int, int, int]

# strtol's and strtod's prefixes; ``re`` is imported when a range is parsed (re's cache
# keeps the compiled patterns): it loads enum and functools, 4 ms that a qsub or qdel
# without a task range would pay at every start
_INT_PREFIX = r"\s*[+-]?\d+"
_FLOAT_PREFIX = r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"


class RangeError(ValueError):
    """A range or job list Grid Engine refuses: its exact text and status."""

    def __init__(self, message: str, status: int = STATUS_ESYNTAX) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _no_decimal(text: str) -> RangeError:
    return RangeError("Numerical value invalid!\nThe initial portion of string "
                      f'"{text}" contains no decimal number')


def _trailer(spec: str, rest: str) -> RangeError:
    return RangeError(f'Range specifier "{spec}" has unknown trailer "{rest}"')


def _strtol(text: str) -> tuple[int, str] | None:
    """strtol(3): the leading integer and the rest, None when no digits.

    The value wraps to 32 bits because Grid Engine stores it in a u_long32.
    """
    import re
    match = re.match(_INT_PREFIX, text)
    if match is None:
        return None
    return int(match.group()) & U32, text[match.end():]


def _parse_step(text: str) -> int:
    """The `:s` part: strtod, integral and positive, nothing after it."""
    import re
    match = re.match(_FLOAT_PREFIX, text)
    value = float(match.group()) if match else 0.0
    if value > 0:
        if match is None or value - int(value) > 1e-12:
            raise _no_decimal(text)
    elif match is None:
        raise _no_decimal(text)
    else:
        raise RangeError("Negative or zero step in range is not allowed")
    if text[match.end():]:
        raise _trailer(text, text[match.end():])
    return int(value)


def _parse_upper(spec: str, rest: str, step_allowed: bool) -> tuple[int, int] | None:
    """What follows `n-`: `m[:s]` -> (max, step); None when it is empty."""
    if rest == "":
        return None
    parsed = _strtol(rest)
    if parsed is None:
        raise _no_decimal(rest)
    upper, tail = parsed
    if tail and not (step_allowed and tail[0] == ":"):
        raise _trailer(rest, tail)
    step = _parse_step(tail[1:]) if tail else 1
    return upper, step


def parse_task_range(spec: str, *, step_allowed: bool = True,
                     inf_allowed: bool = False) -> TaskRange | None:
    """One range `n`, `n-m`, `n-m:s`, `-m`, `n-` (and `-` when infinite
    ends are allowed), as Grid Engine's range_parse_from_string reads it.

    Returns (min, max, step) with min <= max, or None for what Grid Engine
    treats as "undefined" (`UNDEFINED`, or an open end where none is allowed).
    """
    if spec.lower() == "undefined":
        return None
    text, low = spec, 0
    if text.startswith("-"):
        low, text = 1, text[1:]
        if text == "":
            return (1, RANGE_INFINITY, 1) if inf_allowed else None
    parsed = _strtol(text)
    if parsed is None:
        raise _no_decimal(text)
    value, rest = parsed
    if low:
        # Grid Engine's own test; it refuses "-m" whenever a step is allowed.
        if rest != "" or (step_allowed and rest != ":"):
            raise _trailer(spec, text)
        return _ordered(1, value, 1)
    if rest == "":
        return value, value, 1
    if not (rest[0] == "-" or rest[1:2].isdigit() or len(rest) == 1
            or (step_allowed and rest[0] == ":")):
        raise _trailer(spec, rest)
    upper = _parse_upper(spec, rest[1:], step_allowed)
    if upper is None:
        return (value, RANGE_INFINITY, 1) if inf_allowed else None
    return _ordered(value, upper[0], upper[1])


def _ordered(low: int, high: int, step: int) -> TaskRange:
    """Grid Engine swaps a reversed range: `5-1` is `1-5`."""
    return (low, high, step) if low <= high else (high, low, step)


def parse_range_list(text: str, *, step_allowed: bool = True,
                     inf_allowed: bool = False) -> list[TaskRange]:
    """A comma-separated range list; [] means undefined."""
    ranges: list[TaskRange] = []
    undefined = False
    for index, spec in enumerate(s for s in text.split(",") if s):
        if index and undefined:
            raise RangeError('unexpected range following "UNDEFINED"')
        parsed = parse_task_range(spec, step_allowed=step_allowed,
                                  inf_allowed=inf_allowed)
        if parsed is None:
            if index:
                raise RangeError('unexpected "UNDEFINED" following range')
            undefined = True
        else:
            ranges.append(parsed)
    return ranges


def correct_end(task_range: TaskRange) -> TaskRange:
    """The last id the range really reaches: 1-9:3 is 1-7:3."""
    low, high, step = task_range
    return low, low + (high - low) // step * step, step


def format_task_range(task_range: TaskRange) -> str:
    """`first-last:step`, the form of qsub's and qstat's output."""
    low, high, step = task_range
    return f"{low}-{high}:{step}"


def task_ids(task_range: TaskRange) -> range:
    """The task ids a range names."""
    low, high, step = task_range
    return range(low, high + 1, step)


class JobRef(Record):
    """One `wc_job_range`: a job id, a job name or pattern, or `all`."""

    target: str
    tasks: list[TaskRange] = field(default_factory=list)  # [] = every task

    @property
    def is_id(self) -> bool:
        return self.target[:1].isdigit()


class JobSelection(Record):
    """What qdel/qhold/qrls were asked to act on."""

    refs: list[JobRef] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    force: bool = False
    help: bool = False


def parse_job_ref(item: str) -> JobRef:
    """`job_id[.task_range]` or a name/pattern (sge_parse_jobtasks)."""
    invalid = RangeError(f'ERROR! "{item}" is an invalid job-task identifier',
                         STATUS_ESEMANTIC)
    if item == "":
        raise invalid
    if not item[0].isdigit():
        return JobRef(item)
    job, dot, spec = item.partition(".")
    tasks: list[TaskRange] = []
    if dot:
        try:
            tasks = [correct_end(r) for r in parse_range_list(spec)]
        except RangeError:
            raise invalid from None
        if not tasks:
            raise invalid
    # digits only (the partition left no "." in it): isdecimal accepts what re's \d does
    if not job.isdecimal() or int(job) < 1:
        raise invalid
    return JobRef(str(int(job)), tasks)


def _task_option(value: str) -> list[TaskRange]:
    ranges = [correct_end(r) for r in parse_range_list(value)]
    if not ranges:
        raise RangeError("-t option must have a list of task id ranges",
                         STATUS_ESEMANTIC)
    if len(set(ranges)) > 1:
        raise RangeError("-t option only allows one range specification")
    return ranges[:1]


def parse_job_selection(argv: list[str]) -> JobSelection:
    """qdel/qhold/qrls arguments: job items (comma or blank separated), each
    item list optionally followed by `-t range` for its last item, `-u
    user_list` (repeatable), `-f`/`--force` and `-help`."""
    sel = JobSelection()
    last_items: list[JobRef] = []
    args = iter(argv)
    for arg in args:
        if arg == "-help":
            sel.help = True
        elif arg in ("-f", "--force"):
            sel.force = True
        elif arg == "-u":
            sel.users += [u for u in next(args, "").split(",") if u]
        elif arg == "-t":
            value = next(args, None)
            if value is None:
                raise RangeError("-t option must have a list of task id ranges",
                                 STATUS_ESEMANTIC)
            if not last_items:
                raise RangeError(f"found lonely '-t {value}' option (The -t "
                                 "option needs a leading job name).", STATUS_ESEMANTIC)
            last_items[-1].tasks = _task_option(value)
            last_items = []
        else:
            last_items = [parse_job_ref(i) for i in arg.split(",") if i]
            sel.refs += last_items
    return sel


def parse_wc_job_list(text: str) -> list[str]:
    """`wc_job_list` of -hold_jid and qstat -j: ids, names, patterns."""
    items = [item for item in text.split(",") if item]
    if not items:
        raise RangeError(f'Wrong jid_hold list format "{text}" specified to '
                         "-hold_jid option")
    return items


NO_OPTION_ARGUMENT = "ERROR! no option argument"


def deleted_job(user: str, job_id: int) -> str:
    return f"{user} has deleted job {job_id}"


def registered_job_deletion(user: str, job_id: int) -> str:
    return f"{user} has registered the job {job_id} for deletion"


def registered_task_deletion(user: str, job_id: int, task_id: int) -> str:
    return f"{user} has registered the job-array task {job_id}.{task_id} for deletion"


def deleted_task(user: str, job_id: int, task_id: int) -> str:
    return f"{user} has deleted job-array task {job_id}.{task_id}"


def deleted_tasks(user: str, job_id: int, task_range: TaskRange) -> str:
    return (f"{user} has deleted job-array tasks {format_task_range(task_range)}"
            f" of job {job_id}")


def forced_job_deletion(user: str, job_id: int) -> str:
    return f"{user} forced the deletion of job {job_id}"


def forced_task_deletion(user: str, job_id: int, task_id: int) -> str:
    return f"{user} forced the deletion of job-array task {job_id}.{task_id}"


def force_needs_manager(user: str) -> str:
    return f'"{user}" - forcing a job deletion requires manager privileges'


def already_in_deletion(job_id: int) -> str:
    return f"job {job_id} is already in deletion"


def no_delete_privileges(user: str, job_id: int) -> str:
    return (f"{user} - you do not have the necessary privileges to delete "
            f'the job "{job_id}"')


def job_does_not_exist(job: str, users: list[str] | None = None) -> str:
    """Unknown job id or name; with -u the text names the users."""
    if users:
        return f"The job {job} of user(s) {_user_text(users)} does not exist"
    return f'denied: job "{job}" does not exist'


def tasks_do_not_exist(job: str, task_range: TaskRange,
                       users: list[str] | None = None) -> str:
    """No task of `task_range` exists in job `job`."""
    low, high, step = task_range
    if low == high:
        text = f'job "{job}" task "{low}" does not exist'
        return f"{text} for user(s) {_user_text(users)}" if users else text
    text = f'job "{job}" task id range "{low}-{high}:{step}" comprises no tasks'
    return f"{text} under user(s) {_user_text(users)}" if users else text


def no_jobs_for_users(users: list[str]) -> str:
    return f"There is no job registered for the following users: {_user_text(users)}"


THERE_ARE_NO_JOBS = "There are no jobs registered"


def _user_text(users: list[str]) -> str:
    """Grid Engine names at most 20 users, then '...'."""
    return ",".join(users[:20] + (["..."] if len(users) > 20 else []))


def hold_modified(job_id: int, task_id: int | None = None) -> str:
    """qhold/qrls success: one line per job (or per task of an array)."""
    if task_id is None:
        return f"modified hold of job {job_id}"
    return f"modified hold of job-array task {job_id}.{task_id}"


def hold_denied(user: str, job_id: int, hold_type: str, remove: bool) -> str:
    """Refusal to set or remove a hold: `u` needs the owner (or an
    operator), `o` an operator, `s` a manager."""
    verb = "remove" if remove else "set"
    if hold_type == "u":
        return f'denied: "{user}" must be at least owner of job {job_id} to {verb} user hold'
    role, kind = ("operator", "operator") if hold_type == "o" else ("manager", "manager")
    return f'denied: "{user}" must be {role} to {verb} {kind} hold'


def jobs_do_not_exist(jobs: list[str]) -> str:
    """qstat -j for unknown jobs (stderr, exit 1)."""
    return "Following jobs do not exist: \n" + ", ".join(jobs)
