"""Advance reservations (qrsub(1), qrstat(1), qrdel(1)): the rules that do not need the
cluster, in Grid Engine 8.1.9's words (tests/data/reference/ar/).

This module owns:

- the window of a request (:func:`window`): ``-a`` start, ``-e`` end, ``-d`` duration,
  with 8.1.9's refusals (``start time is in the past`` ...);
- the states of an AR (:data:`STATES`) and which comes after which
  (:func:`state_at`): ``w`` waiting for its start, ``r`` running, ``d`` deleted (its jobs
  being ended), ``x`` exited (its end passed, its jobs being ended); ``E`` and ``W``
  (:func:`shown_state`) while one of its granted queue instances cannot run jobs, when
  running and waiting, with the message ``reserved queue all.q@vm is disabled``;
- who may use an AR (:func:`may_use`): its owner, and the users and ``@acl`` lists of
  ``qrsub -u``;
- the AR record's wire and spool form (:func:`new_record`, :func:`check_record`), and
  :func:`as_reservation`, what the dispatch pass is told of it
  (``common.placement.timeline.AdvanceReservation``).

Pure: the caller gives the time.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from common.placement.timeline import AdvanceReservation

MAX_AR_ID = 9_999_999  # ids wrap as job ids do
STATES = ("w", "r", "d", "x", "E", "W")
ENDING_STATES = frozenset({"d", "x"})  # its jobs are being ended; then it goes

# 8.1.9's refusals of a window (stdout of qrsub, exit 1)
NO_END = 'missing value for "end time or duration" in advance reservation request'
IN_PAST = "start time is in the past"
START_AFTER_END = "start time is later than end time"
DURATION_MISMATCH = "difference between end and start time does not correspond to duration"
NO_QUEUES = "advance_reservation: no suitable queues"
NOT_AR_USER = 'denied: "{user}" must be manager or in userset "arusers"'
AR_USERS = "arusers"  # the access list whose members may submit ARs (8.1.9)


class WindowError(ValueError):
    """A request whose window 8.1.9 refuses; ``str()`` is its text."""


def window(now: float, start: float | None, end: float | None, duration: float | None
           ) -> tuple[float, float]:
    """``(start, end)`` of a request with ``-a`` ``start``, ``-e`` ``end``, ``-d``
    ``duration`` (None: not given), as 8.1.9's qmaster checks them: no start is now;
    a duration of 0 counts as none."""
    duration = duration or None
    if end is None and duration is None:
        raise WindowError(NO_END)
    begin = now if start is None else start
    if start is not None and start < now:
        raise WindowError(IN_PAST)
    if end is None:
        assert duration is not None
        end = begin + duration
    elif duration is not None and (start is None or end - begin != duration):
        if start is None:  # -e -d: the start is end - duration
            begin = end - duration
            if begin < now:
                raise WindowError(IN_PAST)
        else:
            raise WindowError(DURATION_MISMATCH)
    if begin > end:
        raise WindowError(START_AFTER_END)
    if begin == end:
        raise WindowError(NO_END)
    return begin, end


def state_at(record: Mapping[str, Any], now: float) -> str:
    """The state the AR has at ``now`` by its window alone (``d`` stays ``d``)."""
    state = str(record.get("state") or "w")
    if state in ENDING_STATES:
        return state
    if now >= float(record["end"]):
        return "x"
    if now >= float(record["start"]):
        return "r"
    return "w"


# qmod and calendar states of a queue instance that keep an AR from its slots, as 8.1.9
# names them in "reserved queue Q is ..." (captured: disabled)
_TROUBLE = (("d", "disabled"), ("D", "disabled"), ("E", "in error state"))


def trouble(record: Mapping[str, Any], qi_states: Mapping[str, str],
            down_hosts: Iterable[str]) -> str | None:
    """Why the AR cannot have its granted slots now (None: it can): the first granted
    queue instance that is disabled, in error, or on a host whose execd is unknown."""
    down = set(down_hosts)
    for queue, host, _ in record.get("granted") or []:
        name = f"{queue}@{host}"
        if host in down:
            return f"reserved queue {name} is unknown"
        letters = qi_states.get(name, "")
        for letter, word in _TROUBLE:
            if letter in letters:
                return f"reserved queue {name} is {word}"
    return None


def shown_state(record: Mapping[str, Any], now: float, problem: str | None) -> str:
    """The state qrstat shows: that of the window (:func:`state_at`), ``E`` for a running
    and ``W`` for a waiting AR with a ``problem`` (8.1.9, qrstat-disabled)."""
    state = state_at(record, now)
    if problem:
        return {"r": "E", "w": "W"}.get(state, state)
    return state


def next_change(record: Mapping[str, Any]) -> float | None:
    """When the AR's state next changes by time alone (None: only by its jobs)."""
    state = record.get("state")
    if state == "w":
        return float(record["start"])
    if state == "r":
        return float(record["end"])
    return None


