"""Pure text/XML renderers for qstat job and queue listings (Grid Engine 8.1.9 format).

This module owns the exact layout of ``qstat`` (default table, ``-r``, ``-ext``), ``qstat -f``,
``qstat -xml``, ``qstat -f -xml``, ``qstat -g c`` and ``qstat -j`` (text and -xml; the
JobDetail keys are documented in the -j section below).  Nothing here does I/O: plain dicts in, strings out.  Times are epoch floats shown in local time.

JobRow (one line of the job table; ``-f`` uses the same rows inside QueueRow["jobs"]):
    job_id: int            task_id: int | None (None for non-array jobs)
    prio: float            name: str      owner: str     state: str ("r", "qw", "hqw", "Eqw" ...)
    submit_time: float     start_time: float | None (None = not started; submit time is shown)
    queue: str | None ("all.q@vm")        slots: int     master: bool (qhost -j MASTER/SLAVE)
    pending_tasks: str | None  (pending array range "3-10:1"; shown in ja-task-ID column)
    full_name: str         (defaults to name)
    -r extras: hard_resources: dict[str, str], hard_resource_urgency: dict[str, float] (default 0),
        default_requests: dict[str, str] (consumable defaults, "(default)" lines),
        soft_resources: dict[str, str], hard_queues / soft_queues / master_queues: list[str],
        pe: str | None, pe_range: str | None ("4", "2-8"), granted_pe: str | None,
        granted_pe_slots: int, checkpoint: str | None, predecessors_requested: list[str],
        predecessors: list[int], binding: str | None ("NONE"; None hides the Binding line)
    -ext extras: ntckts: float, project: str | None, department: str | None,
        cpu: float | None (seconds), mem: float | None (GB s), io: float | None (GB),
        tickets, ovrts, otckt, ftckt, stckt: int, share: float  (missing numbers render as 0)

QueueRow (qstat -f): name: str, qtype: str ("BIP"), resv: int, used: int, total: int,
    load_avg: float | None (None -> "-NA-"), arch: str | None, states: str, jobs: [JobRow],
    explain: list[str] (-explain reason lines), resources: list[[dominance, name, value]] (-F)

ClusterQueueRow (qstat -g c): name: str, load: float | None, used, resv, available, total,
    temp_disabled, manual_intervention: int; with extended=True also suspend_manual,
    suspend_threshold, suspend_on_subordinate, suspend_calendar, unknown, load_alarm,
    disabled_manual, disabled_calendar, ambiguous, orphaned, error: int.
"""

from __future__ import annotations

import time
from typing import Any

JobRow = dict[str, Any]
QueueRow = dict[str, Any]

DEFAULT_QUEUE_WIDTH = 30
XML_DECL = "<?xml version='1.0'?>"
QSTAT_XSD = "http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd"
_INDENT = "       "
_PENDING_TITLE = " - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS"
_EXT_USAGE_HEAD = "cpu        mem     io      tckts ovrts otckt ftckt stckt share "


# --------------------------------------------------------------------------- shared helpers

def format_ctime(ts: float) -> str:
    """The job table's date column, e.g. ``11/22/2026 02:39:00``."""
    return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(ts))


def format_xml_time(ts: float) -> str:
    """The ISO-like timestamp qstat -xml uses, e.g. ``2026-11-22T02:39:00``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ts))


def xml_escape(text: str | None) -> str:
    """Grid Engine's escape_string(); '<' really becomes "%lt;" in 8.1.9 (upstream typo kept)."""
    table = {"<": "%lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;"}
    return "".join(table.get(ch, ch) for ch in (text or ""))


def xml_line(depth: int, tag: str, value: str | None) -> str:
    """One ``<tag>value</tag>`` line indented two spaces per level."""
    return f"{'  ' * depth}<{tag}>{xml_escape(value)}</{tag}>"


def _is_running(row: JobRow) -> bool:
    return row.get("start_time") is not None


def _shown_time(row: JobRow) -> float:
    return row["start_time"] if _is_running(row) else row["submit_time"]


def _task_column(row: JobRow) -> str:
    if row.get("task_id") is not None:
        return str(row["task_id"])
    return row.get("pending_tasks") or " " * 7


# --------------------------------------------------------------------------- job lines

def job_header(*, extended: bool, queue_width: int, indent: str = "", master_col: bool = False) -> str:
    """Header and dash line of the job table (two lines, each newline-terminated)."""
    ntckts = " ntckts " if extended else ""
    project = "project          department " if extended else ""
    when = "" if extended else "submit/start at     "
    usage = _EXT_USAGE_HEAD if extended else ""
    last = "master" if master_col else "slots"
    head = (f"{indent}job-ID  prior  {ntckts} {'name':<10} {'user':<12} {project}state {when}"
            f"{usage}{'queue':<{queue_width}.{queue_width}} {last} ja-task-ID ")
    dashes = 93 + (queue_width - 10) + (1 if master_col else 0) + (79 if extended else 0)
    return f"{head}\n{indent}{'-' * dashes}\n"


