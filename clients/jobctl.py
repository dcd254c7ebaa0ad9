"""What qdel, qhold and qrls share: job selections to request targets, answers to text."""
from __future__ import annotations

import sys
from typing import Any, Callable

from clients.api import Client, ClientError
from clients.joblist import (JobRef, JobSelection, RangeError, job_does_not_exist,
                             parse_job_selection)
from common.cell import CellNotFound


def targets(sel: JobSelection, user: str) -> list[dict[str, Any]]:
    out = [_target(ref, user) for ref in sel.refs]
    out += [{"user": u} for u in sel.users]
    return out


def _target(ref: JobRef, user: str) -> dict[str, Any]:
    if ref.target == "all":
        return {"user": user}
    if ref.is_id:
        target: dict[str, Any] = {"job_id": int(ref.target)}
        if ref.tasks:
            target["tasks"] = [list(t) for t in ref.tasks]
        return target
    return {"name": ref.target}


def unknown_text(result: dict[str, Any]) -> str:
    target = result.get("target") or {}
    if "job_id" in target:
        return job_does_not_exist(str(target["job_id"]))
    if "name" in target:
        return job_does_not_exist(str(target["name"]))
    return job_does_not_exist(str(target.get("user", "")), [str(target.get("user", ""))])


def run_job_command(prog: str, argv: list[str], usage: str,
                    act: Callable[[Client, list[dict[str, Any]]], list[dict[str, Any]]],
                    describe: Callable[[dict[str, Any], str], list[str]]) -> int:
    """Parse the selection, send it, print one line per answer; rc 1 if any was refused."""
    try:
        sel = parse_job_selection(argv)
    except RangeError as err:
        sys.stderr.write(err.message + "\n")
        return 1
    if sel.help or not (sel.refs or sel.users):
        (sys.stdout if sel.help else sys.stderr).write(usage)
        return 0 if sel.help else 1
    try:
        client = Client()
        results = act(client, targets(sel, client.user.name))
    except (ClientError, CellNotFound) as err:
        sys.stderr.write(f"error: {getattr(err, 'message', err)}\n")
        return 1
    rc = 0
    for result in results:
        if result["result"] in ("unknown", "denied"):
            rc = 1
        for line in describe(result, client.user.name):
            print(line)
    return rc