def may_use(record: Mapping[str, Any], user: str, usersets: Mapping[str, Iterable[str]]
            ) -> bool:
    """Whether ``user`` may submit jobs into the AR: its owner, or named by its ``-u``
    list (a user or an ``@acl`` whose entries hold the user); no list: everybody."""
    acl = record.get("acl") or []
    if not acl or user == record.get("owner"):
        return True
    for entry in acl:
        if entry.startswith("@"):
            if user in set(usersets.get(entry[1:], ())):
                return True
        elif entry == user:
            return True
    return False


def new_record(ar_id: int, spec: Mapping[str, Any], owner: str, group: str, now: float,
               start: float, end: float, granted: list[list[Any]], granted_pe: str | None
               ) -> dict[str, Any]:
    """The AR as the qmaster keeps and spools it, and qrstat shows it."""
    record = {
        "ar_id": ar_id, "name": str(spec.get("name") or ""), "owner": owner, "group": group,
        "account": str(spec.get("account") or "sge"), "submission_time": now,
        "start": start, "end": end, "state": "w",
        "hard_resources": dict(spec.get("hard_resources") or {}),
        "hard_queues": list(spec.get("hard_queues") or []),
        "pe": spec.get("pe"), "granted": [list(g) for g in granted],
        "granted_pe": granted_pe, "acl": list(spec.get("acl") or []),
        "mail_options": str(spec.get("mail_options") or ""),
        "mail_list": list(spec.get("mail_list") or []),
        "error_handling": bool(spec.get("error_handling")),
    }
    record["state"] = state_at(record, now)
    return record


_RECORD_FIELDS = {"ar_id": int, "owner": str, "start": (int, float), "end": (int, float),
                  "state": str, "granted": list}


def check_record(data: Any) -> dict[str, Any]:
    """A spooled record read back, or ValueError (the store sets it aside)."""
    if not isinstance(data, dict):
        raise ValueError("not a map")
    for name, kind in _RECORD_FIELDS.items():
        if not isinstance(data.get(name), kind):
            raise ValueError(f"field {name!r} missing or of the wrong type")
    if data["state"] not in STATES:
        raise ValueError(f"unknown state {data['state']!r}")
    as_reservation(data)  # (raises for a bad grant)
    return data


def slots(record: Mapping[str, Any]) -> int:
    return sum(int(g[2]) for g in record.get("granted") or [])


def as_reservation(record: Mapping[str, Any]) -> AdvanceReservation:
    """What the dispatch pass needs of the AR (the snapshot's ``ars``, ``ar`` events)."""
    return AdvanceReservation.from_record({
        "ar_id": record["ar_id"], "start": record["start"], "end": record["end"],
        "granted": record["granted"], "pe": record.get("granted_pe"),
        "owner": record.get("owner", ""),
        "hard_resources": record.get("hard_resources") or {},
        "hard_error": bool(record.get("error_handling"))})