def _usage_columns(row: JobRow) -> str:
    """The -ext cpu/mem/io and ticket columns; blank/NA when the job has no usage yet."""
    missing = "NA" if _is_running(row) else ""
    cpu = row.get("cpu")
    if cpu is None:
        text = f"{missing:<10.10} "
    else:
        days, rest = divmod(int(cpu), 86400)
        text = f"{days}:{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d} "
    for key in ("mem", "io"):
        value = row.get(key)
        text += f"{missing:<7.7} " if value is None else f"{value:<5.5f} "
    for key in ("tickets", "ovrts", "otckt", "ftckt", "stckt"):
        text += f"{int(row.get(key) or 0):5d} "
    return text + f"{float(row.get('share') or 0.0):<5.2f} "


def job_line(row: JobRow, *, extended: bool = False, full: bool = False,
             queue_width: int = DEFAULT_QUEUE_WIDTH, indent: str = "",
             master_label: str | None = None, print_jobid: bool = True) -> str:
    """One job line without newline; ``master_label`` switches to qhost's MASTER/SLAVE column."""
    if print_jobid:
        text = f"{indent}{row['job_id']:7d} {row['prio']:7.5f} "
        text += f"{row.get('ntckts') or 0.0:7.5f} " if extended else ""
        text += f"{row['name']:<10.10} {row['owner']:<12.12} "
        if extended:
            text += f"{row.get('project') or 'NA':<16.16} {row.get('department') or 'NA':<10.10} "
        text += f"{row['state']:<5.5} "
        text += "" if extended else format_ctime(_shown_time(row)) + " "
    else:
        # continuation lines of a parallel job (qhost -j): identity columns stay blank
        text = indent + " " * (8 + 8 + (8 if extended else 0) + 24 + (28 if extended else 0) + 6)
        text += "" if extended else " " * 20
    text += _usage_columns(row) if extended else ""
    if not full:
        text += f"{row.get('queue') or '':<{queue_width}.{queue_width}} "
    text += f"{master_label:<7.6}" if master_label is not None else f"{row['slots']:5d} "
    return text + _task_column(row)


def _labelled(label: str, value: str) -> str:
    return f"{_INDENT}{label}:{' ' * max(1, 17 - len(label))}{value}\n"


def _resource_block(title: str, lines: list[str]) -> str:
    if not lines:
        return f"{_INDENT}{title}:   \n"
    return f"{_INDENT}{title}:   " + "".join(
        ("" if i == 0 else " " * 25) + line + "\n" for i, line in enumerate(lines))


def _joined_line(label: str, values: list[Any]) -> str:
    return f"{_INDENT}{label}: {', '.join(str(v) for v in values)}\n" if values else ""


def resource_lines(row: JobRow) -> str:
    """The ``qstat -r`` block printed under a job line."""
    text = _labelled("Full jobname", row.get("full_name") or row["name"])
    if row.get("queue"):
        text += _labelled("Master Queue", row["queue"])
    if row.get("pe"):
        text += _labelled("Requested PE", f"{row['pe']} {row.get('pe_range') or ''}")
    if row.get("granted_pe"):
        text += _labelled("Granted PE", f"{row['granted_pe']} {row.get('granted_pe_slots', row['slots'])}")
    if row.get("checkpoint"):
        text += _labelled("Checkpoint Env.", row["checkpoint"])
    urgency = row.get("hard_resource_urgency") or {}
    hard = [f"{k}={v} ({urgency.get(k, 0.0):f})" for k, v in (row.get("hard_resources") or {}).items()]
    text += _resource_block("Hard Resources", hard)
    text += "".join(f"{_INDENT}{k}={v} (default)\n" for k, v in (row.get("default_requests") or {}).items())
    text += _resource_block("Soft Resources", [f"{k}={v}" for k, v in (row.get("soft_resources") or {}).items()])
    text += _joined_line("Hard requested queues", row.get("hard_queues") or [])
    text += _joined_line("Soft requested queues", row.get("soft_queues") or [])
    text += _joined_line("Master task hard requested queues", row.get("master_queues") or [])
    text += _joined_line("Predecessor Jobs (request)", row.get("predecessors_requested") or [])
    text += _joined_line("Predecessor Jobs", row.get("predecessors") or [])
    if row.get("binding") is not None:
        text += f"{_INDENT}Binding:          {row['binding']}\n"
    return text


def _job_lines(rows: list[JobRow], *, extended: bool, full: bool, show_resources: bool,
               queue_width: int) -> str:
    out = []
    for row in rows:
        out.append(job_line(row, extended=extended, full=full, queue_width=queue_width) + "\n")
        if show_resources:
            out.append(resource_lines(row))
    return "".join(out)


# --------------------------------------------------------------------------- plain qstat / -f

def render_job_table(rows: list[JobRow], *, extended: bool = False, show_resources: bool = False,
                     queue_width: int = DEFAULT_QUEUE_WIDTH) -> str:
    """``qstat`` without -f: header, dashes, one line per row; no jobs prints nothing at all."""
    if not rows:
        return ""
    return job_header(extended=extended, queue_width=queue_width) + _job_lines(
        rows, extended=extended, full=False, show_resources=show_resources, queue_width=queue_width)


