"""DRMAA job templates: their attributes, the checks of each value, the placeholders,
and the qsub command line a template stands for. Pure: no sockets, no clock (the
caller passes "now"), no environment.

A template becomes a submission through qsub's own parser (``clients.qsub.options``):
``qsub_argv`` writes the template as qsub options, after the native specification, so
that ``drmaa_native_specification`` accepts exactly what qsub accepts and the attributes
set in the template win over it. Jobs are binary and started without a shell (``-b y
-shell n``) unless the native specification says otherwise, as with 8.1.9's libdrmaa.
"""
from __future__ import annotations

import datetime as _dt
import re
import shlex
from dataclasses import dataclass, field

from clients.drmaa import errors
from clients.drmaa.errors import DrmaaError

REMOTE_COMMAND = "drmaa_remote_command"
JS_STATE = "drmaa_js_state"
WD = "drmaa_wd"
JOB_CATEGORY = "drmaa_job_category"
NATIVE_SPECIFICATION = "drmaa_native_specification"
BLOCK_EMAIL = "drmaa_block_email"
START_TIME = "drmaa_start_time"
JOB_NAME = "drmaa_job_name"
INPUT_PATH = "drmaa_input_path"
OUTPUT_PATH = "drmaa_output_path"
ERROR_PATH = "drmaa_error_path"
JOIN_FILES = "drmaa_join_files"
V_ARGV = "drmaa_v_argv"
V_ENV = "drmaa_v_env"
V_EMAIL = "drmaa_v_email"

# what drmaa_get_attribute_names lists (8.1.9's list, less drmaa_submit_as_euid: the
# agent acts as the caller's effective user always); the binding's optional ones
# (drmaa_transfer_files, drmaa_deadline_time, drmaa_wct_*limit, drmaa_duration_*limit)
# are not offered, as in 8.1.9: setting one is DRMAA_ERRNO_INVALID_ARGUMENT
ATTRIBUTE_NAMES = (BLOCK_EMAIL, ERROR_PATH, INPUT_PATH, JOB_CATEGORY, JOB_NAME, JOIN_FILES,
                   JS_STATE, NATIVE_SPECIFICATION, OUTPUT_PATH, REMOTE_COMMAND, START_TIME,
                   WD)
VECTOR_ATTRIBUTE_NAMES = (V_ARGV, V_EMAIL, V_ENV)

PLACEHOLDER_INCR = "$drmaa_incr_ph$"
PLACEHOLDER_HD = "$drmaa_hd_ph$"
PLACEHOLDER_WD = "$drmaa_wd_ph$"

STATE_ACTIVE = "drmaa_active"
STATE_HOLD = "drmaa_hold"

# 8.1.9's words (tests/data/reference/drmaa/capture.json)
_EITHER = 'attribute "{name}" must be either "{a}" or "{b}"\n'
NO_COMMAND = 'job template must have "drmaa_remote_command" attribute set'
BAD_DATE = "Error parsing DRMAA date string"
# 8.1.9 looks categories up in qtask files, which this cell does not have: any category
# is one it does not know
UNKNOWN_CATEGORY = "Unknown job category"

# the binding's time: [[[[CC]YY/]MM/]DD] hh:mm[:ss] [{-|+}UU:uu]
_START_TIME = re.compile(
    r"^(?:(?:(?:(?P<cc>\d{2})?(?P<yy>\d{2})/)?(?P<mm>\d{2})/)?(?P<dd>\d{2})\s+)?"
    r"(?P<hh>\d{2}):(?P<mi>\d{2})(?::(?P<ss>\d{2}))?"
    r"(?:\s*(?P<sign>[-+])(?P<zh>\d{2}):(?P<zm>\d{2}))?$")


