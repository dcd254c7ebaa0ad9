"""Pure text/XML renderers for qstat job and queue listings (Grid Engine 8.1.9 format).

This module owns the exact layout of ``qstat`` (default table, ``-r``, ``-ext``, ``-urg``,
``-pri``), ``qstat -f``,
``qstat -xml``, ``qstat -f -xml`` and ``qstat -g c``.  Nothing here does I/O: plain dicts in,
strings out.  Times are epoch floats shown in local time.

``qstat -j`` (text and -xml, with its JobDetail keys) is ``clients.render.qstat_job`` and the
single-value formatters (dates, durations, memory, XML escaping) are ``clients.render.format``;
their public names are re-exported here, so callers keep using ``clients.render.qstat``
(``qstat -j``'s on first use: a listing does not load them, issue 12).

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
    -urg extras: nurg: float, urg, rrcontr, wtcontr, dlcontr: float, deadline: float | None
    -pri extras: nurg, npprior, ntckts: float, ppri: int (the -p value)

QueueRow (qstat -f): name: str, qtype: str ("BIP"), resv: int, used: int, total: int,
    load_avg: float | None (None -> "-NA-"), arch: str | None, states: str, jobs: [JobRow],
    explain: list[str] (-explain reason lines), resources: list[[dominance, name, value]] (-F)

ClusterQueueRow (qstat -g c): name: str, load: float | None, used, resv, available, total,
    temp_disabled, manual_intervention: int; with extended=True also suspend_manual,
    suspend_threshold, suspend_on_subordinate, suspend_calendar, unknown, load_alarm,
    disabled_manual, disabled_calendar, ambiguous, orphaned, error: int.
"""

from __future__ import annotations

from clients.render.format import (XML_DECL, format_c_ctime, format_ctime, format_hms,
                                   format_memory, format_xml_time, xml_escape, xml_line)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from clients.render.qstat_job import (DETAIL_XSD, MSG_JOBS_NOT_FOUND, XmlNode,
                                          render_job_detail, render_job_detail_xml,
                                          render_jobs_not_found, xml_tree)

# clients.render.qstat_job's names, imported when one is first asked for (PEP 562)
_QSTAT_JOB_NAMES = frozenset({"DETAIL_XSD", "MSG_JOBS_NOT_FOUND", "XmlNode", "render_job_detail",
                              "render_job_detail_xml", "render_jobs_not_found", "xml_tree"})


def __getattr__(name: str) -> Any:
    if name in _QSTAT_JOB_NAMES:
        from clients.render import qstat_job
        return getattr(qstat_job, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "DEFAULT_QUEUE_WIDTH", "DETAIL_XSD", "MSG_JOBS_NOT_FOUND", "QSTAT_XSD", "XML_DECL", "JobRow",
    "QueueRow", "XmlNode", "format_c_ctime", "format_ctime", "format_hms", "format_memory",
    "format_xml_time", "job_header", "job_line", "render_cluster_queue_summary", "render_full",
    "render_full_xml", "render_job_detail", "render_job_detail_xml", "render_job_table",
    "render_job_table_xml", "render_jobs_not_found", "resource_lines", "xml_escape", "xml_line",
    "xml_tree",
]

JobRow = dict[str, "Any"]
QueueRow = dict[str, "Any"]

DEFAULT_QUEUE_WIDTH = 30
QSTAT_XSD = "http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd"
_INDENT = "       "
_PENDING_TITLE = " - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS"
_FINISHED_TITLE = " --  FINISHED JOBS  -  FINISHED JOBS  -  FINISHED JOBS  -  FINISHED JOBS  --  "
_EXT_USAGE_HEAD = "cpu        mem     io      tckts ovrts otckt ftckt stckt share "


# --------------------------------------------------------------------------- row helpers

def _is_running(row: JobRow) -> bool:
    return row.get("start_time") is not None


def _shown_time(row: JobRow) -> float:
    return row["start_time"] if _is_running(row) else row["submit_time"]


