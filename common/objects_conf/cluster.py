"""Cluster-wide objects: the global/host configuration (``sge_conf(5)``), parallel
environments (``sge_pe(5)``) and the scheduler configuration (``sched_conf(5)``).

Owns their attribute lists in Grid Engine's order, the defaults of a fresh 8.1.9 cell and
the checks of their values, and which value of the cluster configuration holds for a
host (``local_conf_value``: a host-local configuration's over the global one, for the
parameters sge_conf(5) lets a host-local configuration set).
"""
from __future__ import annotations

import math
import re
from typing import Callable, Mapping, Sequence

from common.conf_values import (Check, check_assignments, check_bool, check_choice,
                                check_double6, check_names, check_none_string, check_string,
                                check_time, check_ulong, check_ulong_range, either, parse_bool,
                                parse_double, parse_memory, parse_time, seconds_or,
                                split_assignments)
from common import conf_params
from common.conffile import ConfError, Pairs, ValueCheckError, render_conf
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.project import check_u_long32
from common.objects_conf.queue import SLOTS_MAX, check_object_name
from common.sched_info import check_schedd_job_info
from common.sched_params import check_sched_params

_RANGES = re.compile(r"^[0-9]+(-[0-9]+)?([ ,][0-9]+(-[0-9]+)?)*$")


def keep(check: Check) -> Check:
    """The cluster configuration stores values as typed: check, then keep the text."""
    def checked(name: str, value: str) -> str:
        check(name, value)
        return value.strip()
    checked.__wrapped__ = check  # type: ignore[attr-defined]  # (-fmt json types by it)
    return checked


def check_none(name: str, value: str) -> str:
    if value.strip().lower() != "none":
        raise ConfError(f'error parsing value "{value}"')
    return value.strip()


def check_absolute_path(name: str, value: str) -> str:
    text = check_string(name, value)
    if not text.startswith("/"):
        raise ConfError(f'denied: the path given for "{name}" must start with a "/"')
    return text


def check_bool_word(name: str, value: str) -> str:
    parse_bool(value)
    return value.strip()


def check_ranges(name: str, value: str) -> str:
    text = check_string(name, value)
    if not _RANGES.match(text) or not gid_ranges(text):
        raise ConfError(f'Error during parsing of attribute value "{text}"')
    return text


def gid_ranges(text: str) -> list[tuple[int, int]]:
    """sge_conf(5) ``gid_range`` (``65400-65500``, ``20000,20010-20020``) as (first, last)
    ranges; [] when it is none (a range whose end is below its start is none)."""
    if not _RANGES.match(text.strip()):
        return []
    out = []
    for item in re.split("[ ,]", text.strip()):
        first, _, last = item.partition("-")
        low, high = int(first), int(last or first)
        if high >= low:
            out.append((low, high))
    return out


def free_gid(ranges: Sequence[tuple[int, int]], used: set[int]) -> int | None:
    """The first group id of ``ranges`` not ``used`` (None: all are)."""
    for low, high in ranges:
        for gid in range(low, high + 1):
            if gid not in used:
                return gid
    return None


# sge_conf(5)'s remote commands of qrsh, qlogin and qrsh -inherit and their daemons:
# only Grid Engine's builtin transport (common.builtin_session) is offered, so another
# value (ssh, rshd, telnetd ...) is refused rather than stored and ignored
# (docs/compatibility.md)
TRANSPORT_PARAMS = ("qlogin_command", "qlogin_daemon", "rlogin_command", "rlogin_daemon",
                    "rsh_command", "rsh_daemon")


def check_builtin(name: str, value: str) -> str:
    text = check_string(name, value)
    if text.lower() != "builtin":
        raise ConfError(f'attribute {name} "{text}" is not supported: this version has only '
                        "the builtin transport of qrsh and qlogin (only builtin)")
    return text


_TF = ("true", "false")
_ULONG_CONF = ("min_uid", "min_gid", "finished_jobs", "max_aj_instances", "max_aj_tasks",
               "max_u_jobs", "max_jobs", "auto_user_oticket", "auto_user_fshare",
               "auto_user_delete_time", "max_advance_reservations")