@dataclass
class JobTemplate:
    """One template's attributes as set (a name absent: never set)."""

    scalars: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, list[str]] = field(default_factory=dict)

    def set(self, name: str, value: str) -> None:
        if name not in ATTRIBUTE_NAMES:
            # 8.1.9: an unknown (or a vector) name is an invalid argument, said no more
            raise DrmaaError(errors.INVALID_ARGUMENT, "")
        check_value(name, value)
        self.scalars[name] = value

    def get(self, name: str) -> str:
        if name not in ATTRIBUTE_NAMES:
            raise DrmaaError(errors.INVALID_ARGUMENT, "")
        if name not in self.scalars:
            raise DrmaaError(errors.INVALID_ATTRIBUTE_VALUE, errors.INVALID_VALUE)
        return self.scalars[name]

    def set_vector(self, name: str, values: list[str]) -> None:
        if name not in VECTOR_ATTRIBUTE_NAMES:
            raise DrmaaError(errors.INVALID_ARGUMENT, "")
        if name == V_ENV:
            bad = next((v for v in values if "=" not in v or v.startswith("=")), None)
            if bad is not None:
                raise DrmaaError(errors.INVALID_ATTRIBUTE_FORMAT,
                                 f'attribute "{V_ENV}": "{bad}" is not of the form '
                                 "name=value\n")
        self.vectors[name] = list(values)

    def get_vector(self, name: str) -> list[str]:
        if name not in VECTOR_ATTRIBUTE_NAMES:
            raise DrmaaError(errors.INVALID_ARGUMENT, "")
        if name not in self.vectors:
            raise DrmaaError(errors.INVALID_ATTRIBUTE_VALUE, errors.INVALID_VALUE)
        return list(self.vectors[name])


def check_value(name: str, value: str) -> None:
    """Refuse a value the attribute can never take, where 8.1.9 refuses it at once; the
    other values are judged when a job is run (``qsub_argv``), as 8.1.9 judges them."""
    if name == JS_STATE and value not in (STATE_ACTIVE, STATE_HOLD):
        raise DrmaaError(errors.INVALID_ATTRIBUTE_VALUE,
                         _EITHER.format(name=name, a=STATE_ACTIVE, b=STATE_HOLD))
    if name == JOIN_FILES and value not in ("y", "n"):
        raise DrmaaError(errors.INVALID_ATTRIBUTE_VALUE, _EITHER.format(name=name, a="y",
                                                                        b="n"))


def start_time_argument(value: str, now: _dt.datetime) -> str:
    """qsub -a's ``CCYYMMDDhhmm.SS`` (``now``'s zone) of a DRMAA start time; the
    parts of the date left out are today's (in the time's own zone, if it has one)."""
    m = _START_TIME.match(value.strip())
    if m is None:
        raise DrmaaError(errors.DENIED_BY_DRM, BAD_DATE)
    zone = now.tzinfo
    if m["sign"]:
        offset = _dt.timedelta(hours=int(m["zh"]), minutes=int(m["zm"]))
        zone = _dt.timezone(-offset if m["sign"] == "-" else offset)
    here = now.astimezone(zone)
    year = here.year
    if m["yy"]:
        year = int((m["cc"] or str(here.year)[:2]) + m["yy"])
    try:
        when = _dt.datetime(year, int(m["mm"] or here.month), int(m["dd"] or here.day),
                            int(m["hh"]), int(m["mi"]), int(m["ss"] or 0), tzinfo=zone)
    except ValueError:
        raise DrmaaError(errors.DENIED_BY_DRM, BAD_DATE) from None
    return when.astimezone(now.tzinfo).strftime("%Y%m%d%H%M.%S")


def substitute(path: str, *, home: str, wd: str, bulk: bool) -> str:
    """A path attribute with its placeholders replaced: the home directory, the job's
    working directory, and the bulk job's task index (qsub's ``$TASK_ID``, which the
    execution host replaces; a single job has none: "undefined", as $TASK_ID there)."""
    path = path.replace(PLACEHOLDER_HD, home).replace(PLACEHOLDER_WD, wd)
    return path.replace(PLACEHOLDER_INCR, "$TASK_ID" if bulk else "undefined")


def _path(value: str) -> str:
    """DRMAA's ``[hostname]:path`` as qsub's ``[[hostname]:]path``."""
    return value[1:] if value.startswith(":") else value