def _task_column(row: JobRow) -> str:
    if row.get("task_id") is not None:
        return str(row["task_id"])
    return row.get("pending_tasks") or " " * 7


# --------------------------------------------------------------------------- job lines

def job_header(*, extended: bool, queue_width: int, indent: str = "", master_col: bool = False,
               urgency: bool = False, priority: bool = False, tasks: bool = False) -> str:
    """Header and dash line of the job table (two lines, each newline-terminated); with
    ``urgency`` (-urg) and ``priority`` (-pri) 8.1.9's further columns."""
    nurg = " nurg   " if priority or urgency else ""
    npprior = " npprior" if priority else ""
    ntckts = " ntckts " if extended or priority else ""
    urg = " urg      rrcontr  wtcontr  dlcontr " if urgency else ""
    ppri = "  ppri" if priority else ""
    project = "project          department " if extended else ""
    when = "submit/start at     " if _shows_time(extended, urgency, priority) else ""
    deadline = " deadline           " if urgency else ""
    usage = _EXT_USAGE_HEAD if extended else ""
    last = "master" if master_col else "slots"
    head = (f"{indent}job-ID  prior  {nurg}{npprior}{ntckts}{urg}{ppri} {'name':<10} "
            f"{'user':<12} {project}state {when}{deadline}"
            f"{usage}{'queue':<{queue_width}.{queue_width}} {last} ja-task-ID ")
    head += "task-ID state cpu        mem     io      stat failed " if tasks else ""
    dashes = 93 + (queue_width - 10) + (1 if master_col else 0) + (79 if extended else 0) \
        + (64 if urgency else 0) + (35 if priority else 0) + (53 if tasks else 0)
    return f"{head}\n{indent}{'-' * dashes}\n"


def _shows_time(extended: bool, urgency: bool, priority: bool) -> bool:
    """8.1.9 leaves out the submit/start column with -ext, unless -urg or -pri is given."""
    return not extended or urgency or priority


def _opti8(value: float) -> str:
    """8.1.9's OPTI_PRINT8: whole numbers up to eight digits, larger ones as %.3g."""
    return f"{value:8.3g} " if value > 99999999 else f"{value:8.0f} "


def _xml_opti8(value: float) -> str:
    return f"{value:.3g}" if value > 99999999 else f"{value:.0f}"


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
             master_label: str | None = None, print_jobid: bool = True,
             dates: dict[float, str] | None = None, urgency: bool = False,
             priority: bool = False) -> str:
    """One job line without newline; ``master_label`` switches to qhost's MASTER/SLAVE column;
    ``dates``: the listing's dates so far (``format_ctime``); ``urgency``/``priority``:
    the -urg and -pri columns."""
    if print_jobid and not (extended or urgency or priority):
        text = indent + _identity_columns(row, dates)
    elif print_jobid:
        text = f"{indent}{row['job_id']:7d} {row['prio']:7.5f} "
        text += f"{row.get('nurg') or 0.0:7.5f} " if urgency or priority else ""
        text += f"{row.get('npprior') or 0.0:7.5f} " if priority else ""
        text += f"{row.get('ntckts') or 0.0:7.5f} " if extended or priority else ""
        if urgency:
            text += "".join(_opti8(float(row.get(key) or 0.0))
                            for key in ("urg", "rrcontr", "wtcontr", "dlcontr"))
        text += f"{int(row.get('ppri') or 0):5d} " if priority else ""
        text += f"{row['name']:<10.10} {row['owner']:<12.12} "
        if extended:
            text += f"{row.get('project') or 'NA':<16.16} {row.get('department') or 'NA':<10.10} "
        text += f"{row['state']:<5.5} "
        if _shows_time(extended, urgency, priority):
            text += f"{format_ctime(_shown_time(row), dates)} "
        if urgency:
            deadline = row.get("deadline")
            text += f"{format_ctime(deadline, dates)} " if deadline else " " * 20
    else:
        # continuation lines of a parallel job (qhost -j): identity columns stay blank
        text = indent + " " * (8 + 8 + (8 if extended else 0) + 24 + (28 if extended else 0) + 6)
        text += "" if extended else " " * 20
    text += _usage_columns(row) if extended else ""
    if not full:
        text += f"{row.get('queue') or '':<{queue_width}.{queue_width}} "
    text += f"{master_label:<7.6}" if master_label is not None else f"{row['slots']:5d} "
    return text + _task_column(row)


