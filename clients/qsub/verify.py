"""``qsub -verify``: the job as 8.1.9's qsub prints it instead of submitting it.

8.1.9 prints the job it would send in qstat -j's layout (cull_show_job), without the
separator line: ``job_number: unassigned``, no owner (uid and gid 0), the submit
environment's ``sge_o_*`` lines, only what the command line gave (no default account),
``env_list`` with ``TERM`` without a value, the script itself after ``script_ptr:`` and
no binding or scheduling lines; it exits 0 and nothing reaches the qmaster. Captured:
tests/data/reference/qsub/qsub-verify*.{cmd,out}. Pure: the job description in, text out.
"""
from __future__ import annotations

from clients.render.qstat_job import render_job_detail
from clients.views.detail import job_detail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEPARATOR_LINE = "=" * 62 + "\n"
SCRIPT_PTR = "script_ptr:" + " " * 12 + "\n"


def verify_text(description: dict[str, Any], login: str, now: float) -> str:
    """The text of ``qsub -verify`` for ``description`` (clients.qsub.main's
    job_description: its ``opts``, ``script`` and ``sge_o``); ``login`` names the
    default mail address (user@submit host), ``now`` stands for the submit time."""
    opts = dict(description["opts"])
    env = dict(opts.get("env") or {})
    if env.get("TERM") is None and "TERM" in env:
        env["TERM"] = ""  # 8.1.9's qsub has not put TERM's NONE in yet: "env_list: TERM"
    opts["env"] = env
    script = description.get("script")
    job = {"job_id": 0, "owner": login, "uid": 0, "group": "", "gid": 0, "submit_time": now,
           "opts": opts, "sge_o": description.get("sge_o") or {}, "script": script}
    detail = job_detail(job, [], [])
    detail.update({"job_number": "unassigned", "exec_file": None, "submission_time": None,
                   "owner": "", "account": opts.get("account"), "binding": None,
                   "scheduling_info": []})
    if opts.get("script_path") == "STDIN" and script is None:
        detail["script_file"] = None
    text = render_job_detail([detail], show_binding=False)
    text = text[len(SEPARATOR_LINE):] if text.startswith(SEPARATOR_LINE) else text
    if script is not None:
        body = script.decode("utf-8", "surrogateescape") if isinstance(script, bytes) \
            else str(script)
        text = _after_line(text, "script_file:", SCRIPT_PTR + body + "\n")
    return text


def _after_line(text: str, label: str, insert: str) -> str:
    """``insert`` after the line that starts with ``label`` (at the end when none)."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.startswith(label):
            return "".join(lines[:index + 1]) + insert + "".join(lines[index + 1:])
    return text + insert
