"""The typed job description: every option a job carries, with its type, range and Grid
Engine's naming rules, in the one place that ``qsub``, the client API and the qmaster share.

``check_job_options`` takes the options of a submission as they arrive (possibly sparse:
the client API sends only what it sets) and returns them complete and in canonical shape,
or raises ``JobSpecError`` naming the field. The qmaster stores only what passed it, so
accounting, events, snapshots and the dispatch pass can rely on the types. Names follow
``clients.qsub.options.SubmitOptions`` (its ``job_opts()`` is exactly such a mapping). Pure.
"""
from __future__ import annotations

from common.schema import (Bool, Bytes, Int, ListOf, MapOf, Optional, Refined, Schema,
                           SchemaError, Str, Struct, Tuple)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, Mapping

MAX_TASK_ID = (1 << 31) - 1
MAX_PE_SLOTS = 9_999_999        # Grid Engine's "infinite" upper end of a slot range
MAX_NAME = 512                  # verify_str_key's limit for object names
# what an interactive job is (qrsh(1)): qrsh with a command, qrsh without one or qlogin
# (a login session), qsh (an xterm); the kind decides the job's default name and program
SESSION_KINDS = frozenset({"qrsh", "qlogin", "qsh"})
TOKEN_BYTES = 32  # common.builtin_session.TOKEN_BYTES (imported there from here)


class JobSpecError(SchemaError):
    """A job description that must be refused. ``text`` is what the submitter is told:
    Grid Engine's own words where it has them (job names), else the field and the fault."""

    def __init__(self, path: str, message: str, *, own_words: bool = False) -> None:
        super().__init__(path, message)
        self.own_words = own_words  # the message is Grid Engine's whole answer

    @property
    def text(self) -> str:
        if self.own_words or self.path.endswith("job_name"):
            return self.message
        return f"job rejected: {self.path}: {self.message}"


# ---- Grid Engine's rules -----------------------------------------------------------
_NAME_CHARS = [("\n", "Return"), ("\t", "Tab"), ("\r", "Carriage return"), ("/", "Slash"),
               (":", "Colon"), ("@", "At"), ("\\", "Backslash"), ("*", "Asterisk"),
               ("?", "Questionmark")]


_DIGITS = frozenset("0123456789")


def validate_job_name(name: str) -> str | None:
    """The qmaster's refusal of a job name (verify_str_key, QSUB_TABLE), or None."""
    if name[:1] in _DIGITS:
        return f'denied: "{name}" is not a valid object name (cannot start with a digit)'
    if len(name) > MAX_NAME:
        return f"string is longer than {MAX_NAME}, this is not allowed for objectnames"
    for char, label in _NAME_CHARS:
        if char in name:
            shown = f" ('{char}')" if char.isprintable() else ""
            return f"{label}{shown} not allowed in objectname"
    # (the common case at once: every stored job's name is checked again at restart)
    plain = name.isascii() and name.isprintable() and " " not in name
    bad = None if plain else next(
        (c for c in name if not (c.isascii() and c.isprintable() and c != " ")), None)
    if bad is not None:
        return f"Non-graphic character (hex {ord(bad) & 0xFF:x}) not allowed in objectname"
    if name.upper() in ("NONE", "ALL", "TEMPLATE"):
        return f'Keyword ("{name.upper()}") not allowed as objectname'
    return None


def _job_name_rule(name: str) -> str | None:
    if not name:
        return "empty string argument to -N option invalid"
    return validate_job_name(name)


# re is imported and the pattern compiled (re's cache) on first use, not at import: qsub's
# start-up is benchmarked and -a/-dl are rare.
_DATE = r"(\d{2})?(\d{2})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?"


def date_fields(spec: str) -> tuple[int | None, int | None, int, int, int, int, int] | None:
    """The fields of a ``-a``/``-dl`` value ``[[CC]YY]MMDDhhmm[.SS]``, or None."""
    import re
    match = re.fullmatch(_DATE, spec)
    if not match:
        return None
    cc, yy, mo, dd, hh, mi, ss = (int(g) if g else None for g in match.groups())
    if cc is not None and yy is None:
        cc, yy = None, cc
    ok = 1 <= mo <= 12 and 1 <= dd <= 31 and hh < 24 and mi < 60 and (ss or 0) < 60
    return (cc, yy, mo, dd, hh, mi, ss or 0) if ok else None  # type: ignore[return-value]


