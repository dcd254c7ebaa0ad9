"""The execd's part of reprioritization (sched_conf(5) ``reprioritize_interval``, sge_conf(5)
``reprioritize``): every ``ptf.SCHEDULE_SECONDS`` it measures its running tasks, runs the
pure PTF (common/policy/ptf.py) over them with the tickets the qmaster last sent
(``job_tickets``) and renices every process of each task's tree (execd/proctree.py; the
shepherd itself is not in the tree) with setpriority(2).

When reprioritization is turned off, the tasks' processes get their queue's ``priority``
back (their start value, as the shepherd set it), as 8.1.9's ptf_reinit_queue_priority does.

An execd not running as root can only raise the nice values of its own processes
(setpriority(2): EPERM/EACCES otherwise): a nice value it may not set is left as it is,
and logged once per task.
"""
from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common.policy import ptf
from execd import jobdir, proctree
from common import conf_params

TaskKey = tuple[int, int]
Log = Callable[..., None]


def ptf_bounds(execd_params: str) -> tuple[int, int]:
    """(pri_max, pri_min) from execd_params PTF_MAX_PRIORITY / PTF_MIN_PRIORITY."""
    return ptf.priority_range(_int_param(execd_params, "PTF_MIN_PRIORITY"),
                              _int_param(execd_params, "PTF_MAX_PRIORITY"))


def _int_param(execd_params: str, key: str) -> int | None:
    # (a value that is no number reads as the default, as 8.1.9 reads it)
    value = conf_params.value("execd_params", execd_params, key)
    assert isinstance(value, int)
    return None if value == -999 else value  # -999: "use the system's default"


@dataclass
class Reprioritizer:
    log: Log
    enabled: bool = False
    bounds: tuple[int, int] = (ptf.DEFAULT_MAX_PRIORITY, ptf.DEFAULT_MIN_PRIORITY)
    jobs: dict[TaskKey, ptf.PtfJob] = field(default_factory=dict)
    refused: set[TaskKey] = field(default_factory=set)  # logged once: may not renice

    def configure(self, reprioritize: bool | None, execd_params: str | None,
                  job_dirs: Iterable[Path]) -> None:
        """The host's configuration (sge_conf(5) reprioritize, execd_params) as the
        qmaster sent it; turned off: every task gets its queue's priority back."""
        if execd_params is not None:
            self.bounds = ptf_bounds(execd_params)
        if reprioritize is None or reprioritize == self.enabled:
            return
        self.enabled = reprioritize
        if not reprioritize:
            self._restore(job_dirs)
            self.jobs.clear()
            self.refused.clear()

    def tickets(self, items: Iterable[Mapping[str, Any]]) -> None:
        """A ticket list from the qmaster (reprioritization is on, then)."""
        self.enabled = True
        for item in items:
            key = (int(item["job_id"]), int(item["task_id"]))
            self.jobs[key] = ptf.with_tickets(self.jobs.get(key, ptf.PtfJob()),
                                              float(item["tickets"]))

    def step(self, job_dirs: Iterable[Path]) -> dict[TaskKey, int]:
        """One PTF step over the running tasks of ``job_dirs``; returns the nice values set."""
        if not self.enabled:
            return {}
        table, trees = _task_trees(job_dirs)
        self.jobs = {key: self.jobs.get(key, ptf.PtfJob()) for key in trees}
        cpu = {key: proctree.usage(table, pids).cpu for key, (pids, _) in trees.items()}
        procs = {key: len(pids) for key, (pids, _) in trees.items()}
        self.jobs, nice = ptf.step(self.jobs, cpu, procs, *self.bounds)
        for key, value in nice.items():
            self._renice(key, trees[key][0], value)
        return nice

    def _restore(self, job_dirs: Iterable[Path]) -> None:
        for key, (pids, path) in _task_trees(job_dirs)[1].items():
            try:
                priority = int(jobdir.option(jobdir.read_spec(path), "priority"))
            except (OSError, ValueError, KeyError, TypeError):
                continue
            self._renice(key, pids, priority)

    def _renice(self, key: TaskKey, pids: Iterable[int], value: int) -> None:
        for pid in pids:
            try:
                os.setpriority(os.PRIO_PROCESS, pid, value)
            except OSError as exc:
                if exc.errno == errno.ESRCH:
                    continue  # (ended meanwhile)
                if key not in self.refused:
                    self.refused.add(key)
                    self.log("warning", "cannot set nice value of job process",
                             job_id=key[0], task_id=key[1], pid=pid, nice=value,
                             error=os.strerror(exc.errno or 0))


def _task_trees(job_dirs: Iterable[Path]
                ) -> tuple[dict[int, proctree.Proc], dict[TaskKey, tuple[set[int], Path]]]:
    """The host's process table (read once, if any task runs) and each running task's
    processes (its job's tree below its shepherd) and directory."""
    table: dict[int, proctree.Proc] | None = None
    out: dict[TaskKey, tuple[set[int], Path]] = {}
    for path in job_dirs:
        job_pid = jobdir.live_pid(path / jobdir.JOB_PID_FILE)
        shepherd = jobdir.live_pid(path / jobdir.SHEPHERD_PID_FILE)
        if job_pid is None or shepherd is None or jobdir.read_result(path) is not None:
            continue
        if table is None:
            table = proctree.process_table()
        job_id, _, task_id = path.name.partition(".")
        pids = proctree.tree(table, job_pid, shepherd)
        if pids:
            out[(int(job_id), int(task_id))] = (pids, path)
    return table or {}, out