def _queue_header(queue_width: int) -> str:
    return (f"{'queuename':<{queue_width}.{queue_width}} {'qtype':<5.5} {'resv/used/tot.':<14.14} "
            f"{'load_avg':<8.8} {'arch':<13.13} states\n")


def _queue_line(queue: QueueRow, queue_width: int) -> str:
    load = "-NA- " if queue.get("load_avg") is None else f"{queue['load_avg']:2.2f} "
    arch = "-NA- " if queue.get("arch") is None else f"{queue['arch']} "
    slots = f"{queue['resv']}/{queue['used']}/{queue['total']} "
    return (f"{queue['name']:<{queue_width}.{queue_width}} {queue['qtype']:<5.5} {slots:<14.14} "
            f"{load:<8.8} {arch:<13.13} {queue.get('states') or ''}\n")


def _queue_block(queue: QueueRow, *, extended: bool, show_resources: bool, queue_width: int) -> str:
    dashes = "-" * (81 + (108 if extended else 0) + max(0, queue_width - 30))
    text = dashes + "\n" + _queue_line(queue, queue_width)
    text += "".join(f"\t{reason}\n" for reason in queue.get("explain") or [])
    text += "".join(f"\t{dom}:{name}={value}\n" for dom, name, value in queue.get("resources") or [])
    return text + _job_lines(queue.get("jobs") or [], extended=extended, full=True,
                             show_resources=show_resources, queue_width=queue_width)


def render_full(queues: list[QueueRow], pending_rows: list[JobRow], *, extended: bool = False,
                show_resources: bool = False, queue_width: int = DEFAULT_QUEUE_WIDTH) -> str:
    """``qstat -f``: queue instances with their jobs, then the PENDING JOBS block."""
    text = _queue_header(queue_width) if queues else ""
    for queue in queues:
        text += _queue_block(queue, extended=extended, show_resources=show_resources,
                             queue_width=queue_width)
    if pending_rows:
        hashes = "#" * (76 + (110 if extended else 0))
        text += f"\n{hashes}\n{_PENDING_TITLE}\n{hashes}\n"
        text += _job_lines(pending_rows, extended=extended, full=True,
                           show_resources=show_resources, queue_width=queue_width)
    return text


# --------------------------------------------------------------------------- -g c

_CQ_EXT_KEYS = ("suspend_manual", "suspend_threshold", "suspend_on_subordinate", "suspend_calendar",
                "unknown", "load_alarm", "disabled_manual", "disabled_calendar", "ambiguous",
                "orphaned", "error")


def render_cluster_queue_summary(cqueues: list[dict[str, Any]], *, extended: bool = False,
                                 queue_width: int = DEFAULT_QUEUE_WIDTH) -> str:
    """``qstat -g c``: one line per cluster queue (header is printed even with no queues)."""
    names = ("CQLOAD", "USED", "RES", "AVAIL", "TOTAL", "aoACDS", "cdsuE")
    text = f"{'CLUSTER QUEUE':<{queue_width}.{queue_width}} {names[0]:>7} "
    text += " ".join(f"{n:>6}" for n in names[1:]) + "  "
    if extended:
        text += " ".join(f"{n:>5}" for n in ("s", "A", "S", "C", "u", "a", "d", "D", "c", "o", "E"))
    text += "\n" + "-" * (80 + (66 if extended else 0) + max(0, queue_width - 36)) + "\n"
    for cq in cqueues:
        load = "   -NA-" if cq.get("load") is None else f"{cq['load']:7.2f}"
        text += f"{cq['name']:<{queue_width}.{queue_width}} {load} "
        text += "".join(f"{int(cq[k]):6d} " for k in ("used", "resv", "available", "total",
                                                     "temp_disabled", "manual_intervention"))
        text += "".join(f"{int(cq.get(k, 0)):5d} " for k in _CQ_EXT_KEYS) if extended else ""
        text += "\n"
    return text


# --------------------------------------------------------------------------- XML

def _xml_job(row: JobRow, *, depth: int, state: str, extended: bool, full: bool) -> list[str]:
    fields: list[tuple[str, str | None]] = [("JB_job_number", str(row["job_id"])),
                                            ("JAT_prio", f"{row['prio']:.5f}")]
    if extended:
        fields.append(("JAT_ntix", f"{row.get('ntckts') or 0.0:.5f}"))
    fields += [("JB_name", row["name"]), ("JB_owner", row["owner"])]
    if extended:
        fields += [("JB_project", row.get("project")), ("JB_department", row.get("department"))]
    fields.append(("state", row["state"]))
    if not extended:
        tag = "JAT_start_time" if _is_running(row) else "JB_submission_time"
        fields.append((tag, format_xml_time(_shown_time(row))))
    fields += _xml_ext_fields(row) if extended else []
    if not full:
        fields.append(("queue_name", row.get("queue")))
    fields.append(("slots", str(row["slots"])))
    task = row.get("task_id") if row.get("task_id") is not None else row.get("pending_tasks")
    if task is not None:
        fields.append(("tasks", str(task)))
    pad = "  " * depth
    return ([f'{pad}<job_list state="{state}">'] + [xml_line(depth + 1, t, v) for t, v in fields]
            + [f"{pad}</job_list>"])