def date_time_to_epoch(spec: str, now: datetime) -> int:
    """Seconds since the epoch of a validated ``-a``/``-dl`` value; missing century/year
    come from ``now``, whose tzinfo is used. Raises ValueError for an impossible date."""
    found = date_fields(spec)
    if found is None:
        raise ValueError(spec)
    cc, yy, mo, dd, hh, mi, ss = found
    from datetime import datetime  # (-a and -dl only)
    year = now.year if yy is None else (now.year // 100 if cc is None else cc) * 100 + yy
    return int(datetime(year, mo, dd, hh, mi, ss, tzinfo=now.tzinfo).timestamp())


def _date_rule(spec: str) -> str | None:
    if date_fields(spec) is None:
        return f'wrong date/time format "{spec}"'
    return None


def _letters(allowed: str) -> Any:
    return lambda text: None if set(text) <= set(allowed) else \
        f"{text!r} has letters other than {allowed!r}"


def _no_separators(text: str) -> str | None:
    """Names inside comma-separated lists (queues, resources) cannot hold separators."""
    if any(c in text for c in ", \t\n\r"):
        return f"{text!r} contains a separator"
    return None


def _resource_name(text: str) -> str | None:
    return _no_separators(text) or ("'=' in a resource name" if "=" in text else None)


def _env_name(text: str) -> str | None:
    return "'=' in a variable name" if "=" in text else None


# ---- the description ---------------------------------------------------------------
_NAME = Str(max_len=MAX_NAME)
_TEXT = Str()
_PATHS = ListOf(Str(nonempty=True), max_items=1024)
_QUEUES = ListOf(Str(max_len=MAX_NAME * 2, nonempty=True, rule=_no_separators), max_items=4096)
_RESOURCES = MapOf(Str(max_len=MAX_NAME, nonempty=True, rule=_resource_name),
                   Str(max_len=4096), max_items=4096)
_VARIABLES = MapOf(Str(max_len=4096, nonempty=True, rule=_env_name), Optional(Str()))
_TASK_ID = Int(1, MAX_TASK_ID)


def _session_rule(value: Any, path: str) -> Any:
    if len(value["token"]) != TOKEN_BYTES:
        raise SchemaError(f"{path}.token", f"must be {TOKEN_BYTES} bytes")
    return value


def session_schema() -> Schema:
    """The shape of an interactive job's ``session`` (the job option, and the start
    record's field of the same name)."""
    return OPTION_SCHEMAS["session"][0]
_SLOTS = Int(0, MAX_PE_SLOTS)  # 0 is refused in Grid Engine's words (_check_relations)

# name -> (schema, default); a callable default is called for each job. The qmaster spools
# a job without its options at these defaults (sparse_job_options): changing a default
# changes every job already spooled at the old one, at the next restart, unless the
# change comes with a migration of the spool.
OPTION_SCHEMAS: dict[str, tuple[Schema, Any]] = {
    "job_name": (Str(rule=_job_name_rule), "STDIN"),
    "script_path": (Optional(Str(nonempty=True)), None),
    "script_args": (ListOf(_TEXT, max_items=65536), list),
    "binary": (Bool(), False),
    "use_shell": (Bool(), True),
    "directive_prefix": (Optional(Str(max_len=64)), "#$"),
    "stdout_paths": (_PATHS, list),
    "stderr_paths": (_PATHS, list),
    "stdin_paths": (_PATHS, list),
    "merge_output": (Bool(), False),
    "cwd": (Optional(Str(nonempty=True)), None),
    # sge_aliases(5) of a -cwd/-wd job: (source, submit host, execution host,
    # replacement), which map cwd for the execution host (common.path_aliases)
    "path_aliases": (ListOf(Tuple((Str(max_len=4096, nonempty=True),) * 4), max_items=1024),
                     list),
    "shell": (_PATHS, list),
    "env": (_VARIABLES, dict),
    "export_all_env": (Bool(), False),
    "terse": (Bool(), False),
    "hold": (Bool(), False),
    "array": (Optional(Tuple((_TASK_ID, _TASK_ID, _TASK_ID))), None),
    "sync": (Bool(), False),
    "hold_jid": (ListOf(Str(max_len=MAX_NAME, nonempty=True), max_items=4096), list),
    "hold_jid_ad": (ListOf(Str(max_len=MAX_NAME, nonempty=True), max_items=4096), list),
    "hard_queues": (_QUEUES, list),
    "soft_queues": (_QUEUES, list),
    "master_queues": (_QUEUES, list),
    "priority": (Int(-1023, 1024), 0),
    "rerun": (Optional(Bool()), None),
    "notify": (Bool(), False),
    "hard_resources": (_RESOURCES, dict),
    "soft_resources": (_RESOURCES, dict),
    "pe": (Optional(Tuple((Str(max_len=MAX_NAME, nonempty=True, rule=_no_separators),
                           _SLOTS, _SLOTS))), None),
    "pe_ranges": (ListOf(Tuple((_SLOTS, _SLOTS)), max_items=1024), list),
    "project": (Optional(_NAME), None),
    "account": (Optional(Str(max_len=MAX_NAME)), None),
    "mail_list": (ListOf(Str(max_len=1024, nonempty=True), max_items=1024), list),
    "mail_options": (Str(max_len=4, rule=_letters("abes")), ""),
    "now": (Bool(), False),
    "verify_mode": (Str(choices=frozenset("ewnvp")), "n"),
    "verify": (Bool(), False),
    "start_time": (Optional(Str(max_len=32, rule=_date_rule)), None),
    "deadline": (Optional(Str(max_len=32, rule=_date_rule)), None),
    "checkpoint_name": (Optional(_NAME), None),
    "checkpoint_occasion": (Optional(Str(max_len=5, nonempty=True, rule=_letters("nsmxr"))),
                            None),
    "checkpoint_interval": (Optional(Int(1, MAX_TASK_ID)), None),
    "job_share": (Int(0, MAX_TASK_ID), 0),
    # qalter -ot only (qsub has no -ot): a submission carrying it is refused
    "override_tickets": (Int(0, 0xFFFFFFFF), 0),
    "reserve": (Bool(), False),
    "task_concurrency": (Int(0, MAX_TASK_ID), 0),
    "context": (_VARIABLES, dict),
    "ar_id": (Optional(Int(0, MAX_TASK_ID)), None),
    "pty": (Optional(Bool()), None),
    "noshell": (Bool(), False),  # qrsh -noshell
    # qrsh, qlogin, qsh: where the job's shepherd connects back (common.builtin_session);
    # the token is secret: the qmaster never shows it (qmaster strips it from replies)
    "session": (Optional(Refined(Struct(required={
        "kind": Str(choices=SESSION_KINDS), "host": Str(max_len=1024, nonempty=True),
        "port": Int(1, 65535), "token": Bytes(max_len=TOKEN_BYTES)}), _session_rule)), None),
    "submit_cwd": (Str(), ""),
    "submit_home": (Str(), ""),
}
def default_job_name(script_path: str | None) -> str:
    """The base name of the script or command; STDIN for a script read from stdin."""
    return "STDIN" if script_path in (None, "-") else str(script_path).rsplit("/", 1)[-1]


def _complete(opts: dict[str, Any], path: str) -> dict[str, Any]:
    """A job without a name gets qsub's default; then the rules between fields."""
    if opts.get("job_name") is None:
        opts["job_name"] = default_job_name(opts.get("script_path"))
        refusal = _job_name_rule(opts["job_name"])
        if refusal is not None:
            raise JobSpecError(_at(path, "job_name"), refusal)
    _check_relations(opts, path)
    return opts


def _check_relations(opts: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Rules between fields, and within a range, that a schema cannot say."""
    array = opts.get("array")
    if array and array[1] < array[0]:
        raise JobSpecError(_at(path, "array"),
                           f"task range {array[0]}-{array[1]} runs backwards")
    pe, ranges = opts.get("pe"), opts.get("pe_ranges") or []
    if any(low < 1 for low, _ in ([pe[1:]] if pe else []) + list(ranges)):
        raise JobSpecError(_at(path, "pe"), '"job" rejected: pe range must be greater than '
                                            "zero", own_words=True)
    for low, high in ([pe[1:]] if pe else []) + list(ranges):
        if low > high:
            raise JobSpecError(_at(path, "pe"), f"slot range {low}-{high} runs backwards")
    if pe and ranges and (min(r[0] for r in ranges) != pe[1] or
                          max(r[1] for r in ranges) != pe[2]):
        raise JobSpecError(_at(path, "pe_ranges"), "does not agree with the pe slot range")
    if ranges and "pe" in opts and not pe:
        raise JobSpecError(_at(path, "pe_ranges"), "slot ranges without a parallel environment")
    return dict(opts)


def _at(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# job_name's default is None here so that _complete can tell "not given" from a name
JOB_OPTIONS = Refined(Struct(optional={**OPTION_SCHEMAS,
                                       "job_name": (OPTION_SCHEMAS["job_name"][0], None)}),
                      _complete)
# what a submission may carry: every option, those only qalter sets at their defaults
ALTER_ONLY = ("override_tickets",)


def _complete_submission(opts: dict[str, Any], path: str) -> dict[str, Any]:
    given = next((name for name in ALTER_ONLY if opts.get(name)), None)
    if given is not None:  # qsub has no -ot: only qalter sets it
        raise JobSpecError(_at(path, given), "only qalter sets it")
    return _complete(opts, path)


SUBMIT_OPTIONS = Refined(JOB_OPTIONS.inner, _complete_submission)

# The alterable subset (qalter): present fields only, no defaults.
ALTERABLE = ("hard_resources", "soft_resources", "hard_queues", "soft_queues", "job_name",
             "pe", "pe_ranges", "priority", "hold_jid", "project", "job_share", "deadline",
             "override_tickets", "task_concurrency", "reserve", "start_time", "hold_jid_ad",
             "account", "cwd", "stdout_paths", "stderr_paths", "stdin_paths", "merge_output",
             "mail_list", "mail_options", "master_queues", "notify", "rerun", "shell", "env",
             # qalter -ckpt, -c and -w (which verifies the job as it would become)
             "checkpoint_name", "checkpoint_occasion", "checkpoint_interval", "verify_mode")
ALTER_CHANGES = Refined(Struct(optional={
    **{name: (OPTION_SCHEMAS[name][0], None) for name in ALTERABLE},
    # qalter -sc sets "context"; -ac adds (or replaces) variables, -dc deletes them
    "context": (_VARIABLES, None), "context_add": (_VARIABLES, None),
    "context_delete": (ListOf(Str(max_len=4096, nonempty=True), max_items=4096), None)},
    sparse=True), _check_relations)

# One job of a submit request: its options, the script (None for -b y), SGE_O_* values
# and the submitter's umask, which the job runs with (docs/compatibility.md).
DEFAULT_UMASK = 0o022
SUBMITTED_JOB = Struct(
    required={"opts": SUBMIT_OPTIONS},
    optional={"script": (Optional(Bytes()), None),
              "umask": (Int(0, 0o777), DEFAULT_UMASK),
              "sge_o": (MapOf(Str(max_len=64, nonempty=True), Str(max_len=1 << 16),
                              max_items=64), dict)})


def _checked(schema: Schema, data: Any, path: str) -> dict[str, Any]:
    try:
        return schema.check(data, path)
    except JobSpecError:
        raise
    except SchemaError as err:
        raise JobSpecError(err.path, err.message) from None


def check_job_options(data: Any, path: str = "opts") -> dict[str, Any]:
    """``data`` complete and canonical, or JobSpecError naming the faulty field."""
    return _checked(JOB_OPTIONS, data, path)


def sparse_job_options(opts: dict[str, Any]) -> dict[str, Any]:
    """Checked options without those at their defaults, which ``check_job_options``
    fills in again: how the qmaster spools a job (most of its options are defaults, and
    a restart reads every job)."""
    struct = JOB_OPTIONS.inner
    assert isinstance(struct, Struct)
    return struct.sparse_copy(opts)


def check_submitted_job(data: Any, path: str = "job") -> dict[str, Any]:
    """One job of a submit request (options, script, SGE_O_* values), checked."""
    return _checked(SUBMITTED_JOB, data, path)
