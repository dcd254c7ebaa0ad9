"""What a task runs with: the one record of the start message and of the spec file.

The qmaster builds the record (``qmaster.start_spec.start_spec`` through ``message``),
sends it in ``start_job`` (whose wire schema is ``message_schema``: ``common.wire`` has no
description of its own), the execd adds its own fields (``EXECD``: whether to switch to
the job owner, the job's cgroup, its notify socket, the start time) and writes it to the
job directory without the script (``execd.jobdir.write_spec``), and the shepherd reads it
back checked, with every optional field at its default (``execd.jobdir.read_spec``, through
``read_file``). ``FIELDS`` is the table: one row per field with its shape, whether it is
required (``REQUIRED``) or its default, and who sets it:

- ``QMASTER``: in the message and in the file;
- ``MESSAGE``: in the message only (the script, which the execd stores in its own file);
- ``EXECD``: added by the execd (``execd.service._start_job``), in the file only. Some of
  them no component sets yet (``cell``, ``account``, ...): the shepherd uses Grid
  Engine's defaults for them.

A spec file written before a field was added still reads (the field takes its default);
a file that lacks a required field or carries a value of the wrong shape is refused with
``SpecError`` naming the field, and the shepherd fails the job (``failed 1``). A field
added to the spec anywhere must be added here first: unknown fields are refused.
Pure: shapes are ``common.schema`` objects, built on first use.
"""
from __future__ import annotations

from common.limits import HOST_LIMIT_NAMES, LIMIT_NAMES
from common.schema import (Bool, Bytes, Float, Int, ListOf, MapOf, Optional, Schema,
                           SchemaError, Str, Struct, Tuple)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

QMASTER, MESSAGE, EXECD = "qmaster", "message", "execd"
REQUIRED = object()  # the default of a field that must be given
DEFAULT_LOGIN_SHELLS = ("bash", "sh", "ksh", "csh", "tcsh")  # sge_conf(5) login_shells
MAX_LIMIT_FIGURE = 1e30  # what a spec's limit may hold (common.limits.bound caps it lower)


class SpecError(ValueError):
    """A spec (message or file) that does not fit the record; ``str`` names the field."""


def _shapes() -> dict[str, Schema]:
    """The shape of every field (built once, on first use)."""
    from common.jobspec import MAX_NAME, MAX_PE_SLOTS, session_schema
    from common.wire import MAX_UID, _host, _job_id, _name, _path, _seconds, _task_id
    return {
        "job_id": _job_id(), "task_id": Optional(_task_id()), "job_name": _name(),
        "owner": _name(), "uid": Int(0, MAX_UID), "gid": Int(0, MAX_UID), "group": _name(),
        "binary": Bool(), "command": Str(max_len=1 << 16),
        "args": ListOf(Str(), max_items=65536), "script": Optional(Bytes()),
        "shell": Str(max_len=4096), "shell_start_mode": Str(max_len=64),
        "cwd": _path(), "stdout_path": _path(), "stderr_path": _path(), "merge": Bool(),
        "stdin_path": _path(),
        "env": MapOf(Str(max_len=4096, nonempty=True), Optional(Str())),
        "sge_o": MapOf(Str(max_len=64, nonempty=True), Str(max_len=1 << 16)),
        "queue": Str(max_len=4096, nonempty=True), "host": _host(),
        "slots": Int(1, MAX_PE_SLOTS), "nhosts": Int(1, 1 << 20),
        "array": Optional(Tuple((_task_id(), _task_id(), _task_id()))),
        "pe": Optional(Str(max_len=MAX_NAME)), "pe_hostfile": Optional(Str()),
        "tmpdir_base": Str(max_len=4096, nonempty=True),
        "umask": Int(0, 0o777),
        # seconds or bytes per limit name (common.limits); an absent limit is no limit
        "limits": MapOf(Str(choices=LIMIT_NAMES), Float(0.0, MAX_LIMIT_FIGURE),
                        max_items=32),
        "notify_job": Bool(), "notify": Float(0.0, 1e9), "dispatched": _seconds(),
        "restarted": Int(0, 1), "priority": Int(-20, 20),
        "processors": _path(), "prolog": _path(), "epilog": _path(),
        "pe_start_proc_args": _path(), "pe_stop_proc_args": _path(),
        "starter_method": _path(), "suspend_method": _path(), "resume_method": _path(),
        "terminate_method": _path(),
        "login_shells": ListOf(Str(max_len=256), max_items=256),
        # the execd's
        "switch_user": Bool(), "notify_socket": Optional(Str(max_len=4096)),
        "cgroup": Optional(Struct(required={
            "subtree": Str(max_len=4096, nonempty=True),
            "controllers": ListOf(Str(max_len=64), max_items=64)})),
        "start_time": _seconds(),
        # sge_conf(5) execd_params: the host's limits (common.limits HOST_LIMITS) and the
        # -notify signals (NOTIFY_KILL, NOTIFY_SUSP; 0: none), common.conf_params
        "host_limits": MapOf(Str(choices=HOST_LIMIT_NAMES), Float(0.0, MAX_LIMIT_FIGURE),
                             max_items=16),
        # sge_conf(5) gid_range: the additional group id of the job's processes
        "addgrp": Optional(Int(1, MAX_UID)),
        "notify_signals": MapOf(Str(choices=frozenset({"suspend", "terminate"})),
                                Int(0, 128), max_items=2),
        "cell": Str(max_len=4096, nonempty=True), "account": Str(max_len=MAX_NAME),
        "nqueues": Int(1, 1 << 20), "forbid_reschedule": Bool(), "forbid_apperror": Bool(),
        "sge_root": _path(),
        "session": Optional(session_schema()),
        "pty": Optional(Bool()), "noshell": Bool(),
        "pe_task_id": Optional(Str(max_len=MAX_NAME, nonempty=True)),
        "ckpt": Optional(MapOf(Str(max_len=64, nonempty=True), Str(max_len=1 << 16),
                               max_items=16)),
    }


