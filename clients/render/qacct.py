"""qacct's output, as qacct(1) of SGE 8.1.9 prints it: the per-record blocks of
``-j`` (showjob()) and the usage summary table with its grouping by the listed
columns. Pure: accounting records in, text out (times shown in local time).
"""
from __future__ import annotations

import sys
import time

from common.record import Record
from common.accounting import AccountingRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

# get_sstate_description(): shepherd failure codes of sge_status(5) (execution_states.h).
FAILED_TEXT = dict(enumerate((
    "", "assumedly before job", "on executing shepherd", "before writing config",
    "before writing pid", "on reading config file", "setting processor set", "before prolog",
    "in prolog", "before pestart", "in pestart", "before job", "before pestop", "in pestop",
    "before epilog", "in epilog", "releasing processor set", "through signal",
    "shepherd returned error", "before writing exit_status", "found unexpected error file",
    "in recognizing job", "removed manually", None, "migrating", "rescheduling",
    "opening input/output file", "searching requested shell", "changing into working directory",
    "AFS setup", "application error returned", "accessing sgepasswd file",
    "entry is missing in sgepasswd file", "wrong password",
    "communicating with Grid Engine Helper Service",
    "before job in Grid Engine Helper Service", "checking configured daemons",
    "qmaster enforced h_rt, h_cpu, or h_vmem limit", "adding supplementary group")))
FAILED_TEXT[100] = "assumedly after job"

# Summary columns in 8.1.9's order: key, title, record attribute (selection uses them too).
COLUMNS = (("host", "HOST", "hostname"), ("queue", "CLUSTER QUEUE", "qname"),
           ("group", "GROUP", "group"), ("owner", "OWNER", "owner"),
           ("project", "PROJECT", "project"), ("department", "DEPARTMENT", "department"),
           ("pe", "PE", "granted_pe"), ("slots", "SLOTS", "slots"), ("ar", "AR", "arid"),
           ("account", "ACCOUNT", "account"))
NUMERIC_COLUMNS = ("slots", "ar")
_GIGA = 1024.0 ** 3
_DBL_MAX = sys.float_info.max


# ---------------------------------------------------------------- -j detail blocks

def format_memory(value: float) -> str:
    """double_print_memory_to_string(): 1024-based units with three decimals, then 'B'."""
    if value == _DBL_MAX:
        return "infinityB"
    for unit, size in (("T", 1024.0 ** 4), ("G", _GIGA), ("M", 1024.0 ** 2), ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.3f}{unit}B"
    return f"{abs(value):.3f}B"  # 8.1.9 drops the sign when there is no unit


def _ctime(seconds: int) -> str:
    return time.ctime(seconds) + "\n"


def signal_name(number: int) -> str:
    """strsignal() of glibc."""
    import signal  # (the failed and exit_status rows of a signalled job only)
    try:
        text = signal.strsignal(number)
    except ValueError:
        text = None
    return text or f"Unknown signal {number}"


def as_u32(value: int) -> int:
    # qacct reads numbers with atol (saturating) and prints them as unsigned 32-bit.
    return 0xFFFFFFFF if value < 0 else value & 0xFFFFFFFF


def _failed_text(code: int) -> str:
    """showjob()'s "%-3u %s %s": the code, ':' unless 0, then get_sstate_description()."""
    if not code:
        return f"{code:<3}  "
    return f"{code:<3} : {FAILED_TEXT.get(code) or 'invalid execution state'}"


def _job_rows(rec: AccountingRecord) -> list[tuple[str, str]]:
    """(label, value) rows of one -j block, values formatted as showjob() does."""
    pad = "{:<20}".format
    exit_text = pad(as_u32(rec.exit_status))
    if as_u32(rec.exit_status) > 127:
        exit_text += f" ({signal_name(as_u32(rec.exit_status) - 128)})"
    rows = [("qname", pad(rec.qname)), ("hostname", pad(rec.hostname)), ("group", pad(rec.group)),
            ("owner", pad(rec.owner)), ("project", pad(rec.project)),
            ("department", pad(rec.department)), ("jobname", pad(rec.job_name)),
            ("jobnumber", pad(as_u32(rec.job_number))),
            ("taskid", pad(as_u32(rec.task_number)) if rec.task_number else "undefined"),
            ("account", pad(rec.account)), ("priority", pad(as_u32(rec.priority))),
            ("qsub_time", _ctime(rec.submission_time).rstrip("\n")),
            ("start_time", _ctime(rec.start_time).rstrip("\n") if rec.start_time else "-/-"),
            ("end_time", _ctime(rec.end_time).rstrip("\n") if rec.end_time else "-/-"),
            ("granted_pe", pad(rec.granted_pe)), ("slots", pad(as_u32(rec.slots))),
            ("failed", _failed_text(as_u32(rec.failed))),
            ("exit_status", exit_text), ("ru_wallclock", f"{rec.ru_wallclock:.0f}s"),
            ("ru_utime", f"{rec.ru_utime:.3f}s"), ("ru_stime", f"{rec.ru_stime:.3f}s")]
    rows += [(name, format_memory(int(getattr(rec, name))))
             for name in ("ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss")]
    rows += [(name, pad(int(getattr(rec, name)))) for name in (
        "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd",
        "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw")]
    return rows + [
        ("cpu", f"{rec.cpu:.3f}s"), ("mem", format_memory(rec.mem * _GIGA) + "s"),
        ("io", format_memory(rec.io * _GIGA)), ("iow", f"{rec.iow:.3f}s"),
        ("maxvmem", format_memory(rec.maxvmem)),
        ("arid", pad(as_u32(rec.arid)) if rec.arid else "undefined"),
        ("ar_sub_time", _ctime(rec.ar_submission_time).rstrip("\n")
         if rec.ar_submission_time else "undefined"),
        ("category", rec.category)]


