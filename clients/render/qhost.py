"""Pure text/XML renderers for qhost (Grid Engine 8.1.9 format): plain, -q, -j, -F, -xml.

HostRow (one per execution host, the "global" pseudo host first, as qhost sorts them):
    name: str
    load_values: dict[str, str] -- raw values as reported/configured, e.g. "arch": "lx-amd64",
        "num_proc": "2", "m_socket": "1", "m_core": "2", "m_thread": "2",
        "load_avg": "2.016602", "mem_total": "24105.550781M", "mem_used": "216.035156M",
        "swap_total": "0M", "swap_used": "0M"; a missing key prints "-"
    resources: list[{"name": str, "dominance": str ("hl", "gc", ...), "type": str (complex(5)
        type: INT, DOUBLE, MEMORY, TIME, BOOL, STRING, CSTRING, RESTRING, HOST),
        "value": str (raw), "shortcut": str | None}] -- the -F lines, in report order
    queues: list[{"name": "all.q", "qtype": "BIP", "resv": int, "used": int, "total": int,
        "states": str}] -- the queue instances on this host (needed for -q and for -j, whose
        jobs are listed queue by queue)
    jobs: list[JobRow] (see clients.render.qstat) -- running jobs on this host; "queue" is the
        queue instance ("all.q@vm"), "master" tells MASTER/SLAVE, "slots" the slots here
Values are formatted like 8.1.9: LOAD "%.2f", memory columns "%.1f" with a 1024-based
K/M/G/T suffix ("23.5G", "216.0M", "0.0"), -F values per complex type ("23.330G", "2.000000").
"""

from __future__ import annotations

from clients.render.qstat import format_hms, format_memory, job_header, job_line, xml_escape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HostRow = dict[str, "Any"]

QHOST_XSD = "http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qhost/qhost.xsd"
_HEAD = ("HOSTNAME", "ARCH", "NCPU", "NSOC", "NCOR", "NTHR", "LOAD", "MEMTOT", "MEMUSE", "SWAPTO", "SWAPUS")
_HOST_KEYS = ("arch_string", "num_proc", "m_socket", "m_core", "m_thread", "load_avg",
              "mem_total", "mem_used", "swap_total", "swap_used")
_MULTIPLIERS = {"k": 1e3, "K": 1024.0, "m": 1e6, "M": 1024.0 ** 2, "g": 1e9, "G": 1024.0 ** 3,
                "t": 1e12, "T": 1024.0 ** 4}
# compiled on first use (re's cache): importing re costs a command's start-up about 4 ms
_NUMBER = r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)([kKmMgGtT]?)\s*$"
_STRING_TYPES = ("STRING", "CSTRING", "RESTRING", "HOST")
_JOB_INDENT = "   "
_JOB_QUEUE_WIDTH = 10  # qhost -j prints queue instance names cut to 10 characters


def parse_memory(text: str) -> float | None:
    """parse_ulong_val(TYPE_MEM): number with optional k/K/m/M/g/G/t/T; None if unparsable."""
    if text.strip().lower() in ("infinity", "inf"):
        return float("inf")
    import re
    match = re.match(_NUMBER, text)
    if match is None:
        return None
    return float(match.group(1)) * _MULTIPLIERS.get(match.group(2), 1.0)


def reformat_value(text: str, decimals: int) -> str:
    """reformatDoubleValue(): "%.<d>f" plus a 1024-based unit letter ("?E" if unparsable)."""
    value = parse_memory(text)
    if value is None:
        return "?E"
    if value == float("inf"):
        return "infinity"
    for unit, size in (("T", 1024.0 ** 4), ("G", 1024.0 ** 3), ("M", 1024.0 ** 2), ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.{decimals}f}{unit}"
    return f"{value:.{decimals}f}"


def host_values(host: HostRow) -> dict[str, str]:
    """The ten summary values of a host line, "-" where the host reports nothing."""
    raw = host.get("load_values") or {}
    values = {"arch_string": raw.get("arch", "-")}
    values.update({key: raw.get(key, "-") for key in ("num_proc", "m_socket", "m_core", "m_thread")})
    values["load_avg"] = reformat_value(raw["load_avg"], 2) if "load_avg" in raw else "-"
    for key in ("mem_total", "mem_used", "swap_total", "swap_used"):
        values[key] = reformat_value(raw[key], 1) if key in raw else "-"
    return values