_TIME_CONF = ("load_report_time", "max_unheard", "reschedule_unknown")

_GLOBAL_DEFAULTS = (
    ("execd_spool_dir", "/var/spool/gridengine/execd"), ("mailer", "/usr/bin/mail"),
    ("xterm", "/usr/bin/xterm"), ("load_sensor", "none"), ("prolog", "none"),
    ("epilog", "none"), ("shell_start_mode", "posix_compliant"),
    ("login_shells", "bash,sh,ksh,csh,tcsh"), ("min_uid", "1000"), ("min_gid", "1000"),
    ("user_lists", "none"), ("xuser_lists", "none"), ("projects", "none"),
    ("xprojects", "none"), ("enforce_project", "false"), ("enforce_user", "auto"),
    ("load_report_time", "00:00:40"), ("max_unheard", "00:05:00"),
    ("reschedule_unknown", "00:00:00"), ("loglevel", "log_warning"),
    ("administrator_mail", "root"), ("set_token_cmd", "none"), ("pag_cmd", "none"),
    ("token_extend_time", "none"), ("shepherd_cmd", "none"), ("qmaster_params", "none"),
    ("execd_params", "none"),
    ("reporting_params", "accounting=true reporting=false flush_time=00:00:15 joblog=false "
                         "sharelog=00:00:00"),
    ("finished_jobs", "100"), ("gid_range", "65400-65500"), ("qlogin_command", "builtin"),
    ("qlogin_daemon", "builtin"), ("rlogin_command", "builtin"), ("rlogin_daemon", "builtin"),
    ("rsh_command", "builtin"), ("rsh_daemon", "builtin"), ("max_aj_instances", "2000"),
    ("max_aj_tasks", "75000"), ("max_u_jobs", "0"), ("max_jobs", "0"),
    ("auto_user_oticket", "0"), ("auto_user_fshare", "0"),
    ("auto_user_default_project", "none"), ("auto_user_delete_time", "86400"),
    ("delegated_file_staging", "false"), ("reprioritize", "0"), ("jsv_url", "none"),
    ("jsv_allowed_mod", "ac,h,i,e,o,j,M,N,p,w"),
)

def check_params(name: str, value: str) -> str:
    """qconf -mconf: ``qmaster_params``/``execd_params`` keys of their table, each of its
    type, and only the default of a key nothing here implements (common.conf_params)."""
    text = check_string(name, value)
    conf_params.check(name, text)
    return text


def _only(accepted: str, same: Callable[[str], bool], why: str) -> Check:
    """A parameter whose only working value is ``accepted``: another one would be
    stored and do nothing, so it is refused, saying why."""
    def check(name: str, value: str) -> str:
        text = check_string(name, value)
        if not same(text):
            raise ConfError(f'{name} "{text}": {why}; only "{accepted}" is accepted')
        return text
    return check


# sge_conf(5) parameters that nothing here implements: only their default is taken, any
# other value refused saying why (docs/compatibility.md, "object sge_conf")
DEFAULT_ONLY: dict[str, str] = {
    "set_token_cmd": "AFS tokens are not supported",
    "pag_cmd": "AFS process authentication groups are not supported",
    "token_extend_time": "AFS tokens are not supported",
    "delegated_file_staging": "DRMAA file staging is not offered",
    "loglevel": "the daemons log at the level of their --log-level option",
}


def check_jsv_url(name: str, value: str) -> str:
    """``[script:][user@]/path`` or none (common.jsv), refused in 8.1.9's words."""
    from common.jsv import JsvError, parse_url
    text = check_string(name, value)
    try:
        parse_url(text, client=False)
    except JsvError as err:
        raise ConfError(str(err)) from None
    return text


def check_jsv_allowed_mod(name: str, value: str) -> str:
    """A comma list of qalter's switch names (l_hard, N, pe_name ...), or none."""
    text = check_string(name, value)
    if not all(re.fullmatch(r"[A-Za-z][A-Za-z_]*", item.strip())
               for item in text.split(",")):
        raise ConfError(f'error parsing value "{text}"')
    return text


def check_reporting_params(name: str, value: str) -> str:
    """accounting, reporting, flush_time, joblog, sharelog (common.reporting)."""
    from common.reporting import parse_params
    text = check_string(name, value)
    parse_params(text)
    return text


