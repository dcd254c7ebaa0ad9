"""qevent: watch the cell's events (8.1.9's qevent, on the event subscription of
clients.events).

``-sm``/``-subscribe`` prints one JSON object per line and event (docs/events.md: each
carries the qmaster run's ``epoch`` and its ``seq``, to resume with ``-resume
EPOCH:SEQ``); ``-trigger EVENT SCRIPT`` runs SCRIPT with the event's name, job id and task
id as its arguments when a job (``JB_END``) or one of its tasks (``JB_TASK_END``) ends, as
8.1.9 does. ``-u user_list`` keeps the jobs of those users. ``-ts`` (8.1.9's test suite
mode) is refused.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Iterable, TextIO

from clients.api import ClientError, connect_or_exit
from clients.events import Cursor, subscribe

USAGE = """\
SGE 8.1.9
usage:
qevent [-h|-help]
qevent -ts|-testsuite
qevent -sm|-subscribe
qevent -trigger EVENT SCRIPT [ -trigger EVENT SCRIPT, ... ]

   -h,  -help             show usage
   -ts, -testsuite        run in testsuite mode
   -sm, -subscribe        run in subscribe mode
   -trigger EVENT SCRIPT  start SCRIPT (executable) when EVENT occurs

SCRIPT - path to a executable shell script
         1. command line argument: event name
         2. command line argument: jobid
         3. command line argument: taskid
EVENT  - One of the following event category:
         JB_END      - job end event
         JB_TASK_END - job task end event

pygridengine also takes, with -subscribe or -trigger:
  -u user_list           only the jobs of these users
  -resume EPOCH:SEQ      go on after the event EPOCH:SEQ (a -subscribe line's epoch and seq)
"""
TRIGGER_EVENTS = ("JB_END", "JB_TASK_END")
REMEMBERED = 100000  # jobs and tasks whose end was already told (a bounded memory)


class UsageError(Exception):
    pass


@dataclass
class Options:
    subscribe: bool = False
    triggers: list[tuple[str, str]] = field(default_factory=list)
    owners: list[str] | None = None
    cursor: Cursor | None = None


def parse(argv: list[str]) -> Options | None:
    """The options; None for -help. UsageError with the message for anything else."""
    opts = Options()
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "-help"):
            return None
        if arg in ("-ts", "-testsuite"):
            raise UsageError("qevent: -testsuite is the test suite mode of Grid Engine's own "
                             "tests and is not supported by pygridengine")
        if arg in ("-sm", "-subscribe"):
            opts.subscribe = True
        elif arg == "-trigger":
            event, script = next(args, None), next(args, None)
            if event is None or script is None:
                raise UsageError("qevent: -trigger needs EVENT and SCRIPT")
            if event not in TRIGGER_EVENTS:
                raise UsageError(f'qevent: unknown event "{event}" (JB_END or JB_TASK_END)')
            if not (os.path.isfile(script) and os.access(script, os.X_OK)):
                raise UsageError(f'qevent: script "{script}" is not an executable file')
            opts.triggers.append((event, script))
        elif arg == "-u":
            users = next(args, None)
            if not users:
                raise UsageError("qevent: -u needs a user list")
            opts.owners = [u for u in users.split(",") if u]
        elif arg == "-resume":
            text = next(args, None) or ""
            try:
                opts.cursor = Cursor.parse(text)
            except ValueError as err:
                raise UsageError(f"qevent: {err}") from None
        else:
            raise UsageError(f'qevent: invalid option argument "{arg}"')
    if not opts.subscribe and not opts.triggers:
        raise UsageError("qevent: choose -subscribe or -trigger")
    return opts


@dataclass
class Ends:
    """Which job and task ends an event tells, each once (``JB_END``, ``JB_TASK_END``)."""

    told: OrderedDict[tuple[str, int, int], None] = field(default_factory=OrderedDict)

    def of(self, event: dict[str, Any]) -> list[tuple[str, int, int]]:
        found = []
        if event.get("kind") == "task" and event.get("state") == "finished":
            found.append(("JB_TASK_END", event["job_id"], event["task_id"]))
        if event.get("kind") in ("task", "pending") and event.get("job_finished"):
            found.append(("JB_END", event["job_id"], event.get("task_id", 0)))
        fresh = []
        for end in found:
            key = (end[0], end[1], end[2] if end[0] == "JB_TASK_END" else 0)
            if key not in self.told:
                self.told[key] = None
                fresh.append(end)
                if len(self.told) > REMEMBERED:
                    self.told.popitem(last=False)
        return fresh


def run_triggers(ends: Iterable[tuple[str, int, int]], triggers: list[tuple[str, str]],
                 err: TextIO) -> None:
    for name, job_id, task_id in ends:
        for event, script in triggers:
            if event == name:  # the user's own script, as the user, one at a time
                status = subprocess.call([script, name, str(job_id), str(task_id)])
                if status:
                    err.write(f"qevent: {script} {name} {job_id} {task_id} exited {status}\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse(argv)
    except UsageError as err:
        sys.stderr.write(f"{err}\n{USAGE}")
        return 1
    if opts is None:
        sys.stdout.write(USAGE)
        return 0
    client = connect_or_exit("qevent")
    ends = Ends()
    cursor = opts.cursor or Cursor()
    try:
        for event in subscribe(client, owners=opts.owners, cursor=cursor):
            if opts.subscribe:
                sys.stdout.write(json.dumps({"epoch": cursor.epoch, **event},
                                            separators=(",", ":")) + "\n")
                sys.stdout.flush()
            if opts.triggers:
                run_triggers(ends.of(event), opts.triggers, sys.stderr)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:
        return 141
    except ClientError as err:
        sys.stderr.write(f"qevent: {err.message}\n")
        return 1
    finally:
        client.close()
    return 0