def parse_time(text: str) -> float:
    if ":" in text:
        hours, minutes, seconds = (float(part or 0) for part in text.split(":"))
        return hours * 3600 + minutes * 60 + seconds
    return float(text)


def resource_value(resource: dict[str, Any]) -> str:
    """A -F value printed per complex type, as sge_print_resources() does."""
    kind, raw = resource["type"].upper(), str(resource["value"])
    if kind in _STRING_TYPES:
        return raw
    if raw.strip().lower() == "infinity":
        return "infinity"
    if kind == "TIME":
        return format_hms(parse_time(raw))
    if kind in ("MEMORY", "MEM"):
        return format_memory(parse_memory(raw) or 0.0)
    if kind in ("BOOL", "BOOLEAN"):
        return f"{1.0 if raw.lower() in ('true', '1', 'yes', 'y') else 0.0:f}"
    return f"{float(raw):f}"


def selected_resources(host: HostRow, names: list[str] | None) -> list[dict[str, Any]]:
    resources = host.get("resources") or []
    if names is None:
        return resources
    return [r for r in resources if r["name"] in names or (r.get("shortcut") and r["shortcut"] in names)]


# --------------------------------------------------------------------------- text

# -ncb: without the topology columns (NSOC NCOR NTHR; m_socket m_core m_thread in -xml)
_TOPOLOGY = ("m_socket", "m_core", "m_thread")


def _header(topology: bool = True) -> str:
    counts = _HEAD[2:6] if topology else _HEAD[2:3]
    return (f"{_HEAD[0]:<23} {_HEAD[1]:<13.13}" + " ".join(f"{h:>4.4}" for h in counts)
            + f" {_HEAD[6]:>5.5} " + " ".join(f"{h:>7.7}" for h in _HEAD[7:]) + "\n"
            + "-" * (94 if topology else 79) + "\n")


def _host_line(host: HostRow, topology: bool = True) -> str:
    v = host_values(host)
    counts = ("num_proc", *_TOPOLOGY) if topology else ("num_proc",)
    return (f"{host['name']:<23} {v['arch_string']:<13.13}"
            + " ".join(f"{v[k]:>4.4}" for k in counts)
            + f" {v['load_avg']:>5.5} " + " ".join(f"{v[k]:>7.7}" for k in _HOST_KEYS[6:]) + "\n")


def _resource_text(host: HostRow, names: list[str] | None) -> str:
    selected = selected_resources(host, names)
    # with an explicit -F list 8.1.9 prints this label, without a newline, before the first match
    text = "    Host Resource(s):   " if names is not None and selected else ""
    return text + "".join(f"   {r['dominance']}:{r['name']}={resource_value(r)}\n" for r in selected)


def _queue_line(queue: dict[str, Any]) -> str:
    slots = f"{queue['resv']}/{queue['used']}/{queue['total']} "
    return f"   {queue['name']:<20} {queue['qtype']:<5.5} {slots:<14.14}{queue.get('states') or ''}\n"


def _queue_jobs(host: HostRow, queue: dict[str, Any]) -> list[dict[str, Any]]:
    instance = f"{queue['name']}@{host['name']}"
    return [row for row in host.get("jobs") or [] if row.get("queue") == instance]


def _job_text(row: dict[str, Any], full: bool) -> str:
    """One line per slot: the first carries the job, the others are SLAVE continuation lines."""
    first = "MASTER" if row.get("master") else "SLAVE"
    text = job_line(row, full=full, queue_width=_JOB_QUEUE_WIDTH, indent=_JOB_INDENT,
                    master_label=first) + "\n"
    for _ in range(max(0, int(row["slots"]) - 1)):
        text += job_line(row, full=full, queue_width=_JOB_QUEUE_WIDTH, indent=_JOB_INDENT,
                         master_label="SLAVE", print_jobid=False) + "\n"
    return text


