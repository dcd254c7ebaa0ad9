"""Pure text/XML renderers for ``qstat -j`` (Grid Engine 8.1.9 format): the
detailed job blocks, the "jobs do not exist" message and ``qstat -j -xml``
(CULL's XML dump of the job plus the scheduler's global messages). Plain dicts
in (the JobDetail keys below), strings out; times are epoch floats shown in
local time.

JobDetail keys (lines appear in this order; optional ones only when set, as in 8.1.9):
  job_number: int, exec_file: str | None, submission_time: float, deadline: float | None,
  owner: str, uid: int, group: str, gid: int,
  env_list: list[[name, value | None]] -- the job's full environment INCLUDING the
      "__SGE_PREFIX__O_HOME" ... "__SGE_PREFIX__O_HOST" entries; the sge_o_home/log_name/path/
      shell/tz/workdir/host lines are taken from them and they are hidden from "env_list:"
  execution_time: float | None (-a), account: str | None, checkpoint_name: str | None,
  checkpoint_attr: str (letters, "" = none), checkpoint_interval: int (seconds, 0 = none),
  cwd: str | None, stderr_path_list / stdout_path_list / stdin_path_list:
      list[{"path": str, "host": str | None, "file_host": str | None}] (8.1.9 prints the first),
  reserve: bool, merge_stderr: bool (-j y),
  hard_resource_list / soft_resource_list: list[{"name": str, "value": str,
      "valtype": int (1 INT 2 STR 3 TIME 4 MEM 5 BOOL 6 CSTR 7 HOST 8 DOUBLE 9 RESTR),
      "doubleval": float}] (valtype/doubleval are only used by -xml),
  mail_options: str (letters of -m, "" = default), mail_list: list[[user, host | None]],
  notify: bool, job_name: str, priority: int (-p value, 0 = default), jobshare: int,
  hard_queue_list / soft_queue_list / master_queue_list: list[str],
  restart: bool | None (-r y/n, None = not given), shell_list: list[{"host", "path"}],
  verify: bool, job_args: list[str] | None, script_size: int, script_file: str | None,
  pe: str | None, pe_range: str ("4", "2-8"), jid_request_list: list[str] (-hold_jid as given),
  jid_predecessor_list / jid_successor_list / ja_ad_predecessor_list /
  ja_ad_successor_list: list[int], verify_suitable_queues: int, project: str | None,
  ar_id: int, job_array_tasks: str | None ("1-3:1"), ja_task_concurrency: int (-tc),
  context: list[[name, value | None]], binding: str | None ("NONE"),
  job_type: list[str] (subset of "binary", "noshell", "immediate"),
  ja_tasks: list[{"task_id": int, "status": int (128 running, 512 transferring, other),
      "start_time": float | None, "ntix": float, "binding": str | None,
      "usage": {"cpu": s, "mem": GB s, "io": GB, "vmem": bytes, "maxvmem": bytes} | None,
      "messages": list[str] (error reasons)}],
  scheduling_info: list[{"message": str, "number": int, "global": bool}],
  -xml only: nurg: float, override_tickets: int, version: int.
"""

from __future__ import annotations

from clients.render.format import XML_DECL, format_c_ctime, format_hms, format_memory, xml_escape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SGE_PREFIX = "__SGE_PREFIX__"
_O_VARS = (("O_HOME", "sge_o_home"), ("O_LOGNAME", "sge_o_log_name"), ("O_PATH", "sge_o_path"),
           ("O_SHELL", "sge_o_shell"), ("O_TZ", "sge_o_tz"), ("O_WORKDIR", "sge_o_workdir"),
           ("O_HOST", "sge_o_host"))
_RUNNING_STATUS = (128, 512)
_SEPARATOR = "=" * 62
MSG_JOBS_NOT_FOUND = "Following jobs do not exist: "


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
    text += _field("script_file", d["script_file"]) if d.get("script_file") else ""
    # (-ot, as 8.1.9 prints it when a manager or operator gave one)
    return text + (_field("oticket", d["override_tickets"]) if d.get("override_tickets") else "")


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


def render_global_messages(messages: list[str]) -> str:
    """``qstat -j`` without jobs: the scheduler's global messages as 8.1.9 prints them,
    then an empty line; nothing when there are none."""
    return _scheduling_info([{"message": m, "global": True} for m in messages]) + (
        "\n" if messages else "")


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
XmlNode = tuple[str, "Any"]  # (tag, str) leaf or (tag, list[XmlNode]) element with children


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
