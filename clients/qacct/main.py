"""qacct: report Grid Engine usage from the cell's accounting file, as qacct(1) of SGE 8.1.9.

This module owns qacct's record selection and exit codes, with 8.1.9's wording; the
command line is ``clients.qacct.options``. It reads the accounting file directly (no qmaster) through ``common.accounting``.
The per-job blocks of ``-j`` and the usage summary table are ``clients.render.qacct``
(job_block, format_memory, group_usage and summary are re-exported here).

``-l`` asks the qmaster which queue instances offer the list now (8.1.9 selects the
records of the queues sge_select_queue accepts) and keeps their records; an unknown
resource is 8.1.9's ``error: unknown resource "x"`` (exit 1). Not supported: queue-domain
patterns in ``-q`` (``queue@@hostgroup``, which need the qmaster's host groups; such a
pattern is matched literally and so selects nothing).
"""
from __future__ import annotations

import sys
import time

from clients.qacct.options import (
    NO_JOBS, USAGE, Options, QacctExit, error, parse_args, parse_date_time, usage,
)
from clients.render.qacct import COLUMNS, format_memory, group_usage, job_block, summary
from common.accounting import AccountingFormatError, AccountingRecord, is_skipped_line, parse_line
from common.cell import CellNotFound, cell_from_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, TextIO

__all__ = ["NO_JOBS", "USAGE", "Options", "format_memory", "group_usage", "job_block",
           "main", "parse_args", "parse_date_time", "run", "scan", "selected", "summary"]

# ---------------------------------------------------------------- selection and main

def selected(opts: Options, rec: AccountingRecord) -> bool:
    """Whether ``rec`` passes every selection of ``opts`` (sge_read_rusage's checks)."""
    for key, _, attr in COLUMNS:
        want = opts.chosen.get(key)
        have = getattr(rec, attr)
        if want is None:
            continue
        if (str(want).lower() != str(have).lower()) if key == "host" else want != have:
            return False
    if opts.instances is not None and f"{rec.qname}@{rec.hostname}" not in opts.instances:
        return False
    if opts.queue_patterns and not any(_matches(f"{rec.qname}@{rec.hostname}", p)
                                       for p in opts.queue_patterns):
        return False
    if opts.job_given and not opts.all_jobs and rec.job_number != opts.job_number and not (
            opts.job_name is not None and _matches(rec.job_name, opts.job_name)):
        return False
    if opts.tasks and not opts.all_jobs:
        low, high, step = opts.tasks
        if not (low <= rec.task_number <= high and (rec.task_number - low) % step == 0):
            return False
    moment = rec.end_time if opts.select_end_time else rec.start_time
    if (opts.begin is not None and moment < opts.begin) or (opts.end is not None and moment > opts.end):
        return False
    return not (opts.master_only and rec.pe_taskid != "NONE")


def _matches(name: str, pattern: str) -> bool:
    import fnmatch  # (patterns only: fnmatch loads re, 4 ms of a command's start)
    return fnmatch.fnmatchcase(name, pattern)


def _open_lines(opts: Options) -> TextIO:
    """The accounting file; when it is missing, 8.1.9's messages and QacctExit(1)."""
    if opts.acct_file == "-":
        return sys.stdin
    path = opts.acct_file
    if path is None:
        try:
            path = str(cell_from_env().accounting_path)
        except CellNotFound:
            error("Please set the environment variable PYGE_ROOT.")
            raise QacctExit(1) from None
    try:
        return open(path, encoding="utf-8", errors="replace", newline="\n")
    except OSError as exc:
        sys.stderr.write(f"{path}: {exc.strerror}\n")  # perror(acct_file)
        # (-fmt json: stdout holds the document alone)
        (sys.stderr if opts.json else sys.stdout).write(f"{NO_JOBS}\n")
        raise QacctExit(1) from None


def scan(opts: Options, lines: Iterable[str]) -> list[AccountingRecord]:
    """The selected records; prints -j blocks and invalid-entry errors while reading."""
    chosen: list[AccountingRecord] = []
    number = 0
    for line in lines:
        if is_skipped_line(line):
            continue
        number += 1  # 8.1.9 counts the records it reads, not the lines of the file
        try:
            rec = parse_line(line)
        except AccountingFormatError:
            error(f"ignoring invalid entry in line {number}")
            continue
        if rec is not None and selected(opts, rec):
            if (opts.all_jobs or opts.job_given) and not opts.json:
                sys.stdout.write(job_block(rec))
            chosen.append(rec)
    return chosen


def _not_found(opts: Options) -> str:
    what = str(opts.job_number) if opts.job_number else opts.job_name
    if opts.tasks is None:
        return f"job id {what} not found" if opts.job_number else f"job name {what} not found"
    low, high, step = opts.tasks
    shown = what if opts.job_number else f'"{what}"'
    return f"Job-array tasks {shown}.{low}-{high}:{step} not found"


def offering_instances(request: str) -> frozenset[str]:
    """-l: the queue instances ("queue@host") that offer ``request`` now, by the
    qmaster's resource view; its refusal (an unknown resource) ends qacct (exit 1)."""
    from clients.api import ClientError, connect_or_exit
    client = connect_or_exit("qacct")
    try:
        with client:
            found = client.cluster(select=request).get("selected") or {}
    except ClientError as err:
        error(err.message)
        raise QacctExit(1) from None
    if found.get("error"):  # (8.1.9's words: unknown resource "x")
        error(str(found["error"]))
        raise QacctExit(1)
    return frozenset(found.get("instances") or [])


def run(argv: list[str], now: float) -> int:
    """qacct with ``argv`` at time ``now``; returns the exit code."""
    opts = parse_args(argv, now)
    if opts.resource_request is not None:
        opts.instances = offering_instances(opts.resource_request)
    stream = _open_lines(opts)
    try:
        records = scan(opts, stream)
    finally:
        if stream is not sys.stdin:
            stream.close()
    if opts.json:
        return _json_document(opts, records)
    if opts.job_given:
        if not records:
            error(_not_found(opts))
        return 0 if records else 1
    if opts.tasks is not None:
        error("-t option requires -j option with an argument")
        usage(sys.stderr)
    sys.stdout.write(summary(opts.chosen, opts.listed, records))
    return 0


def _json_document(opts: Options, records: list[AccountingRecord]) -> int:
    """-fmt json: the records of -j and, where the text view prints it, the summary; the
    exit codes and stderr messages of the text view."""
    from clients.render.jsondoc.qacct import render_accounting
    if opts.tasks is not None and not opts.job_given:
        error("-t option requires -j option with an argument")
        usage(sys.stderr)
    if opts.job_given and not records:
        error(_not_found(opts))
    sys.stdout.write(render_accounting(records, jobs=opts.all_jobs or opts.job_given,
                                       summary=not opts.job_given, chosen=opts.chosen,
                                       listed=opts.listed))
    return 1 if opts.job_given and not records else 0


def main(argv: list[str] | None = None) -> int:
    """qacct entry point: ``argv`` without the program name; returns the exit code."""
    try:
        return run(sys.argv[1:] if argv is None else argv, time.time())
    except QacctExit as done:
        return done.code
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