def render_hosts(hosts: list[HostRow], *, show_queues: bool = False, show_jobs: bool = False,
                 resource_names: list[str] | None = None, show_resources: bool = False,
                 topology: bool = True) -> str:
    """qhost text output.  ``show_resources`` is plain -F; ``resource_names`` is -F NAME,... ;
    ``topology`` False is -ncb."""
    text, job_header_done = _header(topology) if hosts else "", show_queues
    show_resources = show_resources or resource_names is not None
    for host in hosts:
        text += _host_line(host, topology)
        text += _resource_text(host, resource_names) if show_resources else ""
        for queue in host.get("queues") or [] if (show_queues or show_jobs) else []:
            text += _queue_line(queue) if show_queues else ""
            for row in _queue_jobs(host, queue) if show_jobs else []:
                if not job_header_done:
                    # printed once, before the first job, and only without -q
                    text += job_header(extended=False, queue_width=_JOB_QUEUE_WIDTH,
                                       indent=_JOB_INDENT, master_col=True)
                    job_header_done = True
                text += _job_text(row, show_queues)
    return text


# --------------------------------------------------------------------------- XML

def _attr_line(indent: str, tag: str, attrs: str, value: str, *, escape: bool = True) -> str:
    return f"{indent}<{tag} {attrs}>{xml_escape(value) if escape else value}</{tag}>\n"


def _xml_queue(queue: dict[str, Any]) -> str:
    name = xml_escape(queue["name"])
    values = (("qtype_string", queue["qtype"]), ("slots_used", str(queue["used"])),
              ("slots", str(queue["total"])), ("slots_resv", str(queue["resv"])),
              ("state_string", queue.get("states") or ""))
    body = "".join(_attr_line("   ", "queuevalue", f"qname='{name}' name='{key}'", value)
                   for key, value in values)
    return f" <queue name='{name}'>\n{body} </queue>\n"


def _xml_job(row: dict[str, Any], master: str, full: bool) -> str:
    jid = xml_escape(str(row["job_id"]))
    started = row.get("start_time") is not None
    values = [("qinstance_name", row.get("queue") or ""),
              ("job_name", row["name"]), ("job_owner", row["owner"]), ("job_state", row["state"]),
              ("start_time" if started else "submit_time",
               str(int(row["start_time"] if started else row["submit_time"])))]
    values += [] if full else [("queue_name", row.get("queue") or "")]
    values.append(("pe_master", master))
    values += [("taskid", str(row["task_id"]))] if row.get("task_id") is not None else []
    # the double value is printed as '%f' in quotes, unescaped
    body = _attr_line("   ", "jobvalue", f"jobid='{jid}' name='priority'", f"'{row['prio']:f}'", escape=False)
    body += "".join(_attr_line("   ", "jobvalue", f"jobid='{jid}' name='{key}'", value)
                    for key, value in values)
    return f" <job name='{jid}'>\n{body} </job>\n"


def _xml_jobs(row: dict[str, Any], full: bool) -> str:
    labels = ["MASTER" if row.get("master") else "SLAVE"] + ["SLAVE"] * max(0, int(row["slots"]) - 1)
    return "".join(_xml_job(row, label, full) for label in labels)


def _xml_host(host: HostRow, *, show_queues: bool, show_jobs: bool,
              resource_names: list[str] | None, show_resources: bool,
              topology: bool = True) -> str:
    values = host_values(host)
    text = f" <host name='{xml_escape(host['name'])}'>\n"
    text += "".join(_attr_line("   ", "hostvalue", f"name='{key}'", values[key])
                    for key in _HOST_KEYS if topology or key not in _TOPOLOGY)
    for res in selected_resources(host, resource_names) if show_resources else []:
        attrs = f"name='{xml_escape(res['name'])}' dominance='{xml_escape(res['dominance'])}'"
        text += _attr_line("   ", "resourcevalue", attrs, resource_value(res))
    for queue in host.get("queues") or []:
        text += _xml_queue(queue) if show_queues else ""
        text += "".join(_xml_jobs(row, show_queues) for row in _queue_jobs(host, queue)) if show_jobs else ""
    return text + " </host>\n"


def render_hosts_xml(hosts: list[HostRow], *, show_queues: bool = False, show_jobs: bool = False,
                     resource_names: list[str] | None = None, show_resources: bool = False,
                     topology: bool = True) -> str:
    """qhost -xml; same selection switches as render_hosts."""
    show_resources = show_resources or resource_names is not None
    body = "".join(_xml_host(host, show_queues=show_queues, show_jobs=show_jobs,
                             resource_names=resource_names, show_resources=show_resources,
                             topology=topology)
                   for host in hosts)
    return f"<?xml version='1.0'?>\n<qhost xmlns:xsd=\"{QHOST_XSD}\">\n{body}</qhost>\n"