def _list_of_login_shells() -> list[str]:
    return list(DEFAULT_LOGIN_SHELLS)


# (name, default or REQUIRED, who sets it); a callable default makes a fresh value
FIELDS: tuple[tuple[str, Any, str], ...] = (
    # what to run, as whom
    ("job_id", REQUIRED, QMASTER), ("task_id", REQUIRED, QMASTER),
    ("job_name", REQUIRED, QMASTER), ("owner", REQUIRED, QMASTER),
    ("uid", REQUIRED, QMASTER), ("gid", REQUIRED, QMASTER), ("group", REQUIRED, QMASTER),
    ("binary", REQUIRED, QMASTER), ("command", REQUIRED, QMASTER),
    ("args", REQUIRED, QMASTER), ("script", REQUIRED, MESSAGE),
    ("shell", REQUIRED, QMASTER), ("shell_start_mode", REQUIRED, QMASTER),
    ("cwd", REQUIRED, QMASTER), ("stdout_path", REQUIRED, QMASTER),
    ("stderr_path", REQUIRED, QMASTER), ("merge", REQUIRED, QMASTER),
    ("env", REQUIRED, QMASTER), ("sge_o", REQUIRED, QMASTER),
    # where
    ("queue", REQUIRED, QMASTER), ("host", REQUIRED, QMASTER), ("slots", REQUIRED, QMASTER),
    ("nhosts", REQUIRED, QMASTER), ("array", REQUIRED, QMASTER), ("pe", REQUIRED, QMASTER),
    ("pe_hostfile", REQUIRED, QMASTER), ("tmpdir_base", REQUIRED, QMASTER),
    # with what: the job's limits and the queue instance's execution attributes, resolved
    # for the host (qmaster.start_spec)
    ("umask", 0o022, QMASTER), ("limits", dict, QMASTER), ("notify_job", False, QMASTER),
    ("notify", 60.0, QMASTER), ("dispatched", 0.0, QMASTER), ("restarted", 0, QMASTER),
    ("priority", 0, QMASTER), ("processors", None, QMASTER), ("prolog", None, QMASTER),
    ("epilog", None, QMASTER), ("starter_method", None, QMASTER),
    # sge_pe(5) start_proc_args, stop_proc_args: the job's own (master) task runs them
    ("pe_start_proc_args", None, QMASTER), ("pe_stop_proc_args", None, QMASTER),
    ("suspend_method", None, QMASTER), ("resume_method", None, QMASTER),
    ("terminate_method", None, QMASTER), ("login_shells", _list_of_login_shells, QMASTER),
    # an interactive job's or a qrsh -inherit task's connection back to its client
    # (common.builtin_session): stdin, stdout and stderr go there instead of files
    ("session", None, QMASTER),
    # qrsh(1) -pty y|n (None: a pty for a login session, none for a command) and
    # -noshell (the command without the owner's login shell around it)
    ("pty", None, QMASTER), ("noshell", False, QMASTER),
    # qmaster_params FORBID_RESCHEDULE, FORBID_APPERROR (sge_conf(5)): exit status 99 or
    # 100 of the job (or its prolog, epilog ...) is an ordinary one
    ("forbid_reschedule", False, QMASTER), ("forbid_apperror", False, QMASTER),
    # a parallel task started by qrsh -inherit (sge_pe(5) control_slaves): its id within
    # the job, as accounting's pe_taskid; None for the job's own (master) task
    ("pe_task_id", None, QMASTER),
    # qsub -ckpt: the job's checkpointing (checkpoint(5)), resolved by the qmaster
    # (qmaster.start_spec): interface, ckpt_command, migr_command, ckpt_dir, signal, the
    # job's when letters and the seconds between periodic checkpoints ("interval")
    ("ckpt", None, QMASTER),
    # qsub -i [[host]:]path,...: the job's stdin instead of /dev/null (None: as before)
    ("stdin_path", None, QMASTER),
    # added by the execd
    ("switch_user", REQUIRED, EXECD), ("notify_socket", REQUIRED, EXECD),
    ("cgroup", None, EXECD),  # {"subtree": path, "controllers": [...]}: execd.cgroups
    ("start_time", 0.0, EXECD), ("host_limits", dict, EXECD), ("notify_signals", dict, EXECD),
    ("addgrp", None, EXECD),
    # not set by any component yet: Grid Engine's defaults
    ("cell", "default", EXECD), ("account", "sge", EXECD), ("nqueues", 1, EXECD),
    ("sge_root", None, EXECD),
)
MESSAGE_KEYS = tuple(name for name, _, origin in FIELDS if origin in (QMASTER, MESSAGE))
FILE_KEYS = tuple(name for name, _, origin in FIELDS if origin in (QMASTER, EXECD))
# the spec file's fields, as the shepherd reads them (execd.jobdir)
REQUIRED_KEYS = tuple(name for name, default, _ in FIELDS
                      if name in FILE_KEYS and default is REQUIRED)