def _xml_ext_fields(row: JobRow) -> list[tuple[str, str | None]]:
    fields = [(tag, f"{row[key]:.5f}") for tag, key in
              (("cpu_usage", "cpu"), ("mem_usage", "mem"), ("io_usage", "io")) if row.get(key) is not None]
    share = float(row.get("share") or 0.0)
    # 8.1.9 really prints the share fraction truncated to int as JB_jobshare
    fields += [("tickets", str(int(row.get("tickets") or 0))),
               ("JB_override_tickets", str(int(row.get("ovrts") or 0))),
               ("JB_jobshare", str(int(share))),
               ("otickets", str(int(row.get("otckt") or 0))),
               ("ftickets", str(int(row.get("ftckt") or 0))),
               ("stickets", str(int(row.get("stckt") or 0))),
               ("JAT_share", f"{share:.5f}")]
    return fields


def _xml_section(tag: str, body: list[str]) -> list[str]:
    return [f"  <{tag}>"] + body + [f"  </{tag}>"]


def _xml_document(queue_info: list[str], job_info: list[str]) -> str:
    lines = [XML_DECL, f'<job_info  xmlns:xsd="{QSTAT_XSD}">']
    lines += _xml_section("queue_info", queue_info) + _xml_section("job_info", job_info)
    return "\n".join(lines + ["</job_info>"]) + "\n"


def _xml_jobs(rows: list[JobRow], *, depth: int, extended: bool, full: bool) -> list[str]:
    out: list[str] = []
    for row in rows:
        state = "running" if row.get("queue") else "pending"
        out += _xml_job(row, depth=depth, state=state, extended=extended, full=full)
    return out


def render_job_table_xml(running_rows: list[JobRow], pending_rows: list[JobRow], *,
                         extended: bool = False) -> str:
    """``qstat -xml``: jobs with a queue under <queue_info>, pending ones under <job_info>."""
    return _xml_document(_xml_jobs(running_rows, depth=2, extended=extended, full=False),
                         _xml_jobs(pending_rows, depth=2, extended=extended, full=False))


def _xml_queue(queue: QueueRow, extended: bool) -> list[str]:
    fields = [("name", queue["name"]), ("qtype", queue["qtype"]), ("slots_used", str(queue["used"])),
              ("slots_resv", str(queue["resv"])), ("slots_total", str(queue["total"]))]
    if queue.get("load_avg") is not None:
        fields.append(("load_avg", f"{queue['load_avg']:.5f}"))
    fields += [(t, queue.get(k)) for t, k in (("arch", "arch"), ("state", "states")) if queue.get(k)]
    body = [xml_line(3, tag, value) for tag, value in fields]
    body += _xml_jobs(queue.get("jobs") or [], depth=3, extended=extended, full=True)
    return ["    <Queue-List>"] + body + ["    </Queue-List>"]


def render_full_xml(queues: list[QueueRow], pending_rows: list[JobRow], *,
                    extended: bool = False) -> str:
    """``qstat -f -xml``: <Queue-List> per queue instance, pending jobs under <job_info>."""
    queue_info = [line for queue in queues for line in _xml_queue(queue, extended)]
    return _xml_document(queue_info, _xml_jobs(pending_rows, depth=2, extended=extended, full=True))


# --------------------------------------------------------------------------- qstat -j
#
# JobDetail keys (lines appear in this order; optional ones only when set, as in 8.1.9):
#   job_number: int, exec_file: str | None, submission_time: float, deadline: float | None,
#   owner: str, uid: int, group: str, gid: int,
#   env_list: list[[name, value | None]] -- the job's full environment INCLUDING the
#       "__SGE_PREFIX__O_HOME" ... "__SGE_PREFIX__O_HOST" entries; the sge_o_home/log_name/path/
#       shell/tz/workdir/host lines are taken from them and they are hidden from "env_list:"
#   execution_time: float | None (-a), account: str | None, checkpoint_name: str | None,
#   checkpoint_attr: str (letters, "" = none), checkpoint_interval: int (seconds, 0 = none),
#   cwd: str | None, stderr_path_list / stdout_path_list / stdin_path_list:
#       list[{"path": str, "host": str | None, "file_host": str | None}] (8.1.9 prints the first),
#   reserve: bool, merge_stderr: bool (-j y),
#   hard_resource_list / soft_resource_list: list[{"name": str, "value": str,
#       "valtype": int (1 INT 2 STR 3 TIME 4 MEM 5 BOOL 6 CSTR 7 HOST 8 DOUBLE 9 RESTR),
#       "doubleval": float}] (valtype/doubleval are only used by -xml),
#   mail_options: str (letters of -m, "" = default), mail_list: list[[user, host | None]],
#   notify: bool, job_name: str, priority: int (-p value, 0 = default), jobshare: int,
#   hard_queue_list / soft_queue_list / master_queue_list: list[str],
#   restart: bool | None (-r y/n, None = not given), shell_list: list[{"host", "path"}],
#   verify: bool, job_args: list[str] | None, script_size: int, script_file: str | None,
#   pe: str | None, pe_range: str ("4", "2-8"), jid_request_list: list[str] (-hold_jid as given),
#   jid_predecessor_list / jid_successor_list / ja_ad_predecessor_list /
#   ja_ad_successor_list: list[int], verify_suitable_queues: int, project: str | None,
#   ar_id: int, job_array_tasks: str | None ("1-3:1"), ja_task_concurrency: int (-tc),
#   context: list[[name, value | None]], binding: str | None ("NONE"),
#   job_type: list[str] (subset of "binary", "noshell", "immediate"),
#   ja_tasks: list[{"task_id": int, "status": int (128 running, 512 transferring, other),
#       "start_time": float | None, "ntix": float, "binding": str | None,
#       "usage": {"cpu": s, "mem": GB s, "io": GB, "vmem": bytes, "maxvmem": bytes} | None,
#       "messages": list[str] (error reasons)}],
#   scheduling_info: list[{"message": str, "number": int, "global": bool}],
#   -xml only: nurg: float, override_tickets: int, version: int.

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_SGE_PREFIX = "__SGE_PREFIX__"
_O_VARS = (("O_HOME", "sge_o_home"), ("O_LOGNAME", "sge_o_log_name"), ("O_PATH", "sge_o_path"),
           ("O_SHELL", "sge_o_shell"), ("O_TZ", "sge_o_tz"), ("O_WORKDIR", "sge_o_workdir"),
           ("O_HOST", "sge_o_host"))