_GLOBAL_CHECKS: dict[str, Check] = {
    **{name: keep(check_ulong) for name in _ULONG_CONF},
    **{name: keep(check_time) for name in _TIME_CONF},
    "shell_start_mode": keep(check_choice(("unix_behavior", "posix_compliant", "script_from_stdin"),
                                          'Invalid value "{value}" as shell start mode')),
    "enforce_project": keep(check_choice(_TF, 'error parsing value "{value}"')),
    "enforce_user": keep(check_choice(_TF + ("auto",), 'error parsing value "{value}"')),
    "delegated_file_staging": keep(check_choice(_TF, 'error parsing value "{value}"')),
    "loglevel": keep(check_choice(("log_err", "log_warning", "log_info"),
                                  'error parsing value "{value}"')),
    "token_extend_time": either(check_none, keep(check_time)),
    "gid_range": check_ranges,
    "reprioritize": check_bool_word,
    "qmaster_params": check_params,
    "execd_params": check_params,
    "jsv_url": check_jsv_url,
    "jsv_allowed_mod": check_jsv_allowed_mod,
    "reporting_params": check_reporting_params,
    "shepherd_cmd": either(check_none, check_absolute_path),
    **{name: check_builtin for name in TRANSPORT_PARAMS},
}

def _global_check(name: str, default: str) -> Check:
    check = _GLOBAL_CHECKS.get(name, check_string)
    why = DEFAULT_ONLY.get(name)
    if why is None:
        return check
    refuse = _only(default, lambda text: text.lower() == default.lower(), why)

    def checked(attr: str, value: str) -> str:
        return refuse(attr, check(attr, value))
    checked.__wrapped__ = getattr(check, "__wrapped__", check)  # type: ignore[attr-defined]
    return checked


GLOBAL_CONF = ObjectKind(
    name="conf",
    width=28,
    raw_values=True,
    attrs=tuple(Attr(name, default, _global_check(name, default), required=False)
                for name, default in _GLOBAL_DEFAULTS) + (
        # absent from a new 8.1.9 cell's configuration and from templates (0: no limit),
        # shown once set (tests/data/reference/ar/qconf-sconf-max.out)
        Attr("max_advance_reservations", "0", _GLOBAL_CHECKS["max_advance_reservations"],
             required=False, read_only=True),),
)


# The parameters whose global value "may be overwritten by the execution host local
# configuration" (sge_conf(5), each parameter's paragraph). 8.1.9 accepts any parameter
# in a local configuration and shows it (tests/data/reference/hostconf/Aconf-param-*),
# but uses only these from it: a local max_u_jobs 1 limits nobody (effect-qsub-*).
LOCAL_PARAMS = frozenset({
    "execd_spool_dir", "mailer", "xterm", "load_sensor", "prolog", "epilog",
    "user_lists", "xuser_lists", "load_report_time", "reschedule_unknown",
    "set_token_cmd", "pag_cmd", "token_extend_time", "shepherd_cmd", "gid_range",
    "execd_params", "qlogin_daemon", "qlogin_command", "rlogin_daemon", "rlogin_command",
    "rsh_daemon", "rsh_command", "libjvm_path", "additional_jvm_args",
})
GLOBAL_CONF_NAME = "global"


def local_conf_value(conf: Mapping[str, Mapping[str, Sequence[Sequence[str]]]], host: str,
                     name: str, default: str) -> str:
    """The value of cluster configuration parameter ``name`` for ``host``: its host-local
    configuration's when it sets one that a local configuration may set
    (``LOCAL_PARAMS``), else the global configuration's, else ``default``.

    ``conf`` is the cell's configuration by kind (the qmaster's ``store.conf``, the
    scheduler's mirror): ``conf["conf"]`` holds "global" and the host-local
    configurations. The host's configuration is found by its name as the cell spells it,
    else case-insensitively, else by short name against a fully qualified one."""
    confs = conf.get("conf", {})
    if name in LOCAL_PARAMS and host and host != GLOBAL_CONF_NAME:
        local = _host_conf(confs, host)
        found = _value(local, name)
        if found is not None:
            return found
    found = _value(confs.get(GLOBAL_CONF_NAME), name)
    return default if found is None else found


