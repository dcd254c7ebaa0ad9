"""The event subscription for programs: ``subscribe`` yields the cell's job, task, queue
instance and host changes as they happen, one dict per event (docs/events.md), and goes on
across disconnects and qmaster restarts.

Built on ``Client.events`` (the ``events`` long poll of qmaster.event_feed). A
subscription remembers its cursor (``Cursor``: the qmaster run's epoch and the last
sequence number seen); after a lost connection it asks again from there, so nothing is
missed or repeated while the qmaster keeps the events. When events were missed (the
qmaster restarted, or the subscriber fell more than the qmaster keeps behind) it yields
one ``{"kind": "resync", ...}`` event: re-read the state (``Client.jobs``,
``Client.cluster``) and go on.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

from clients.api import Client, ClientError

POLL_SECONDS = 30.0  # one long poll's wait (the qmaster caps it at 60)
RETRY_SECONDS = (0.5, 1.0, 2.0, 5.0)  # waits between attempts to reach the qmaster
API_VERSION = 1


@dataclass
class Cursor:
    """Where a subscription stands: resume with the same values."""

    epoch: str | None = None
    seq: int | None = None

    def text(self) -> str:
        return f"{self.epoch}:{self.seq}" if self.epoch and self.seq is not None else ""

    @classmethod
    def parse(cls, text: str) -> "Cursor":
        """``EPOCH:SEQ`` as ``text`` and qevent's ``-resume`` write it."""
        epoch, sep, seq = text.rpartition(":")
        if not sep or not epoch or not seq.isdigit():
            raise ValueError(f'bad cursor "{text}" (EPOCH:SEQ)')
        return cls(epoch, int(seq))


def subscribe(client: Client, *, kinds: list[str] | None = None,
              owners: list[str] | None = None, cursor: Cursor | None = None,
              poll_seconds: float = POLL_SECONDS, retries: int | None = None
              ) -> Iterator[dict[str, Any]]:
    """The events after ``cursor`` (None: from now on), for ever. ``cursor`` is updated as
    events are yielded (read it to resume later). ``retries``: how many failed attempts
    in a row to bear before raising the ClientError (None: keep trying)."""
    cursor = cursor if cursor is not None else Cursor()
    failures = 0
    while True:
        try:
            answer = client.events(epoch=cursor.epoch, after=cursor.seq, timeout=poll_seconds,
                                   kinds=kinds, owners=owners)
        except ClientError as err:
            if err.code not in ("timeout", "unreachable") or \
                    (retries is not None and failures >= retries):
                raise
            time.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1
            continue
        failures = 0
        if int(answer.get("version", 0)) != API_VERSION:
            raise ClientError("version", f"event subscription version {answer.get('version')} "
                                         f"(this client speaks {API_VERSION})")
        resumed = cursor.seq is not None
        cursor.epoch = answer["epoch"]
        if answer["gap"]:
            cursor.seq = int(answer["seq"])
            if resumed:
                yield {"kind": "resync", "epoch": cursor.epoch, "seq": cursor.seq}
            continue
        for event in answer["events"]:
            cursor.seq = int(event["seq"])  # (a consumer that stops here resumes after it)
            yield event
        cursor.seq = int(answer["seq"])  # (past the events the filters left out)
