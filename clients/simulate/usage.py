"""The usage a simulation books, through the usage book's pure module
(``common.policy.usage``): each running job adds ``slots x seconds`` of cpu to its
holders (its owner, or the owner within its project and the project), decayed as
sched_conf(5) ``halftime``/``halflife_decay_list`` say and weighted by
``usage_weight_list`` into the ``UsageTable`` the share tree compares.

An execd reports a running job's usage every few tens of seconds and the qmaster books
it as it arrives; the simulation books it at every event and in between at least
every ``booking_step`` seconds of virtual time (a hundredth of the shortest half-life,
at most ``MAX_BOOKING_STEP``: usage booked at the end of a step rather than as it
accrues is over-counted by about half a percent), so a long quiet stretch decays as it
would in a cell. Pure.
"""
from __future__ import annotations

from typing import Any, Iterable

from common.policy import usage as book
from common.policy.conf import PolicyConf
from common.policy.model import UsageTable

MAX_BOOKING_STEP = 600.0
# the usage module reads a stamp of 0 as "never stamped"; the virtual clock starts at 0
CLOCK_ORIGIN = 1.0e9


class UsageAccount:
    def __init__(self, conf: PolicyConf) -> None:
        self.conf = conf
        self.constants = book.decay_constants(conf)
        lives = [conf.halftime * 3600.0] + [minutes * 60.0 for minutes
                                            in conf.halflife_decay.values()]
        shortest = min((life for life in lives if life > 0), default=0.0)
        self.booking_step = min(MAX_BOOKING_STEP, shortest / 100) if shortest \
            else MAX_BOOKING_STEP
        self.records: book.Records = {}
        self.now = 0.0

    def advance(self, to: float, running: Iterable[Any]) -> None:
        """Book the usage of the ``running`` jobs (``JobRun``s) up to ``to``."""
        busy: dict[tuple[str, str | None], int] = {}
        for run in running:
            key = (run.job.owner, run.job.project)
            busy[key] = busy.get(key, 0) + run.job.slots
        while self.now < to:
            step = min(self.booking_step, to - self.now)
            self.now += step
            when = CLOCK_ORIGIN + self.now
            for (owner, project), slots in busy.items():
                book.book(self.records, owner, project, {"cpu": slots * step}, when,
                          self.constants)
        self.now = max(self.now, to)

    def table(self) -> UsageTable:
        return book.usage_table(self.records, CLOCK_ORIGIN + self.now, self.conf)

    def long_term(self) -> dict[str, float]:
        """Each user's usage never decayed (cpu, weighted), all projects together."""
        out: dict[str, float] = {}
        for holder, record in self.records.items():
            if holder.kind == book.USER:
                out[holder.name] = out.get(holder.name, 0.0) + book.weighted(
                    record.long_term, self.conf.usage_weights)
        return out