def qsub_argv(template: JobTemplate, *, home: str, now: _dt.datetime,
              bulk: tuple[int, int, int] | None = None) -> list[str]:
    """The qsub arguments (without the program name) the template stands for."""
    attrs = template.scalars
    command = attrs.get(REMOTE_COMMAND, "")
    if not command:
        raise DrmaaError(errors.DENIED_BY_DRM, NO_COMMAND)
    if attrs.get(JOB_CATEGORY):
        raise DrmaaError(errors.DENIED_BY_DRM, UNKNOWN_CATEGORY)
    try:
        native = shlex.split(attrs.get(NATIVE_SPECIFICATION, ""))
    except ValueError as err:
        raise DrmaaError(errors.DENIED_BY_DRM, f"native specification: {err}") from None
    # 8.1.9's DRMAA jobs are "binary,noshell" (qstat -j's job_type): the command gets
    # its arguments as they are, no shell parses them again
    argv = [] if "-b" in native else ["-b", "y"]
    argv += [] if "-shell" in native else ["-shell", "n"]
    argv += native
    wd = home
    if WD in attrs:
        if PLACEHOLDER_INCR in attrs[WD] or PLACEHOLDER_WD in attrs[WD]:
            raise DrmaaError(errors.INVALID_ATTRIBUTE_VALUE,
                             f'attribute "{WD}" may hold no placeholder but '
                             f"{PLACEHOLDER_HD}\n")
        wd = attrs[WD].replace(PLACEHOLDER_HD, home)
        argv += ["-wd", wd]
    if attrs.get(JS_STATE) == STATE_HOLD:
        argv += ["-h"]
    if attrs.get(JOB_NAME):
        argv += ["-N", attrs[JOB_NAME]]
    for name, switch in ((INPUT_PATH, "-i"), (OUTPUT_PATH, "-o"), (ERROR_PATH, "-e")):
        if attrs.get(name):
            argv += [switch, substitute(_path(attrs[name]), home=home, wd=wd,
                                        bulk=bulk is not None)]
    if attrs.get(JOIN_FILES) == "y":
        argv += ["-j", "y"]
    if attrs.get(BLOCK_EMAIL, "0") not in ("0", "1"):
        raise DrmaaError(errors.DENIED_BY_DRM, "")  # (8.1.9 says no more)
    if attrs.get(BLOCK_EMAIL) == "1":
        argv += ["-m", "n"]
    if template.vectors.get(V_EMAIL):
        argv += ["-M", ",".join(template.vectors[V_EMAIL])]
    if attrs.get(START_TIME):
        argv += ["-a", start_time_argument(attrs[START_TIME], now)]
    if bulk is not None:
        first, last, step = bulk
        argv += ["-t", f"{first}-{last}:{step}"]
    return [*argv, command, *template.vectors.get(V_ARGV, [])]


def command_line(template: JobTemplate) -> list[str]:
    """The job's command and its arguments."""
    return [template.scalars.get(REMOTE_COMMAND, ""), *template.vectors.get(V_ARGV, [])]


def check_command(command: list[str], script_path: str | None, script_args: list[str]
                  ) -> None:
    """What qsub read as the job's command must be the template's: a word of the native
    specification that is no option would take the command's place (qsub reads its first
    such word as the script)."""
    if [script_path, *script_args] != command:
        extra = script_path if script_path != command[0] else " ".join(script_args)
        raise DrmaaError(errors.DENIED_BY_DRM, f'native specification: "{extra}" is no '
                         "qsub option\n")


def environment(template: JobTemplate) -> dict[str, str]:
    """drmaa_v_env as the job's variables (qsub -v NAME=VALUE, commas and all)."""
    pairs = (entry.split("=", 1) for entry in template.vectors.get(V_ENV, []))
    return {name: value for name, value in pairs}


def check_bulk(first: int, last: int, step: int) -> None:
    """drmaa_run_bulk_jobs' range: 1 <= first <= last, step >= 1 (8.1.9 answers
    DRMAA_ERRNO_INVALID_ARGUMENT, in the binding's words)."""
    if first < 1 or last < first or step < 1:
        raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT)