def job_block(rec: AccountingRecord) -> str:
    """The block ``qacct -j`` prints for one record ("%-13.12s" labels)."""
    rows = "".join(f"{label[:12]:<13}{value}\n" for label, value in _job_rows(rec))
    return "=" * 62 + "\n" + rows


# ---------------------------------------------------------------- summary table

class _Usage(Record):
    wallclock: float = 0.0
    utime: float = 0.0
    stime: float = 0.0
    cpu: float = 0.0
    mem: float = 0.0
    io: float = 0.0
    iow: float = 0.0

    def add(self, rec: AccountingRecord) -> None:
        self.wallclock += rec.ru_wallclock
        self.utime += rec.ru_utime
        self.stime += rec.ru_stime
        self.cpu += rec.cpu
        self.mem += rec.mem
        self.io += rec.io
        self.iow += rec.iow

    def row(self) -> str:
        return (f"{self.wallclock:13.0f} {self.utime:13.3f} {self.stime:13.3f} {self.cpu:13.3f} "
                f"{self.mem:18.3f} {self.io:18.3f} {self.iow:18.3f}\n")


_TITLE = " ".join([f"{t:>13}" for t in ("WALLCLOCK", "UTIME", "STIME", "CPU")]
                  + [f"{t:>18}" for t in ("MEMORY", "IO", "IOW")])


def _group_key(listed: set[str], rec: AccountingRecord) -> tuple[object, ...]:
    return tuple(getattr(rec, attr) if key in listed else None for key, _, attr in COLUMNS)


def _sort_key(key: tuple[object, ...]) -> tuple[tuple[bool, object], ...]:
    # lInsertSorted over every column but ACCOUNT; an unset (NULL) value sorts first.
    return tuple((value is not None, value) for value in key[:-1])


def group_usage(listed: set[str], records: Iterable[AccountingRecord]) -> list[tuple[tuple[object, ...], _Usage]]:
    """Usage per combination of the listed columns, in 8.1.9's list order."""
    groups: list[tuple[tuple[object, ...], _Usage]] = []
    for rec in records:
        key = _group_key(listed, rec)
        usage = next((u for k, u in groups if k == key), None)
        if usage is None:
            usage = _Usage()
            # Inserted before the first entry that sorts equal or after it.
            at = next((i for i, (k, _) in enumerate(groups) if _sort_key(key) <= _sort_key(k)), len(groups))
            groups.insert(at, (key, usage))
        usage.add(rec)
    return groups


def _cell_text(key: str, value: object) -> str:
    if value is None:
        return ""
    return f"{value:5}" if key in NUMERIC_COLUMNS else str(value)


def _widths(chosen: dict[str, object], groups: list[tuple[tuple[object, ...], _Usage]]) -> dict[str, int]:
    """calc_column_sizes(): widest of title+1, chosen value+1 and listed values+1."""
    widths = {}
    for index, (key, title, _) in enumerate(COLUMNS):
        width = 5 if key in NUMERIC_COLUMNS else len(title) + 1
        if key in chosen and key not in NUMERIC_COLUMNS:
            width = max(width, len(str(chosen[key])) + 1)
        for group_key, _usage in groups:
            # Numeric columns count every entry, even with the column unset (0 as "%5u").
            value = (group_key[index] or 0) if key in NUMERIC_COLUMNS else group_key[index]
            text = _cell_text(key, value)
            if width <= len(text):
                width = len(text) + 1
        widths[key] = width
    return widths


def summary(chosen: dict[str, object], listed: set[str], records: list[AccountingRecord]) -> str:
    """The table qacct prints without -j (and after the blocks of a bare -j)."""
    groups = group_usage(listed, records) if listed else []
    widths = _widths(chosen, groups)
    shown = [(i, key, title) for i, (key, title, _) in enumerate(COLUMNS) if key in chosen or key in listed]
    # 8.1.9 heads the AR column with the SLOTS column's width.
    head = "".join(f"{title:<{widths['slots' if key == 'ar' else key]}}" for _, key, title in shown)
    out = "" if shown else "Total System Usage\n"
    out += f"{head}{_TITLE}\n" + "=" * (len(head) + len(_TITLE)) + "\n"
    total = _Usage()
    for rec in records:
        total.add(rec)
    if not total.wallclock:  # 8.1.9 prints no row when the summed wall clock is 0
        return out
    for key_values, usage in groups or [((None,) * len(COLUMNS), total)]:
        cells = (_cell_text(key, chosen[key] if key in chosen else key_values[i]) for i, key, _ in shown)
        out += "".join(f"{c:<{widths[key]}}" for c, (_, key, _) in zip(cells, shown)) + usage.row()
    return out