OPTIONAL_KEYS: dict[str, Any] = {
    name: default() if callable(default) else default
    for name, default, _ in FIELDS if name in FILE_KEYS and default is not REQUIRED}

_built: dict[str, Struct] = {}


def _struct(keys: tuple[str, ...]) -> Struct:
    shapes = _shapes()
    rows = [(name, default) for name, default, _ in FIELDS if name in keys]
    return Struct(required={n: shapes[n] for n, d in rows if d is REQUIRED},
                  optional={n: (shapes[n], d) for n, d in rows if d is not REQUIRED})


def message_schema() -> Struct:
    """The schema of ``start_job``'s ``spec`` (common.wire)."""
    if "message" not in _built:
        _built["message"] = _struct(MESSAGE_KEYS)
    return _built["message"]


def file_schema() -> Struct:
    """The schema of the spec file the execd writes and the shepherd reads."""
    if "file" not in _built:
        _built["file"] = _struct(FILE_KEYS)
    return _built["file"]


def message(**values: Any) -> dict[str, Any]:
    """The start message's spec from the qmaster's values, in the record's order:
    a field the record does not know, or a required one not given, is a TypeError
    (a qmaster bug, found where it is made rather than by the execd's refusal)."""
    unknown = sorted(set(values) - set(MESSAGE_KEYS))
    if unknown:
        raise TypeError(f"start spec: unknown fields {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for name, default, origin in FIELDS:
        if origin == EXECD:
            continue
        if name in values:
            out[name] = values[name]
        elif default is REQUIRED:
            raise TypeError(f"start spec: missing field {name}")
        else:
            out[name] = default() if callable(default) else default
    return out


def file_spec(spec: Mapping[str, Any], **execd: Any) -> tuple[dict[str, Any], bytes | None]:
    """(the spec file's content, the script) from a checked start message's spec and the
    execd's own fields (``switch_user``, ``notify_socket``, ``cgroup``, ``start_time``):
    what ``execd.service`` writes with ``execd.jobdir.write_spec``. A field that is not
    the execd's is a TypeError."""
    foreign = sorted(name for name in execd if name not in FILE_KEYS
                     or field_origin(name) != EXECD)
    if foreign:
        raise TypeError(f"start spec: not the execd's fields: {', '.join(foreign)}")
    out = {name: value for name, value in spec.items() if name != "script"}
    out.update(execd)
    script = spec.get("script")
    return out, script if isinstance(script, bytes) else None


def check_message(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` checked against the message schema (SpecError naming the field)."""
    return _checked(message_schema(), spec)


def read_file(raw: Any) -> dict[str, Any]:
    """A spec file's content (as unpacked) checked, with the optional fields at their
    defaults: what the shepherd runs with. SpecError names what is wrong."""
    return _checked(file_schema(), raw)


def _checked(schema: Struct, value: Any) -> dict[str, Any]:
    try:
        return schema.check(value, "")
    except SchemaError as err:
        raise SpecError(f"job spec: {err}") from None


def field_origin(name: str) -> str:
    """Who sets field ``name`` (QMASTER, MESSAGE or EXECD); KeyError when unknown."""
    for field, _, origin in FIELDS:
        if field == name:
            return origin
    raise KeyError(name)


def schema_of(name: str) -> Schema:
    """The shape of one field (tests, and readers of a single value)."""
    return _shapes()[name]

