"""Grid Engine 8.1.9's job submission verifier (JSV) protocol, without the I/O.

A JSV is a long-running program that reads commands on its stdin and answers on its
stdout, one line each (8.1.9's sge_jsv_script.c, and $SGE_ROOT/util/resources/jsv/
jsv_include.sh on the script's side). One verification goes:

    -> START                   <- [SEND ENV] STARTED
    -> PARAM name value ...    (the job, read-only ones first: VERSION CONTEXT CLIENT
    -> [ENV ADD name value]     USER GROUP CMDNAME CMDARGS CMDARG<i>, then the options)
    -> BEGIN                   <- [PARAM name value | ENV ADD|MOD|DEL name [value] |
                                   LOG INFO|WARNING|ERROR text]...
                               <- RESULT STATE ACCEPT|CORRECT|REJECT|REJECT_WAIT [text]

This module owns the translation between a job's options (common.jobspec's names) and the
JSV parameters (qsub's switch names, l_hard, pe_min, ...), the ``Exchange`` state machine
of one verification, the parsing of ``jsv_url`` and the ``jsv_allowed_mod`` check that
8.1.9 applies to qalter while a server JSV is configured. The processes are run by
clients/jsv.py (qsub -jsv) and qmaster/jsv.py (jsv_url). Pure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

VERSION = "1.0"
# 8.1.9's defaults: qmaster_params JSV_TIMEOUT (server), SGE_JSV_TIMEOUT (client)
DEFAULT_TIMEOUT = 10.0
MAX_LINE = 64 * 1024          # a longer line from a JSV refuses the job (bounded reads)
MAX_LINES = 10_000            # lines one verification may receive before it is refused
DEFAULT_ALLOWED_MOD = "ac,h,i,e,o,j,M,N,p,w"

# 8.1.9's wording (msg_sgeobjlib.h)
REJECTED = "JSV rejected job"
TMP_REJECTED = "JSV temporarily rejected job"


def no_response(script: str) -> str:
    return f'got no response from JSV script "{script}"'


def read_only_message(name: str) -> str:
    return f'JSV tries to modify read-only parameter "{name}"'


class JsvError(Exception):
    """A verification that ends in a refusal with this text (8.1.9's words)."""


# ---- jsv_url ---------------------------------------------------------------------------
@dataclass(frozen=True)
class JsvUrl:
    """``[type:][user@]path`` (sge_conf(5)); the only type is ``script``."""

    path: str
    user: str | None = None


def parse_url(text: str, *, client: bool) -> JsvUrl | None:
    """The URL, None for ``none``; JsvError with 8.1.9's words for a bad one. A client
    URL (qsub -jsv) may not name a user."""
    text = text.strip()
    if not text or text.lower() == "none":
        return None
    kind, sep, rest = text.partition(":")
    if not sep:
        kind, rest = "script", text
    if kind != "script":
        raise JsvError(f'type "{kind}" in JSV URL is invalid')
    user, sep, path = rest.rpartition("@")
    if not sep:
        user = ""
    if user and client:
        raise JsvError("specifying user is not allowed in client JSV URLs")
    if not path.startswith("/"):
        raise JsvError(f'JSV URL "{text}" is invalid')
    return JsvUrl(path=path, user=user or None)


# ---- the job as parameters ---------------------------------------------------------------
def _yn(value: bool) -> str:
    return "y" if value else "n"


def _pairs(mapping: Mapping[str, Any]) -> str:
    return ",".join(k if v is None else f"{k}={v}" for k, v in mapping.items())


def _parse_pairs(text: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for item in filter(None, text.split(",")):
        name, sep, value = item.partition("=")
        out[name] = value if sep else None
    return out


def _parse_resources(text: str) -> dict[str, str]:
    return {k: ("TRUE" if v is None else v) for k, v in _parse_pairs(text).items()}


def _parse_yn(text: str) -> bool:
    low = text.lower()
    if low in ("y", "yes", "true", "1"):
        return True
    if low in ("n", "no", "false", "0"):
        return False
    raise ValueError(text)


def _list(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


# the read-only parameters the JSV is told (CMDARG<i> too)
READ_ONLY = frozenset({"VERSION", "CONTEXT", "CLIENT", "USER", "GROUP", "JOB_ID",
                       "CMDNAME", "CMDARGS"})
_CMDARG = re.compile(r"CMDARG\d+\Z")

# parameter -> (how an option's value is shown, or None when not sent; how a value sets it)
Show = Callable[[Mapping[str, Any]], "str | None"]
Apply = Callable[[dict[str, Any], "str | None"], None]


def _opt(key: str, show: Callable[[Any], str | None] = lambda v: None if v in (None, "")
         else str(v), parse: Callable[[str], Any] = str, empty: Any = None
         ) -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        return show(opts.get(key))

    def apply(opts: dict[str, Any], value: str | None) -> None:
        if value in (None, ""):  # deleted: back to the option's default
            opts[key] = empty() if callable(empty) else empty
        else:
            opts[key] = parse(value)  # type: ignore[arg-type]
    return shown, apply


def _flag(key: str) -> tuple[Show, Apply]:
    return _opt(key, lambda v: "y" if v else None, _parse_yn, False)


def _joined(key: str) -> tuple[Show, Apply]:
    return _opt(key, lambda v: ",".join(v) if v else None, _list, list)


def _mapping(key: str, parse: Callable[[str], Any] = _parse_pairs) -> tuple[Show, Apply]:
    return _opt(key, lambda v: _pairs(v) if v else None, parse, dict)


def _number(key: str, default: int = 0) -> tuple[Show, Apply]:
    return _opt(key, lambda v: None if v in (None, default) else str(v), int,
                lambda: default)


def _pe_part(index: int) -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        pe = opts.get("pe")
        return None if not pe else str(pe[index])

    def apply(opts: dict[str, Any], value: str | None) -> None:
        pe = list(opts.get("pe") or ("", 1, 1))
        if value in (None, ""):
            if index == 0:
                opts["pe"], opts["pe_ranges"] = None, []
            return
        pe[index] = value if index == 0 else int(value)
        opts["pe"] = tuple(pe)
        opts["pe_ranges"] = []  # (one range: the JSV sees and sets pe_min..pe_max)
    return shown, apply


def _array_part(index: int) -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        array = opts.get("array")
        return None if not array else str(array[index])

    def apply(opts: dict[str, Any], value: str | None) -> None:
        if value in (None, ""):
            opts["array"] = None
            return
        array = list(opts.get("array") or (1, 1, 1))
        array[index] = int(value)
        opts["array"] = tuple(array)
    return shown, apply


def _rerun() -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        value = opts.get("rerun")
        return None if value is None else _yn(value)

    def apply(opts: dict[str, Any], value: str | None) -> None:
        opts["rerun"] = None if value in (None, "") else _parse_yn(value)
    return shown, apply


def _hold() -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        return "u" if opts.get("hold") else None

    def apply(opts: dict[str, Any], value: str | None) -> None:
        if value not in (None, "", "u", "n"):
            raise ValueError(value)
        opts["hold"] = value == "u"
    return shown, apply


def _shell_flag() -> tuple[Show, Apply]:
    def shown(opts: Mapping[str, Any]) -> str | None:
        return None if opts.get("use_shell", True) else "n"

    def apply(opts: dict[str, Any], value: str | None) -> None:
        opts["use_shell"] = True if value in (None, "") else _parse_yn(value)
    return shown, apply


# in the order 8.1.9's qsub sends them (alphabetical, case-insensitive, as captured)
PARAMS: dict[str, tuple[Show, Apply]] = {
    "a": _opt("start_time"),
    "A": _opt("account"),
    "ac": _mapping("context"),
    "ar": _opt("ar_id", parse=int),
    "b": _flag("binary"),
    "c_interval": _opt("checkpoint_interval", parse=int),
    "c_occasion": _opt("checkpoint_occasion"),
    "ckpt": _opt("checkpoint_name"),
    "cwd": _opt("cwd"),
    "dl": _opt("deadline"),
    "e": _joined("stderr_paths"),
    "h": _hold(),
    "hold_jid": _joined("hold_jid"),
    "hold_jid_ad": _joined("hold_jid_ad"),
    "i": _joined("stdin_paths"),
    "j": _flag("merge_output"),
    "js": _number("job_share"),
    "l_hard": _mapping("hard_resources", _parse_resources),
    "l_soft": _mapping("soft_resources", _parse_resources),
    "M": _joined("mail_list"),
    "m": _opt("mail_options"),
    "masterq": _joined("master_queues"),
    "N": _opt("job_name"),
    "notify": _flag("notify"),
    "o": _joined("stdout_paths"),
    "P": _opt("project"),
    "p": _number("priority"),
    "pe_name": _pe_part(0),
    "pe_min": _pe_part(1),
    "pe_max": _pe_part(2),
    "q_hard": _joined("hard_queues"),
    "q_soft": _joined("soft_queues"),
    "R": _flag("reserve"),
    "r": _rerun(),
    "S": _joined("shell"),
    "shell": _shell_flag(),
    "t_min": _array_part(0),
    "t_max": _array_part(1),
    "t_step": _array_part(2),
    "tc": _number("task_concurrency"),
}


def job_params(opts: Mapping[str, Any], *, context: str, client: str, user: str,
               group: str, job_id: int | None = None) -> list[tuple[str, str]]:
    """The PARAM lines' (name, value) pairs that describe a job, as 8.1.9 sends them."""
    args = list(opts.get("script_args") or [])
    out = [("VERSION", VERSION), ("CONTEXT", context), ("CLIENT", client), ("USER", user),
           ("GROUP", group)]
    if job_id:
        out.append(("JOB_ID", str(job_id)))
    script = opts.get("script_path")
    out += [("CMDNAME", script if script and script != "STDIN" else "NONE"),
            ("CMDARGS", str(len(args)))]
    out += [(f"CMDARG{i}", arg) for i, arg in enumerate(args)]
    for name, (show, _) in PARAMS.items():
        value = show(opts)
        if value is not None:
            out.append((name, value))
    return out


def apply_changes(opts: Mapping[str, Any], params: Mapping[str, str | None],
                  env: Mapping[str, Any]) -> dict[str, Any]:
    """The options with the JSV's PARAM and ENV changes applied (value "" or None: the
    parameter deleted; an env value of ``...``: the variable deleted). JsvError for a
    read-only or unknown parameter or a value that cannot be one; the caller checks the
    result as any submission (common.jobspec)."""
    out = dict(opts)
    for name, value in params.items():
        if name in READ_ONLY or _CMDARG.match(name):
            raise JsvError(read_only_message(name))
        entry = PARAMS.get(name)
        if entry is None:
            raise JsvError(f'JSV tries to set "{name}" to "{value or ""}"')
        try:
            entry[1](out, value)
        except ValueError:
            raise JsvError(f'JSV tries to set "{name}" to "{value or ""}"') from None
    if env:
        variables = dict(out.get("env") or {})
        for name, value in env.items():
            if value is Ellipsis:
                variables.pop(name, None)
            else:
                variables[name] = value
        out["env"] = variables
    return out


# ---- one verification --------------------------------------------------------------------
@dataclass
class Verdict:
    """How a verification ended: accepted (with the changes) or refused with ``message``;
    ``logs`` are the LOG lines (level, text) in order."""

    accepted: bool
    message: str = ""
    params: dict[str, str | None] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    logs: list[tuple[str, str]] = field(default_factory=list)
    restart: bool = False     # the JSV misbehaved: start a new one for the next job


class Exchange:
    """The commands of one verification, fed the JSV's lines one at a time; ``verdict``
    is set when it ended. ``feed`` returns the lines to send back."""

    def __init__(self, params: list[tuple[str, str]], env: Mapping[str, str | None]) -> None:
        self._params, self._env = params, env
        self._send_env = False
        self._lines = 0
        self.verdict: Verdict | None = None
        self._result = Verdict(accepted=False)

    @staticmethod
    def opening() -> list[str]:
        return ["START"]

    def feed(self, line: str) -> list[str]:
        if self.verdict is not None:
            return []
        self._lines += 1
        if len(line) > MAX_LINE or self._lines > MAX_LINES:
            self._end(False, "JSV sent more than a verification may hold", restart=True)
            return []
        command, _, rest = line.rstrip("\r\n").partition(" ")
        handler = {"STARTED": self._started, "SEND": self._send, "PARAM": self._param,
                   "ENV": self._env_command, "LOG": self._log,
                   "RESULT": self._result_command}.get(command)
        if handler is None:
            if not command:  # (an empty line says nothing)
                return []
            self._end(False, f'master got unknown command from JSV: "{command}"',
                      restart=True)
            return []
        return handler(rest)

    def _end(self, accepted: bool, message: str, *, restart: bool = False) -> None:
        self._result.accepted, self._result.message = accepted, message
        self._result.restart = restart
        self.verdict = self._result

    def _started(self, _rest: str) -> list[str]:
        out = [f"PARAM {name} {value}" for name, value in self._params]
        if self._send_env:
            for name, value in self._env.items():
                text = "" if value is None else value
                if "\n" not in text:  # (a line cannot carry it)
                    out.append(f"ENV ADD {name} {text}")
        out.append("BEGIN")
        return out

    def _send(self, rest: str) -> list[str]:
        if rest.strip() != "ENV":
            self._end(False, f'got "{rest.strip()}" as object for SEND command',
                      restart=True)
            return []
        self._send_env = True
        return []

    def _param(self, rest: str) -> list[str]:
        name, _, value = rest.partition(" ")
        if name in READ_ONLY or _CMDARG.match(name):
            self._end(False, read_only_message(name))
            return []
        self._result.params[name] = value
        return []

    def _env_command(self, rest: str) -> list[str]:
        action, _, rest = rest.partition(" ")
        name, _, value = rest.partition(" ")
        if action in ("ADD", "MOD") and name:
            self._result.env[name] = value
        elif action == "DEL" and name:
            self._result.env[name] = ...
        else:
            self._end(False, f'master got unknown command from JSV: "ENV {action}"',
                      restart=True)
        return []

    def _log(self, rest: str) -> list[str]:
        level, _, text = rest.partition(" ")
        if level not in ("INFO", "WARNING", "ERROR"):
            self._end(False, f'received "{text}" from JSV with invalid type "{level}"',
                      restart=True)
            return []
        self._result.logs.append((level, text))
        return []

    def _result_command(self, rest: str) -> list[str]:
        sub, _, rest = rest.partition(" ")
        state, _, message = rest.partition(" ")
        if sub != "STATE":
            self._end(False, f'JSV got unknown command "{sub}"', restart=True)
        elif state in ("ACCEPT", "CORRECT"):
            self._end(True, message)
        elif state == "REJECT":
            self._end(False, message or REJECTED)
        elif state == "REJECT_WAIT":
            self._end(False, message or TMP_REJECTED)
        else:
            self._end(False, f'JSV sent unknown result "{rest}"', restart=True)
        return []


# ---- jsv_allowed_mod (qalter while a server JSV is configured) ---------------------------
# qalter's change names (common.jobspec.ALTERABLE) -> 8.1.9's switch names
ALTER_SWITCHES = {"hard_resources": "l_hard", "soft_resources": "l_soft",
                  "hard_queues": "q_hard", "soft_queues": "q_soft", "job_name": "N",
                  "pe": "pe_name", "pe_ranges": "pe_min", "priority": "p",
                  "hold_jid": "hold_jid", "project": "P", "job_share": "js",
                  "deadline": "dl", "override_tickets": "ot", "task_concurrency": "tc",
                  "reserve": "R"}


def alter_refusal(jsv_url: str, allowed_mod: str, changes: list[str]) -> str | None:
    """8.1.9's jsv_is_modify_rejected: while jsv_url is not none, qalter may change only
    what jsv_allowed_mod lists (none: nothing); the refusal's text, or None."""
    if not jsv_url.strip() or jsv_url.strip().lower() == "none" or not changes:
        return None
    allowed = {s.strip() for s in allowed_mod.split(",") if s.strip()}
    if allowed == {"none"} or not allowed:
        return "No job modification allowed due to jsv_allowed_mod configuration"
    allowed.add("w")
    if "h" in allowed:
        allowed.add("t")
    got = [ALTER_SWITCHES.get(c, c) for c in changes]
    refused = [s for s in dict.fromkeys(got) if s not in allowed]
    if not refused:
        return None
    return ("rejected due to jsv_allowed_mod configuration which does not allow: "
            + ",".join(refused))