_RUNNING_STATUS = (128, 512)
_SEPARATOR = "=" * 62
MSG_JOBS_NOT_FOUND = "Following jobs do not exist: "


def format_c_ctime(ts: float) -> str:
    """C ctime() without the newline, locale independent: ``Sun Nov 22 02:37:45 2026``."""
    t = time.localtime(ts)
    return (f"{_DAYS[t.tm_wday]} {_MONTHS[t.tm_mon - 1]} {t.tm_mday:2d} "
            f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} {t.tm_year}")


def format_hms(seconds: float) -> str:
    """double_print_time_to_dstring(): ``HH:MM:SS`` with hours unbounded."""
    secs = int(seconds)
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def format_memory(value: float) -> str:
    """double_print_memory_to_dstring(): 1024-based unit with 3 decimals (``3.516M``)."""
    for unit, size in (("T", 1024.0 ** 4), ("G", 1024.0 ** 3), ("M", 1024.0 ** 2), ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.3f}{unit}"
    return f"{abs(value):.3f}"


def _field(label: str, value: Any) -> str:
    return f"{label + ':':<28}{value}\n"


def _env_value(env: list[list[Any]], name: str) -> str | None:
    return next((value for var, value in env if var == name), None)


def _var_list(pairs: list[list[Any]]) -> str:
    # uni_print_list(): NULL value prints NONE, an empty value drops the "=" delimiter
    return ",".join(f"{n}={'NONE' if v is None else v}" if v != "" else n for n, v in pairs)


def _path_text(paths: list[dict[str, Any]]) -> str:
    # only the first entry: 8.1.9's list printer aborts at the boolean file_staging field
    first = paths[0]
    return f"{first.get('host') or 'NONE'}:{first.get('file_host') or 'NONE'}:{first['path']}"


def _mail_options(letters: str) -> str:
    return "".join(ch for ch in "abens" if ch in letters)


def _detail_identity(d: dict[str, Any]) -> str:
    text = _field("job_number", d["job_number"])
    text += _field("exec_file", d["exec_file"]) if d.get("exec_file") else ""
    text += _field("submission_time", format_c_ctime(d["submission_time"])) if d.get("submission_time") else ""
    text += _field("deadline", format_c_ctime(d["deadline"])) if d.get("deadline") else ""
    text += _field("owner", d["owner"]) + _field("uid", d["uid"])
    text += _field("group", d["group"]) + _field("gid", d["gid"])
    env = d.get("env_list") or []
    for var, label in _O_VARS:
        value = _env_value(env, _SGE_PREFIX + var)
        text += _field(label, value) if value is not None else ""
    return text


def _detail_options(d: dict[str, Any]) -> str:
    text = _field("execution_time", format_c_ctime(d["execution_time"])) if d.get("execution_time") else ""
    text += _field("account", d["account"]) if d.get("account") is not None else ""
    text += _field("checkpoint_object", d["checkpoint_name"]) if d.get("checkpoint_name") else ""
    # sge_show_checkpoint() always pads the letters with four blanks
    text += _field("checkpoint_attr", d["checkpoint_attr"] + "    ") if d.get("checkpoint_attr") else ""
    text += _field("checkpoint_interval", f"{d['checkpoint_interval']} seconds") if d.get("checkpoint_interval") else ""
    text += _field("cwd", d["cwd"]) if d.get("cwd") else ""
    text += _field("stderr_path_list", _path_text(d["stderr_path_list"])) if d.get("stderr_path_list") else ""
    text += _field("reserve", "y") if d.get("reserve") else ""
    text += _field("merge", "y") if d.get("merge_stderr") else ""
    for key, label in (("hard_resource_list", "hard resource_list"), ("soft_resource_list", "soft resource_list")):
        res = d.get(key) or []
        text += _field(label, ",".join(f"{r['name']}={r['value']}" for r in res)) if res else ""
    text += _field("mail_options", _mail_options(d["mail_options"])) if d.get("mail_options") else ""
    mails = d.get("mail_list") or []
    text += _field("mail_list", ",".join(f"{u}@{h or 'NONE'}" for u, h in mails)) if mails else ""
    return text + _field("notify", "TRUE" if d.get("notify") else "FALSE")