def _subtask_text(subtasks: list[dict[str, Any]], extended: bool, full: bool) -> str:
    """qstat -t: a line's sub-tasks (views.attach_subtasks), the first on the line, the
    others on lines of their own under it (8.1.9's sge_print_subtask)."""
    spaces = " " * (93 + (1 if extended else 0) - (11 if full else 0))
    return ("\n" + spaces).join(_subtask(sub) for sub in subtasks)


def _subtask(sub: dict[str, Any]) -> str:
    missing = "NA" if sub.get("running") else ""
    text = f"   {sub['id']:<12} {sub['state']:<5.5} "
    cpu = sub.get("cpu")
    if cpu is None:
        text += f"{missing:<10.10} "
    else:
        days, rest = divmod(int(cpu), 86400)
        clock = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
        text += f"{days}:{clock} " if days else f"{clock} "
    for key in ("mem", "io"):
        value = sub.get(key)
        text += f"{missing:<7.7} " if value is None else f"{value:<5.5f} "
    return text


def _identity_columns(row: JobRow, dates: dict[float, str] | None) -> str:
    """job-ID to submit/start at of a line without -ext: one format for the many rows of
    a listing (``dates``: ``format_ctime``'s)."""
    return (f"{row['job_id']:7d} {row['prio']:7.5f} {row['name']:<10.10} {row['owner']:<12.12} "
            f"{row['state']:<5.5} {format_ctime(_shown_time(row), dates)} ")


def _table_line(row: JobRow, queue_width: int, dates: dict[float, str]) -> str:
    """``job_line(row, queue_width=queue_width)``, the plain table's line, as one format."""
    return (f"{_identity_columns(row, dates)}{row.get('queue') or '':<{queue_width}.{queue_width}} "
            f"{row['slots']:5d} {_task_column(row)}")


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
               queue_width: int, urgency: bool = False, priority: bool = False) -> str:
    out: list[str] = []
    dates: dict[float, str] = {}  # (format_ctime: each second once per listing)
    plain = not (extended or full or urgency or priority)
    for row in rows:
        if "master_label" in row:  # -g t: the master column (views.per_slot_rows)
            out.append(job_line(row, extended=extended, full=full, queue_width=queue_width,
                                dates=dates, urgency=urgency, priority=priority,
                                master_label=row["master_label"],
                                print_jobid=not row.get("continuation"))
                       + _subtask_text(row.get("subtasks") or [], extended, full) + "\n")
        else:
            out.append((_table_line(row, queue_width, dates) if plain else
                        job_line(row, extended=extended, full=full, queue_width=queue_width,
                                 dates=dates, urgency=urgency, priority=priority)) + "\n")
        if show_resources:
            out.append(resource_lines(row))
    return "".join(out)


# --------------------------------------------------------------------------- plain qstat / -f

def render_job_table(rows: list[JobRow], *, extended: bool = False, show_resources: bool = False,
                     queue_width: int = DEFAULT_QUEUE_WIDTH, urgency: bool = False,
                     priority: bool = False, tasks: bool = False) -> str:
    """``qstat`` without -f: header, dashes, one line per row; no jobs prints nothing at all.
    ``tasks``: -t's header (the rows carry their sub-tasks)."""
    if not rows:
        return ""
    return job_header(extended=extended, queue_width=queue_width, urgency=urgency,
                      priority=priority, master_col="master_label" in rows[0],
                      tasks=tasks) + _job_lines(
        rows, extended=extended, full=False, show_resources=show_resources,
        queue_width=queue_width, urgency=urgency, priority=priority)


