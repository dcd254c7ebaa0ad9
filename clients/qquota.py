"""qquota: the resource quota rules in use, as qquota(1) of Grid Engine 8.1.9 shows them.

For each enabled rule set's rule, consumer tuple and limited complex in use, one line
``set/rule  complex=used/limit  filter``; by default only what concerns the calling user
(``-u '*'``: everyone). Options: ``-u``, ``-h``, ``-q``, ``-pe``, ``-P``, ``-l``
(resource names), ``-xml``, ``-help``; options are also read from the cell's
``common/sge_qquota`` and from ``~/.sge_qquota``, and everything adds up, as in 8.1.9
(tests/data/reference/rqs-sched/). The usage is worked out here from the cell's configuration and its
running jobs with the placement library the scheduler uses (common.placement.quotas).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from clients.api import ClientError, connect_or_exit
from common.jobstate import ACTIVE_STATES
from common.placement.job import placement_job
from common.placement.pass_conf import host_group_members
from common.placement.quotas import quota_context
from common.quota.report import QuotaRow, Selection, quota_rows, render_rows, render_rows_xml
from common.resource.complexes import cell_complexes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PRODUCT = "SGE 8.1.9"
USAGE = (f"{PRODUCT}\nusage: qquota [options]\n"
         "  [-help]                              print this help\n"
         "  [-h wc_host_list|wc_hostgroup_list]  display only selected hosts\n"
         "  [-l resource_attributes]             request the given resources\n"
         "  [-u user_list]                       display only selected users\n"
         "  [-pe wc_pe_list]                     display only selected parallel environments\n"
         "  [-P wc_project_list]                 display only selected projects\n"
         "  [-q wc_cqueue_list]                  display only selected queues\n"
         "  [-xml]                               display the information in XML format\n"
         "\n"
         "resource_attributes     resource_name,resource_name,...\n"
         "wc_cqueue               wildcard expression matching a cluster queue\n"
         "wc_cqueue_list          wc_cqueue[,wc_cqueue,...]\n"
         "wc_host                 wildcard expression matching a host\n"
         "wc_host_list            wc_host[,wc_host,...]\n"
         "wc_hostgroup            wildcard expression matching a hostgroup\n"
         "wc_hostgroup_list       wc_hostgroup[,wc_hostgroup,...]\n"
         "wc_pe                   wildcard expression matching a parallel environment\n"
         "wc_pe_list              wc_pe[,wc_pe,...]\n"
         "wc_project              wildcard expression matching a project\n"
         "wc_project_list         wc_project[,wc_project,...]\n"
         "user_list               user[,user,...]\n"
         # ours, after 8.1.9's lines
         "\n  [-fmt plain|json]                    output format (json: not in 8.1.9)\n")
LIST_OPTIONS = {"-u": "users", "-h": "hosts", "-q": "queues", "-pe": "pes", "-P": "projects",
                "-l": "resources"}


class QquotaExit(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def option_files(cell_common: Path | None) -> list[list[str]]:
    """The words of the cell's sge_qquota and of ~/.sge_qquota, one list per file that
    exists: lines starting with ``#`` are left out, a ``#`` later in a line is a word
    like any other (as in 8.1.9)."""
    sources: list[list[str]] = []
    paths = ([cell_common / "sge_qquota"] if cell_common else []) + \
        [Path(os.path.expanduser("~")) / ".sge_qquota"]
    for path in paths:
        try:
            text = path.read_text()
        except OSError:
            continue
        sources.append([word for line in text.splitlines()
                        if not line.lstrip().startswith("#") for word in line.split()])
    return sources


def parse_args(argv: list[str]) -> tuple[dict[str, list[str]], bool, bool]:
    """(list options, -xml, -help) of one source (a file or the command line). As in
    8.1.9 a list option given again adds to the list, and words after a list option's
    value add to that list too (``-u root sgeuser``); a list option without a value
    changes nothing. ``-fmt F`` is kept in the lists as ``fmt`` (``output_format``)."""
    lists: dict[str, list[str]] = {}
    xml = helped = False
    current: str | None = None
    words = iter(argv)
    for word in words:
        if word == "-fmt":
            value = next(words, None)
            if value is None or value.startswith("-"):
                raise QquotaExit(f"{USAGE}error: -fmt option must have argument")
            lists["fmt"], current = [value], None
        elif word == "-help":
            helped, current = True, None
        elif word == "-xml":
            xml, current = True, None
        elif word in LIST_OPTIONS:
            current = LIST_OPTIONS[word]
            lists.setdefault(current, [])
        elif current is not None and not word.startswith("-"):
            lists[current] += [v for v in word.split(",") if v]
        else:
            raise QquotaExit(f'{USAGE}error: invalid option argument "{word}"')
    return {name: values for name, values in lists.items() if values}, xml, helped


def parse_sources(sources: list[list[str]]) -> tuple[dict[str, list[str]], bool, bool]:
    """The files' options and the command line's, each read on its own, added up."""
    lists: dict[str, list[str]] = {}
    xml = helped = False
    for words in sources:
        more, more_xml, more_help = parse_args(words)
        for name, values in more.items():
            lists.setdefault(name, []).extend(values)
        xml, helped = xml or more_xml, helped or more_help
    return lists, xml, helped


def output_format(lists: dict[str, list[str]], xml: bool) -> bool:
    """Whether the sources ask for JSON (the last -fmt wins); another format, or -fmt
    with -xml, is refused with the usage."""
    if "fmt" not in lists:
        return False
    from clients.render.jsondoc import FormatError, check_format
    try:
        return check_format(lists["fmt"][-1], xml=xml)
    except FormatError as exc:
        raise QquotaExit(f"{USAGE}error: {exc}") from None


def selection(lists: dict[str, list[str]], me: str) -> Selection:
    def chosen(name: str) -> frozenset[str] | None:
        values = lists.get(name)
        if values is None or "*" in values:
            return None
        return frozenset(values)
    users = lists.get("users", [me])
    return Selection(users=None if "*" in users else frozenset(users),
                     hosts=chosen("hosts"), queues=chosen("queues"), pes=chosen("pes"),
                     projects=chosen("projects"), resources=chosen("resources"))


def report(client: Any, lists: dict[str, list[str]], xml: bool, json: bool = False) -> str:
    rows = usage_rows(client, lists)
    if json:
        return _json_rows(rows)
    if xml:  # (none in use: -xml still writes its empty document, as 8.1.9's)
        return render_rows_xml(rows)
    return render_rows(rows) if rows else ""


def usage_rows(client: Any, lists: dict[str, list[str]]) -> list[QuotaRow]:
    """The rules in use that ``lists`` (qquota's options) select, as qquota shows them
    (also the web view's quotas, clients.web)."""
    conf = {kind: client.conf_get(kind) for kind in ("rqs", "userset", "hgrp", "complex")}
    reply = client.jobs(ranges=True)  # (it reads the tasks that hold slots)
    records = {int(j["job_id"]): j for j in reply.get("jobs") or []}
    jobs = {}
    for job_id, record in records.items():
        try:
            jobs[job_id] = placement_job(record)
        except (TypeError, ValueError):
            continue
    holding = [t for t in reply.get("tasks") or []
               if t.get("state") in ACTIVE_STATES and t.get("granted")]
    hosts = {h["name"]: {k: str(v) for k, v in (h.get("load") or {}).items()}
             for h in client.cluster()["hosts"]}
    ctx = quota_context(conf, cell_complexes(conf), host_group_members(conf), hosts, jobs,
                        holding)
    if ctx is None:  # (no rule sets)
        return []

    def limit_text(name: str, text: str, host: str) -> str:
        return f"{ctx.limit_value(name, text, host):g}" if "$" in text else text
    return quota_rows(ctx.rule_sets, ctx.usage, ctx.names, limit_text,
                      selection(lists, client.user.name))


def asks_help(argv: list[str]) -> bool:
    """Whether the command line asks for -help; what else is wrong with it is said once
    the cell is known, as 8.1.9 checks the cell first."""
    try:
        return parse_sources([argv])[2]
    except QquotaExit:
        return False


def _json_rows(rows: list[Any]) -> str:
    """-fmt json: a document even when no rule is in use (its list empty)."""
    from clients.render.jsondoc.qquota import render_rows_json
    return render_rows_json(rows)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if asks_help(argv):  # -help needs no cell (8.1.9's neither)
            sys.stdout.write(USAGE)
            return 0
        client = connect_or_exit("qquota")
        cell = getattr(client, "_cell", None)
        common = cell.common_dir if cell is not None else None
        lists, xml, helped = parse_sources(option_files(common) + [argv])
        if helped:
            sys.stdout.write(USAGE)
            return 0
        json = output_format(lists, xml)
        sys.stdout.write(report(client, lists, xml, json))
        return 0
    except QquotaExit as exc:
        sys.stderr.write(exc.message + "\n")
        return exc.status
    except ClientError as exc:
        sys.stderr.write(exc.message + "\n")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