def _host_conf(confs: Mapping[str, Sequence[Sequence[str]]],
               host: str) -> Sequence[Sequence[str]] | None:
    name = host_conf_name(confs, host)
    return None if name is None else confs[name]


def host_conf_name(confs: Mapping[str, object], host: str) -> str | None:
    """The name the host's local configuration is stored under: as spelt, else without
    case, else a short name against a fully qualified one (None: it has none)."""
    if host in confs:
        return host
    low = host.lower()
    short = low.split(".", 1)[0]
    for key in confs:
        other = key.lower()
        if key == GLOBAL_CONF_NAME:
            continue
        if other == low or (("." not in other or "." not in low)
                            and other.split(".", 1)[0] == short):
            return key
    return None


def _value(pairs: Sequence[Sequence[str]] | None, name: str) -> str | None:
    return next((value for key, value in pairs or () if key == name), None)


def render_configuration(config_name: str, pairs: Pairs, *, wrap: bool = True) -> str:
    """``qconf -sconf [host]``: a ``#name:`` line, the attributes, then an empty line."""
    known = {name for name in GLOBAL_CONF.names}
    for name, _ in pairs:
        if name not in known:
            raise ConfError(f'unknown attribute name "{name}"')
    order = {name: i for i, name in enumerate(GLOBAL_CONF.names)}
    ordered = sorted(pairs, key=lambda pair: order[pair[0]])
    return f"#{config_name}:\n" + render_conf(ordered, width=GLOBAL_CONF.width, wrap=wrap) + "\n"


# --- parallel environments ------------------------------------------------------------

ALLOCATION_RULES = ("$pe_slots", "$fill_up", "$round_robin")
URGENCY_SLOTS = ("min", "max", "avg")


def check_allocation_rule(pe_name: str, value: str) -> str:
    text = value.strip()
    if text.lower() in ALLOCATION_RULES:
        return text.lower()
    if text.isdigit() and int(text) > 0:
        return str(int(text))
    raise ConfError(f'parameter allocation_rule of pe "{pe_name}": "{text}" is neither a '
                    f"positive number nor one of {', '.join(ALLOCATION_RULES)}")


def check_urgency_slots(name: str, value: str) -> str:
    text = check_string(name, value)
    if text.lower() in URGENCY_SLOTS:
        return text.lower()
    if text.isdigit():
        return str(int(text))
    raise ConfError(f'rejecting invalid urgency_slots setting "{text}"')


def check_qsort_args(name: str, value: str) -> str:
    """NONE only: sge_pe(5) ``qsort_args`` names a shared library function that would sort
    a parallel job's queue instances; this version loads no such library (the pass orders
    them by ``queue_sort_method``), so another value is refused rather than stored unused."""
    text = check_none_string(name, value)
    if text != "NONE":
        raise ConfError(f'attribute {name} "{text}" is not supported: this version loads no '
                        "queue sort library (only NONE)")
    return text


def _check_pe(values: dict[str, str]) -> None:
    if "allocation_rule" in values:
        values["allocation_rule"] = check_allocation_rule(values.get("pe_name", ""),
                                                          values["allocation_rule"])


PE = ObjectKind(
    name="pe",
    key="pe_name",
    width=18,
    object_check=_check_pe,
    attrs=(
        Attr("pe_name", "template", check_object_name),
        Attr("slots", "0", check_ulong_range(0, SLOTS_MAX)),
        Attr("user_lists", "NONE", check_names),
        Attr("xuser_lists", "NONE", check_names),
        Attr("start_proc_args", "NONE", check_none_string),
        Attr("stop_proc_args", "NONE", check_none_string),
        Attr("allocation_rule", "$pe_slots", check_string),
        Attr("control_slaves", "FALSE", check_bool),
        Attr("job_is_first_task", "TRUE", check_bool),
        Attr("urgency_slots", "min", check_urgency_slots),
        Attr("accounting_summary", "FALSE", check_bool),
        Attr("qsort_args", "NONE", check_qsort_args),
    ),
)