def _queue_header(queue_width: int) -> str:
    return (f"{'queuename':<{queue_width}.{queue_width}} {'qtype':<5.5} {'resv/used/tot.':<14.14} "
            f"{'load_avg':<8.8} {'arch':<13.13} states\n")


def _queue_line(queue: QueueRow, queue_width: int) -> str:
    load = "-NA- " if queue.get("load_avg") is None else f"{queue['load_avg']:2.2f} "
    arch = "-NA- " if queue.get("arch") is None else f"{queue['arch']} "
    slots = f"{queue['resv']}/{queue['used']}/{queue['total']} "
    return (f"{queue['name']:<{queue_width}.{queue_width}} {queue['qtype']:<5.5} {slots:<14.14} "
            f"{load:<8.8} {arch:<13.13} {queue.get('states') or ''}\n")


def _queue_block(queue: QueueRow, *, extended: bool, show_resources: bool, queue_width: int,
                 urgency: bool = False, priority: bool = False) -> str:
    dashes = "-" * (81 + (108 if extended else 0) + max(0, queue_width - 30))
    text = dashes + "\n" + _queue_line(queue, queue_width)
    text += "".join(f"\t{reason}\n" for reason in queue.get("explain") or [])
    text += "".join(f"\t{dom}:{name}={value}\n" for dom, name, value in queue.get("resources") or [])
    return text + _job_lines(queue.get("jobs") or [], extended=extended, full=True,
                             show_resources=show_resources, queue_width=queue_width,
                             urgency=urgency, priority=priority)


def render_full(queues: list[QueueRow], pending_rows: list[JobRow], *, extended: bool = False,
                show_resources: bool = False, queue_width: int = DEFAULT_QUEUE_WIDTH,
                urgency: bool = False, priority: bool = False) -> str:
    """``qstat -f``: queue instances with their jobs, then the PENDING JOBS block (the
    queue lines and rulers as wide with -urg/-pri as without: 8.1.9's)."""
    text = _queue_header(queue_width) if queues else ""
    for queue in queues:
        text += _queue_block(queue, extended=extended, show_resources=show_resources,
                             queue_width=queue_width, urgency=urgency, priority=priority)
    hashes = "#" * (76 + (110 if extended else 0))
    # -s z: the finished jobs in a block of their own after the pending ones (8.1.9's
    # sge_printf_header, captured: tests/data/reference/lists/qstat-f-s-z.out)
    for title, rows in ((_PENDING_TITLE, [r for r in pending_rows if r["state"] != "z"]),
                        (_FINISHED_TITLE, [r for r in pending_rows if r["state"] == "z"])):
        if rows:
            text += f"\n{hashes}\n{title}\n{hashes}\n"
            text += _job_lines(rows, extended=extended, full=True,
                               show_resources=show_resources, queue_width=queue_width,
                               urgency=urgency, priority=priority)
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

def _xml_job(row: JobRow, *, depth: int, state: str, extended: bool, full: bool,
             urgency: bool = False, priority: bool = False) -> list[str]:
    fields: list[tuple[str, str | None]] = [("JB_job_number", str(row["job_id"])),
                                            ("JAT_prio", f"{row['prio']:.5f}")]
    # (8.1.9's order, as captured: JAT_ntix, JB_nppri, JB_nurg, the urgency's parts
    # without JB_urg, JB_priority)
    if extended or priority:
        fields.append(("JAT_ntix", f"{row.get('ntckts') or 0.0:.5f}"))
    if priority:
        fields.append(("JB_nppri", f"{row.get('npprior') or 0.0:.5f}"))
    if urgency or priority:
        fields.append(("JB_nurg", f"{row.get('nurg') or 0.0:.5f}"))
    if urgency:
        fields += [(tag, _xml_opti8(float(row.get(key) or 0.0))) for tag, key in (
            ("JB_rrcontr", "rrcontr"), ("JB_wtcontr", "wtcontr"), ("JB_dlcontr", "dlcontr"))]
    if priority:
        fields.append(("JB_priority", str(int(row.get("ppri") or 0))))
    fields += [("JB_name", row["name"]), ("JB_owner", row["owner"])]
    if extended:
        fields += [("JB_project", row.get("project")), ("JB_department", row.get("department"))]
    fields.append(("state", row["state"]))
    if _shows_time(extended, urgency, priority):
        tag = "JAT_start_time" if _is_running(row) else "JB_submission_time"
        fields.append((tag, format_xml_time(_shown_time(row))))
    if urgency and row.get("deadline"):
        fields.append(("JB_deadline", format_xml_time(row["deadline"])))
    fields += _xml_ext_fields(row) if extended else []
    if not full:
        fields.append(("queue_name", row.get("queue")))
    if "master_label" in row:  # -g t
        fields.append(("master", row["master_label"]))
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