def _detail_request(d: dict[str, Any]) -> str:
    text = _field("job_name", d["job_name"])
    text += _field("stdout_path_list", _path_text(d["stdout_path_list"])) if d.get("stdout_path_list") else ""
    text += _field("stdin_path_list", _path_text(d["stdin_path_list"])) if d.get("stdin_path_list") else ""
    text += _field("priority", d["priority"]) if d.get("priority") else ""
    text += _field("jobshare", d.get("jobshare", 0))
    for key in ("hard_queue_list", "soft_queue_list"):
        text += _field(key, ",".join(d[key])) if d.get(key) else ""
    text += _field("restart", "y" if d["restart"] else "n") if d.get("restart") is not None else ""
    shells = d.get("shell_list") or []
    text += _field("shell_list", ",".join(f"{s.get('host') or 'NONE'}:{s['path']}" for s in shells)) if shells else ""
    text += _field("verify", "-verify") if d.get("verify") else ""
    if d.get("env_list") is not None:
        visible = [pair for pair in d["env_list"] if not pair[0].startswith(_SGE_PREFIX)]
        text += _field("env_list", _var_list(visible))
    else:
        text += "\n"  # 8.1.9 prints a bare newline when the job has no environment list
    text += _field("job_args", ",".join(d["job_args"])) if d.get("job_args") else ""
    text += _field("master hard queue_list", ",".join(d["master_queue_list"])) if d.get("master_queue_list") else ""
    text += _field("script_size", d["script_size"]) if d.get("script_size") else ""
    return text + (_field("script_file", d["script_file"]) if d.get("script_file") else "")


def _detail_dependencies(d: dict[str, Any]) -> str:
    text = f"parallel environment:  {d['pe']} range: {d.get('pe_range', '')}\n" if d.get("pe") else ""
    for key, label in (("jid_request_list", "jid_predecessor_list (req)"),
                       ("jid_predecessor_list", "jid_predecessor_list"),
                       ("jid_successor_list", "jid_successor_list"),
                       ("ja_ad_predecessor_list", "ja_ad_predecessor_list"),
                       ("ja_ad_successor_list", "ja_ad_successor_list")):
        values = d.get(key) or []
        text += _field(label, ",".join(str(v) for v in values)) if values else ""
    text += _field("verify_suitable_queues", d["verify_suitable_queues"]) if d.get("verify_suitable_queues") else ""
    text += _field("project", d["project"]) if d.get("project") else ""
    text += _field("ar_id", d["ar_id"]) if d.get("ar_id") else ""
    text += _field("job-array tasks", d["job_array_tasks"]) if d.get("job_array_tasks") else ""
    text += _field("maximum concurrency", d["ja_task_concurrency"]) if d.get("ja_task_concurrency") else ""
    return text + (_field("context", _var_list(d["context"])) if d.get("context") else "")


def _usage_line(task: dict[str, Any]) -> str:
    usage = task.get("usage") or {}
    vmem, maxvmem = usage.get("vmem", 0.0), usage.get("maxvmem", 0.0)
    return (f"usage {task['task_id']:9d}:            cpu={format_hms(usage.get('cpu', 0.0))}, "
            f"mem={usage.get('mem', 0.0):<5.5f} GB s, io={usage.get('io', 0.0):<5.5f} GB, "
            f"vmem={format_memory(vmem) if vmem else 'N/A'}, "
            f"maxvmem={format_memory(maxvmem) if maxvmem else 'N/A'}\n")


def _detail_tasks(d: dict[str, Any], show_binding: bool) -> str:
    text = _field("binding", d["binding"]) if show_binding and d.get("binding") is not None else ""
    flags = [f for f in ("binary", "noshell", "immediate") if f in (d.get("job_type") or [])]
    text += _field("job_type", ",".join(flags) or "NONE")
    running = [t for t in d.get("ja_tasks") or [] if t.get("status") in _RUNNING_STATUS]
    text += "".join(_usage_line(task) for task in running)
    if show_binding:
        text += "".join(f"binding {t['task_id']:7d}:            {t.get('binding') or 'NONE'}\n" for t in running)
    for task in d.get("ja_tasks") or []:
        for i, message in enumerate(task.get("messages") or []):
            text += f"{'error reason' if i == 0 else ' ' * 12} {task['task_id']:10d}:      {message}\n"
    return text


def _scheduling_info(messages: list[dict[str, Any]]) -> str:
    ordered = [m for m in messages if m.get("global")] + [m for m in messages if not m.get("global")]
    return "".join(("scheduling info:            " if i == 0 else " " * 28) + m["message"] + "\n"
                   for i, m in enumerate(ordered))