# --- scheduler configuration ----------------------------------------------------------

def check_weight_list(name: str, value: str) -> str:
    """``cpu=1,mem=0,io=0`` shown with six decimals."""
    items = split_assignments(check_assignments(name, value))
    return ",".join(f"{item}={parse_double(val, name):.6f}" for item, val in items) or "NONE"


def check_default_duration(name: str, value: str) -> str:
    """A time, kept as typed (``INFINITY`` in capitals), in 8.1.9's words when it is not
    one (tests/data/reference/reservation/msconf-dd-*)."""
    text = value.strip()
    try:
        return check_time(name, text)
    except ConfError:
        pass
    try:
        negative = text.startswith("-") and parse_time(text[1:], name) >= 0
    except ConfError:
        negative = False
    why = "Error! value not positive" if negative else "time value"
    raise ValueCheckError(f'attribute "{name}" is not a {why}')


def _check_sched(values: dict[str, str]) -> None:
    """Reservation plans with every job's duration: sched_conf(5) default_duration 0 would
    make a job without h_rt/s_rt end as it starts, so 8.1.9 refuses it while
    max_reservation is on (and takes it while it is 0)."""
    reserving = values.get("max_reservation", "0") not in ("", "0")
    duration = values.get("default_duration", "INFINITY")
    if reserving and seconds_or(duration, math.inf) == 0:
        raise ValueCheckError("denied: resource reservation requires valid default duration")


def check_policy(name: str, value: str) -> str:
    text = check_string(name, value).upper()
    if text == "NONE" or (set(text) <= set("OFS") and len(set(text)) == len(text)):
        return text
    raise ConfError(f'Error during parsing of attribute value "{value.strip()}"')


_NOT_BUILT = {
    # sched_conf(5): "Currently default is the only allowed setting"
    "algorithm": _only("default", lambda v: v == "default",
                       "default is the only scheduling algorithm"),
}

_SCHED = (
    ("algorithm", "default", _NOT_BUILT["algorithm"]), ("schedule_interval", "0:0:15", check_time),
    ("maxujobs", "0", check_ulong),
    ("queue_sort_method", "load", check_choice(("load", "seqno"), 'error parsing value "{value}"')),
    ("job_load_adjustments", "np_load_avg=0.50", check_assignments),
    ("load_adjustment_decay_time", "0:7:30", check_time),
    ("load_formula", "np_load_avg", check_string),
    ("schedd_job_info", "true", check_schedd_job_info),
    ("flush_submit_sec", "0", check_ulong), ("flush_finish_sec", "0", check_ulong),
    ("params", "none", check_sched_params),
    ("reprioritize_interval", "0:0:0", check_time),
    ("halftime", "168", check_ulong),
    ("usage_weight_list", "cpu=1.000000,mem=0.000000,io=0.000000", check_weight_list),
    ("compensation_factor", "5.000000", check_double6),
    ("weight_user", "0.250000", check_double6), ("weight_project", "0.250000", check_double6),
    ("weight_department", "0.250000", check_double6), ("weight_job", "0.250000", check_double6),
    ("weight_tickets_functional", "0", check_ulong), ("weight_tickets_share", "0", check_ulong),
    ("share_override_tickets", "TRUE", check_bool), ("share_functional_shares", "TRUE", check_bool),
    ("max_functional_jobs_to_schedule", "200", check_ulong),
    ("report_pjob_tickets", "TRUE", check_bool), ("max_pending_tasks_per_job", "50", check_ulong),
    ("halflife_decay_list", "none", check_string), ("policy_hierarchy", "OFS", check_policy),
    ("weight_ticket", "0.500000", check_double6),
    ("weight_waiting_time", "0.278000", check_double6),
    ("weight_deadline", "3600000.000000", check_double6),
    ("weight_urgency", "0.500000", check_double6), ("weight_priority", "0.000000", check_double6),
    ("max_reservation", "0", check_u_long32),
    ("default_duration", "INFINITY", check_default_duration),
)

SCHED_CONF = ObjectKind(name="sched", width=33, object_check=_check_sched,
                        attrs=tuple(Attr(name, default, check) for name, default, check in _SCHED))