def _xml_job_state(row: JobRow) -> str:
    """<job_list state=...>: a started task "running" (suspended too: its letters say
    so), a finished one (-s z) "zombie", every other "pending", as 8.1.9's (captured:
    tests/data/reference/lists; nipype's SGE plugin waits for "zombie")."""
    if row["state"] == "z":
        return "zombie"
    return "running" if row.get("queue") else "pending"


def _xml_jobs(rows: list[JobRow], *, depth: int, extended: bool, full: bool,
              urgency: bool = False, priority: bool = False) -> list[str]:
    out: list[str] = []
    for row in rows:
        state = _xml_job_state(row)
        out += _xml_job(row, depth=depth, state=state, extended=extended, full=full,
                        urgency=urgency, priority=priority)
    return out


def render_job_table_xml(running_rows: list[JobRow], pending_rows: list[JobRow], *,
                         extended: bool = False, urgency: bool = False,
                         priority: bool = False) -> str:
    """``qstat -xml``: jobs with a queue under <queue_info>, pending ones under <job_info>."""
    shown = {"extended": extended, "urgency": urgency, "priority": priority}
    return _xml_document(_xml_jobs(running_rows, depth=2, full=False, **shown),
                         _xml_jobs(pending_rows, depth=2, full=False, **shown))


def _xml_queue(queue: QueueRow, extended: bool, urgency: bool = False,
               priority: bool = False) -> list[str]:
    fields = [("name", queue["name"]), ("qtype", queue["qtype"]), ("slots_used", str(queue["used"])),
              ("slots_resv", str(queue["resv"])), ("slots_total", str(queue["total"]))]
    if queue.get("load_avg") is not None:
        fields.append(("load_avg", f"{queue['load_avg']:.5f}"))
    fields += [(t, queue.get(k)) for t, k in (("arch", "arch"), ("state", "states")) if queue.get(k)]
    body = [xml_line(3, tag, value) for tag, value in fields]
    # -explain: 8.1.9 writes threshold lines as <load-alarm-reason> (suspend
    # thresholds too: one field holds both), the error reason as <message>
    body += [xml_line(3, "load-alarm-reason" if reason.startswith("alarm ") else "message",
                      reason) for reason in queue.get("explain") or []]
    body += _xml_jobs(queue.get("jobs") or [], depth=3, extended=extended, full=True,
                      urgency=urgency, priority=priority)
    return ["    <Queue-List>"] + body + ["    </Queue-List>"]


def render_full_xml(queues: list[QueueRow], pending_rows: list[JobRow], *,
                    extended: bool = False, urgency: bool = False, priority: bool = False) -> str:
    """``qstat -f -xml``: <Queue-List> per queue instance, pending jobs under <job_info>."""
    queue_info = [line for queue in queues
                  for line in _xml_queue(queue, extended, urgency, priority)]
    return _xml_document(queue_info, _xml_jobs(pending_rows, depth=2, extended=extended,
                                               full=True, urgency=urgency, priority=priority))