def render_job_detail(details: list[dict[str, Any]], *, show_binding: bool = True) -> str:
    """``qstat -j``: one block per JobDetail, each opened by a line of 62 '='."""
    return "".join(f"{_SEPARATOR}\n{_detail_identity(d)}{_detail_options(d)}{_detail_request(d)}"
                   f"{_detail_dependencies(d)}{_detail_tasks(d, show_binding)}"
                   f"{_scheduling_info(d.get('scheduling_info') or [])}" for d in details)


def render_jobs_not_found(job_ids: list[str]) -> str:
    """stderr text of ``qstat -j`` when none of the requested jobs exist (exit status 1)."""
    return f"{MSG_JOBS_NOT_FOUND}\n{', '.join(job_ids)}\n"


# --------------------------------------------------------------------------- qstat -j -xml

DETAIL_XSD = ("http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/"
              "detailed_job_info.xsd")
_MAIL_BITS = {"a": 0x40000, "b": 0x80000, "e": 0x100000, "n": 0x200000, "s": 0x400000}
_TYPE_BITS = {"immediate": 0x01, "binary": 0x40, "noshell": 0x100}
_CKPT_BITS = {"m": 0x01, "s": 0x02, "x": 0x04, "n": 0x08, "r": 0x10}
_BASE_PRIORITY = 1024
XmlNode = tuple[str, Any]  # (tag, str) leaf or (tag, list[XmlNode]) element with children


def xml_tree(nodes: list[XmlNode], depth: int) -> list[str]:
    """CULL's lWriteElemXML layout: two spaces per level, leaves on one line."""
    lines: list[str] = []
    for tag, value in nodes:
        pad = "  " * depth
        if isinstance(value, list):
            lines += [f"{pad}<{tag}>"] + xml_tree(value, depth + 1) + [f"{pad}</{tag}>"]
        else:
            lines.append(f"{pad}<{tag}>{xml_escape(value)}</{tag}>")
    return lines


def _bool(value: Any) -> str:
    return "true" if value else "false"


def _xml_paths(paths: list[dict[str, Any]]) -> list[XmlNode]:
    return [("path_list", [("PN_path", p["path"]), ("PN_host", p.get("host") or ""),
                           ("PN_file_host", p.get("file_host") or ""), ("PN_file_staging", "false")])
            for p in paths]


def _xml_requests(requests: list[dict[str, Any]]) -> list[XmlNode]:
    return [("qstat_l_requests", [
        ("CE_name", r["name"]), ("CE_valtype", str(r.get("valtype", 0))), ("CE_stringval", r["value"]),
        ("CE_doubleval", f"{r.get('doubleval', 0.0):f}"), ("CE_relop", "0"), ("CE_consumable", "0"),
        ("CE_dominant", "0"), ("CE_pj_doubleval", "0.000000"), ("CE_pj_dominant", "0"),
        ("CE_requestable", "0"), ("CE_tagged", "0")]) for r in requests]


def _xml_env(pairs: list[list[Any]]) -> list[XmlNode]:
    return [("job_sublist", [("VA_variable", name)] + ([("VA_value", value)] if value is not None else []))
            for name, value in pairs]


def _xml_tasks(tasks: list[dict[str, Any]]) -> list[XmlNode]:
    return [("ulong_sublist", [("JAT_status", str(t.get("status", 0))), ("JAT_task_number", str(t["task_id"]))]
             + ([("JAT_start_time", str(int(t["start_time"])))] if t.get("start_time") else [])
             + [("JAT_ntix", f"{t.get('ntix', 0.0):f}")]) for t in tasks]


def _task_range(spec: str | None) -> list[XmlNode]:
    first, last, step = 1, 1, 1
    if spec:
        bounds, _, step_text = spec.partition(":")
        low, _, high = bounds.partition("-")
        first, last, step = int(low), int(high or low), int(step_text or 1)
    return [("task_id_range", [("RN_min", str(first)), ("RN_max", str(last)), ("RN_step", str(step))])]


def _optional(tag: str, children: list[XmlNode]) -> list[XmlNode]:
    # CULL skips empty sub-lists and NULL strings entirely
    return [(tag, children)] if children else []


