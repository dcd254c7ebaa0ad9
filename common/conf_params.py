"""The keys of sge_conf(5) ``qmaster_params`` and ``execd_params``: one table of each
(name, value type, default, what uses it, or why only its default is taken) and the one
parser of both values.

A value is ``none`` or ``KEY=value`` items split by commas or blanks; a key is matched
without case (sge_conf(5) spells ``jsv_timeout`` and ``JSV_TIMEOUT``); a boolean key
alone means true. ``check`` is what ``qconf -mconf``/``-Mconf`` runs (global and
host-local configuration): a key that is in no table, a value that is not of its type,
and any value but the default of a key nothing here implements are refused, saying why,
so that nothing is stored and ignored (docs/compatibility.md, "object qmaster_params" and
"object execd_params"). ``value`` gives the typed value of a key for its users
(qmaster.lost_hosts, qmaster.jsv, qmaster.submit_caps, execd.service, execd.reprioritize).
Pure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from common.conf_values import TRUE_WORDS, FALSE_WORDS, parse_memory, parse_time, split_names
from common.conffile import ConfError
from common.limits import HOST_LIMITS

BOOL, INT, TIME, MEMORY, SIGNAL, TEXT = "bool", "int", "time", "memory", "signal", "text"


@dataclass(frozen=True)
class Key:
    """One key: its name as sge_conf(5) spells it, its type and default (``None``: unset,
    the daemon's own behaviour), and either what uses it (``used_by``) or why no other
    value than ``only`` (the default unless said) is taken (``refused``)."""

    name: str
    type: str
    default: str | None
    used_by: str = ""
    refused: str = ""
    only: str | None = ""  # "": the default
    low: int | None = None  # the smallest INT value taken
    high: int | None = None  # the largest

    @property
    def accepted(self) -> str | None:
        """The one value a refused key takes (None: none at all)."""
        return self.default if self.only == "" else self.only


def _used(name: str, vtype: str, default: str | None, used_by: str,
          low: int | None = None) -> Key:
    return Key(name, vtype, default, used_by=used_by, low=low)


def _refused(name: str, vtype: str, default: str | None, why: str,
             only: str | None = "") -> Key:
    return Key(name, vtype, default, refused=why, only=only)


_NO_GSSAPI = "there is no GSSAPI security feature (docs/security.md: MUNGE or the cell's keys)"
_NO_PROFILING = "there is no per-thread profiling; the daemons log with structlog"
_OWN_COMM = "the daemons talk ZMTP, not Grid Engine's commlib: there is no GDI timeout or ping"

QMASTER_KEYS: tuple[Key, ...] = (
    _used("ENABLE_RESCHEDULE_KILL", BOOL, "false", "qmaster/lost_hosts.py"),
    _used("ENABLE_RESCHEDULE_SLAVE", BOOL, "false", "qmaster/lost_hosts.py"),
    _used("DISABLE_AUTO_RESCHEDULING", BOOL, "false", "qmaster/lost_hosts.py"),
    _used("JSV_TIMEOUT", INT, "10", "qmaster/jsv.py", low=1),
    _used("MAX_SCRIPT_SIZE", MEMORY, "4M", "qmaster/submit_caps.py (ours)"),
    _used("MAX_USER_SPOOL", MEMORY, "100M", "qmaster/submit_caps.py (ours)"),
    # ours (issue 30): the qmaster's /metrics endpoint, off while the port is 0
    Key("METRICS_PORT", INT, "0", used_by="qmaster/metrics.py (ours)", low=0, high=65535),
    _used("METRICS_BIND", TEXT, "127.0.0.1", "qmaster/metrics.py (ours)"),
    _used("ENABLE_FORCED_QDEL", BOOL, "false", "qmaster/jobs.py"),
    _used("ENABLE_FORCED_QDEL_IF_UNKNOWN", BOOL, "false", "qmaster/jobs.py"),
    _refused("ENABLE_ENFORCE_MASTER_LIMIT", BOOL, "false",
             "the qmaster does not enforce s_rt/h_rt of jobs on unknown hosts"),
    _used("FORBID_RESCHEDULE", BOOL, "false", "qmaster/start_spec.py, execd/jobdir.py"),
    _used("FORBID_APPERROR", BOOL, "false", "qmaster/start_spec.py, execd/jobdir.py"),
    _refused("MAX_DYN_EC", INT, "1000",
             "qsub -sync y and DRMAA wait with a request, not a dynamic event client"),
    _refused("MONITOR_TIME", TIME, "0", _NO_PROFILING),
    _refused("LOG_MONITOR_MESSAGE", BOOL, "true", _NO_PROFILING),
    *(_refused(f"PROF_{part}", BOOL, "false", _NO_PROFILING)
      for part in ("SIGNAL", "WORKER", "LISTENER", "DELIVER", "TEVENT", "SCHEDULER")),
    _refused("STREE_SPOOL_INTERVAL", TIME, "00:04:00",
             "share tree usage is spooled with every change"),
    _refused("MAX_JOB_DELETION_TIME", INT, "3", "a qdel is done in one request"),
    _refused("gdi_timeout", INT, "60", _OWN_COMM),
    _refused("gdi_retries", INT, "0", _OWN_COMM),
    _refused("cl_ping", BOOL, "false", _OWN_COMM),
    _refused("SCHEDULER_TIMEOUT", INT, "600",
             "the scheduler is a process of its own that reconnects by itself"),
    _refused("jsv_threshold", INT, "5000", "the JSV's answer times are not logged"),
    _refused("OLD_RESCHEDULE_BEHAVIOR", BOOL, "false",
             "a rescheduled job is queued as 8.1.9 does by default"),
    _refused("OLD_RESCHEDULE_BEHAVIOR_ARRAY_JOB", BOOL, "false",
             "a rescheduled task is queued as 8.1.9 does by default"),
    _refused("SIMULATE_EXECDS", BOOL, "false", "there are no simulated execution hosts"),
    _refused("NO_AUTHENTICATION", BOOL, "false", _NO_GSSAPI),
    _refused("NO_SECURITY", BOOL, "false", _NO_GSSAPI),
    _refused("ENABLE_MTRACE", BOOL, "false", "a Python daemon has no GNU malloc trace"),
    _refused("__TEST_SLEEP_AFTER_REQUEST", BOOL, "false", "8.1.9's test suite only"),
    _refused("print_malloc_info", BOOL, "false", "a Python daemon has no jemalloc"),
)

# the host limits of the one table of limits (common.limits), as execd_params keys
_LIMIT_KEYS = tuple(limit.name.upper() for limit in HOST_LIMITS)

EXECD_KEYS: tuple[Key, ...] = (
    _used("PTF_MIN_PRIORITY", INT, "-999", "execd/reprioritize.py"),
    _used("PTF_MAX_PRIORITY", INT, "-999", "execd/reprioritize.py"),
    _used("LOAD_PLUGINS", TEXT, None, "execd/service.py (ours)"),
    *(_used(name, MEMORY, None, "execd/rlimits.py") for name in _LIMIT_KEYS),
    _used("NOTIFY_KILL", SIGNAL, "USR2", "execd/control.py"),
    _used("NOTIFY_SUSP", SIGNAL, "USR1", "execd/control.py"),
    _used("KEEP_ACTIVE", BOOL, "false", "execd/service.py"),
    _refused("INHERIT_ENV", BOOL, "true",
             "a job never gets the execd's own environment (docs: A job's environment)",
             only="false"),
    _refused("SET_LIB_PATH", BOOL, "false", "there is no Grid Engine shared library directory"),
    _refused("ACCT_RESERVED_USAGE", BOOL, "false", "accounting has the measured usage"),
    _refused("SHARETREE_RESERVED_USAGE", BOOL, "false", "the share tree has the measured usage"),
    _used("USE_QSUB_GID", BOOL, "false", "execd/service.py"),
    # (sge_conf(5): "The default value is on")
    _refused("ENABLE_ADDGRP_KILL", BOOL, "true",
             "the processes a job leaves behind are always ended with it, found by "
             "process tree (the shepherd is their subreaper) and cgroup"),
    _refused("IGNORE_NGROUPS_MAX_LIMIT", BOOL, "false",
             "the additional group id (gid_range) is always given: an owner with "
             "NGROUPS_MAX groups fails the job's start, as by 8.1.9's default"),
    _refused("ENABLE_BINDING", BOOL, "false", "core binding (qsub -binding) is not offered"),
    _refused("PDC_INTERVAL", TIME, "1", "the shepherd measures its job once a second"),
    _refused("USE_SMAPS", BOOL, "false", "memory usage is read from /proc/PID/status"),
    _refused("USE_CGROUPS", BOOL, "false",
             "the execd uses cgroups v2 where it may unless started with --cgroups off "
             "(docs: cgroups)", only=None),
    _refused("DEMAND_LS", BOOL, "true", "load sensors are asked at each load report"),
    _refused("SIMULATE_JOBS", BOOL, "false", "jobs always run"),
    _refused("NO_AUTHENTICATION", BOOL, "false", _NO_GSSAPI),
    _refused("DO_AUTHENTICATION", BOOL, "false", _NO_GSSAPI),
    _refused("NO_SECURITY", BOOL, "false", _NO_GSSAPI),
    _refused("USE_SYSLOG", BOOL, "false", "the execd logs to its log file (structlog)"),
    _refused("USE_QIDLE", BOOL, "false", "no qidle load sensor is shipped"),
    _refused("PROF_EXECD", BOOL, "false", _NO_PROFILING),
    _refused("ENABLE_WINDOMACC", BOOL, "false", "there are no Windows hosts"),
    _refused("print_malloc_info", BOOL, "false", "a Python daemon has no jemalloc"),
)

TABLES: dict[str, tuple[Key, ...]] = {"qmaster_params": QMASTER_KEYS,
                                      "execd_params": EXECD_KEYS}
_BY_NAME: dict[str, dict[str, Key]] = {
    attr: {key.name.upper(): key for key in keys} for attr, keys in TABLES.items()}


def parse(text: str) -> dict[str, str]:
    """``A=1,B=true C`` (or ``none``) as upper-case key -> value as written ("" for a key
    alone); the last of a repeated key counts."""
    out: dict[str, str] = {}
    for item in split_names(text or "none"):
        name, _, value = item.partition("=")
        if name.strip():
            out[name.strip().upper()] = value.strip()
    return out


def with_key(text: str, name: str, given: str | None) -> str:
    """A ``qmaster_params``/``execd_params`` value with key ``name`` set to ``given``
    (None: removed), the other items kept as written and in their order."""
    items = [item for item in split_names(text or "none")
             if item.partition("=")[0].strip().upper() != name.upper()]
    if given is not None:
        items.append(f"{name}={given}")
    return ",".join(items) or "none"


def typed(key: Key, text: str) -> bool | int | float | str | None:
    """The value ``text`` of ``key`` read by the parser of its type (ValueError saying
    what it is not): bool, int, seconds, bytes (``math.inf`` for INFINITY), a signal
    number (None for ``none``) or the text."""
    if key.type == BOOL:
        word = text.strip().lower() or "true"
        if word in TRUE_WORDS or word in FALSE_WORDS:
            return word in TRUE_WORDS
        raise ValueError("not a boolean (true or false)")
    if key.type == INT:
        try:
            number = int(text)
        except ValueError:
            raise ValueError("not a number") from None
        if key.low is not None and number < key.low:
            raise ValueError(f"less than {key.low}")
        if key.high is not None and number > key.high:
            raise ValueError(f"more than {key.high}")
        return number
    if key.type in (TIME, MEMORY):
        try:
            return (parse_time if key.type == TIME else parse_memory)(text, key.name)
        except ConfError as err:
            raise ValueError(str(err)) from None
    if key.type == SIGNAL:
        from common.objects_conf.ckpt import signal_number
        try:
            return signal_number(text.strip())
        except ValueError:
            raise ValueError("not a signal name (like HUP, INT, USR1, ..) or none") from None
    return text


def value(attr: str, params: str, name: str) -> bool | int | float | str | None:
    """The typed value of key ``name`` of ``attr`` (``qmaster_params`` or
    ``execd_params``) in the configured ``params``: its default when unset or not of its
    type (a spool from before the check), None for a key unset without default."""
    key = _BY_NAME[attr][name.upper()]
    given = parse(params).get(key.name.upper())
    if given is not None:
        try:
            return typed(key, given)
        except ValueError:
            pass
    return None if key.default is None else typed(key, key.default)


def _same(key: Key, text: str, other: str | None) -> bool:
    if other is None:
        return False
    try:
        return typed(key, text) == typed(key, other)
    except ValueError:
        return False


def check(attr: str, text: str) -> None:
    """``qconf -mconf``'s check of a ``qmaster_params``/``execd_params`` value: ConfError
    naming the first key that is unknown, of the wrong type, or not implemented."""
    table = _BY_NAME[attr]
    for upper, given in parse(text).items():
        key = table.get(upper)
        if key is None:
            raise ConfError(f'{attr} "{upper}" is unknown: this version knows only '
                            + ", ".join(k.name for k in TABLES[attr]))
        try:
            typed(key, given)
        except ValueError as err:
            raise ConfError(f'{attr} "{key.name}={given}": {err}') from None
        if key.refused and not _same(key, given, key.accepted):
            only = (f'only "{key.accepted}" is accepted' if key.accepted is not None
                    else "no value is accepted")
            raise ConfError(f'{attr} "{key.name}={given}" is not supported: {key.refused}; '
                            f"{only}")


def keys_of(attr: str) -> Mapping[str, Key]:
    """Upper-case name -> Key of ``attr``'s table."""
    return _BY_NAME[attr]


def job_settings(execd_params: str) -> dict[str, object]:
    """What the execd gives every job it starts from its ``execd_params``: the host
    limits (``host_limits``: name -> figure, the missing side of a pair set to the
    other) and the ``-notify`` signals (``notify_signals``: action -> signal number, 0
    for ``none``)."""
    from common import limits
    given = {}
    for limit in HOST_LIMITS:
        figure = value("execd_params", execd_params, limit.name)
        if isinstance(figure, float):  # (INFINITY as the figure from which none is set)
            given[limit.name] = min(limits.bound(figure), limits.UNLIMITED_FROM)
    signals = {action: value("execd_params", execd_params, key) or 0
               for action, key in (("terminate", "NOTIFY_KILL"), ("suspend", "NOTIFY_SUSP"))}
    return {"host_limits": limits.host_limits(given), "notify_signals": signals}


def keep_active(execd_params: str) -> bool:
    """execd_params KEEP_ACTIVE: keep a job's directory once its end is reported."""
    return value("execd_params", execd_params, "KEEP_ACTIVE") is True


def primary_group(execd_params: str, submit_ids: tuple[int, str],
                  passwd_gid: int | None, group_name: Callable[[int], str | None]
                  ) -> tuple[int, str]:
    """(gid, group name) a job runs with (sge_conf(5) USE_QSUB_GID): the primary group
    it was submitted with when set, else its owner's primary group in the execution
    host's passwd database (``passwd_gid``; None: the owner has no entry there, and the
    submit group stays)."""
    if value("execd_params", execd_params, "USE_QSUB_GID") is True or passwd_gid is None:
        return submit_ids
    return passwd_gid, group_name(passwd_gid) or str(passwd_gid)