def _xml_job_head(d: dict[str, Any]) -> list[XmlNode]:
    nodes: list[XmlNode] = [("JB_job_number", str(d["job_number"])), ("JB_ar", str(d.get("ar_id") or 0))]
    nodes += [("JB_exec_file", d["exec_file"])] if d.get("exec_file") else []
    nodes += [("JB_submission_time", str(int(d["submission_time"]))), ("JB_owner", d["owner"]),
              ("JB_uid", str(d["uid"])), ("JB_group", d["group"]), ("JB_gid", str(d["gid"]))]
    nodes += [("JB_account", d["account"])] if d.get("account") is not None else []
    nodes.append(("JB_merge_stderr", _bool(d.get("merge_stderr"))))
    nodes += _optional("JB_mail_list", [("element", [("MR_user", u), ("MR_host", h or "")])
                                        for u, h in d.get("mail_list") or []])
    nodes += [("JB_project", d["project"])] if d.get("project") else []
    nodes += [("JB_notify", _bool(d.get("notify"))), ("JB_job_name", d["job_name"])]
    nodes += _optional("JB_stdout_path_list", _xml_paths(d.get("stdout_path_list") or []))
    nodes.append(("JB_jobshare", str(d.get("jobshare", 0))))
    nodes += _optional("JB_hard_resource_list", _xml_requests(d.get("hard_resource_list") or []))
    nodes += _optional("JB_soft_resource_list", _xml_requests(d.get("soft_resource_list") or []))
    nodes += _optional("JB_env_list", _xml_env(d.get("env_list") or []))
    nodes += _optional("JB_job_args", [("element", [("ST_name", a)]) for a in d.get("job_args") or []])
    nodes += [("JB_script_file", d["script_file"])] if d.get("script_file") else []
    nodes += _optional("JB_ja_tasks", _xml_tasks(d.get("ja_tasks") or []))
    nodes += [("JB_cwd", d["cwd"])] if d.get("cwd") else []
    return nodes + _optional("JB_stderr_path_list", _xml_paths(d.get("stderr_path_list") or []))


def _xml_job_tail(d: dict[str, Any]) -> list[XmlNode]:
    mail = sum(bit for letter, bit in _MAIL_BITS.items() if letter in (d.get("mail_options") or ""))
    jtype = sum(bit for flag, bit in _TYPE_BITS.items() if flag in (d.get("job_type") or []))
    jtype |= 0x80 if d.get("job_array_tasks") else 0
    restart = {None: 0, True: 1, False: 2}[d.get("restart")]
    nodes: list[XmlNode] = [("JB_deadline", str(int(d.get("deadline") or 0))),
                            ("JB_execution_time", str(int(d.get("execution_time") or 0)))]
    nodes += [("JB_checkpoint_name", d["checkpoint_name"])] if d.get("checkpoint_name") else []
    ckpt = sum(bit for letter, bit in _CKPT_BITS.items() if letter in (d.get("checkpoint_attr") or ""))
    nodes += [("JB_checkpoint_attr", str(ckpt)), ("JB_checkpoint_interval", str(d.get("checkpoint_interval", 0))),
              ("JB_reserve", _bool(d.get("reserve"))), ("JB_mail_options", str(mail))]
    nodes += _optional("JB_stdin_path_list", _xml_paths(d.get("stdin_path_list") or []))
    nodes += [("JB_priority", str(_BASE_PRIORITY + int(d.get("priority") or 0))),
              ("JB_restart", str(restart)), ("JB_verify", "1" if d.get("verify") else "0"),
              ("JB_script_size", str(d.get("script_size", 0)))]
    nodes += [("JB_pe", d["pe"])] if d.get("pe") else []
    nodes += [("JB_verify_suitable_queues", str(d.get("verify_suitable_queues", 0))),
              ("JB_soft_wallclock_gmt", "0"), ("JB_hard_wallclock_gmt", "0"),
              ("JB_override_tickets", str(d.get("override_tickets", 0))),
              ("JB_version", str(d.get("version", 0))),
              ("JB_ja_structure", _task_range(d.get("job_array_tasks"))), ("JB_type", str(jtype))]
    nodes += [("JB_binding", _xml_binding(d["binding"]))] if d.get("binding") is not None else []
    return nodes + [("JB_ja_task_concurrency", str(d.get("ja_task_concurrency", 0))),
                    ("JB_nurg", f"{d.get('nurg', 0.0):f}")]


def _xml_binding(binding: str) -> list[XmlNode]:
    if binding != "NONE":
        raise ValueError(f"qstat -j -xml: binding {binding!r} not supported, only NONE")
    return [("element", [("BN_strategy", "no_job_binding"), ("BN_type", "0"), ("BN_parameter_n", "0"),
                         ("BN_parameter_socket_offset", "0"), ("BN_parameter_core_offset", "0"),
                         ("BN_parameter_striding_step_size", "0"),
                         ("BN_parameter_explicit", "no_explicit_binding")])]


def _xml_messages(details: list[dict[str, Any]]) -> list[XmlNode]:
    seen = {m["message"]: m for d in details for m in d.get("scheduling_info") or [] if m.get("global")}
    globals_ = [("element", [("MES_message_number", str(m["number"])), ("MES_message", m["message"])])
                for m in seen.values()]
    return [("element", _optional("SME_global_message_list", globals_))]


def render_job_detail_xml(details: list[dict[str, Any]]) -> str:
    """``qstat -j ID -xml``: CULL dump of the jobs plus the scheduler's global messages."""
    jobs: list[XmlNode] = [("element", _xml_job_head(d) + _xml_job_tail(d)) for d in details]
    body = xml_tree([("djob_info", jobs), ("messages", _xml_messages(details))], 1)
    return "\n".join([XML_DECL, f'<detailed_job_info  xmlns:xsd="{DETAIL_XSD}">'] + body
                     + ["</detailed_job_info>"]) + "\n"
