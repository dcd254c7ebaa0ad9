"""The states of a job task as the commands read them, the letters ``qstat`` and
``qhost -j`` print for them (``qw``, ``hqw``, ``r``, ``Eqw`` ...), and the letters of
``qstat -s``, which select tasks by state (``p``, ``r``, ``s``, ``z``, ``hu`` ...).

The qmaster keeps a task's state as ``common.jobstate.State``, a StrEnum; what reaches a
command is its value, a plain string. This module names those strings and owns the
state column, import-free, so that a command's start-up does not pay for the enum
module (about 2 ms, issue 12); ``common.jobstate`` re-exports ``state_letters`` and a
test keeps the names here equal to the enum's values.
"""
from __future__ import annotations

PENDING = "pending"
HOLD = "hold"
TRANSFERRING = "transferring"
RUNNING = "running"
SUSPENDED = "suspended"
FINISHED = "finished"
ERROR = "error"
DELETED = "deleted"

STATES = frozenset({PENDING, HOLD, TRANSFERRING, RUNNING, SUSPENDED, FINISHED, ERROR,
                    DELETED})
# a task occupies slots on an execution host (common.jobstate.ACTIVE_STATES)
ACTIVE = frozenset({TRANSFERRING, RUNNING, SUSPENDED, DELETED})
# a task waits for the scheduler or a person (common.jobstate.WAITING_STATES)
WAITING = frozenset({PENDING, HOLD, ERROR})
_QUEUE_SUSPENSIONS = frozenset({"queue", "subordinate", "slot-subordinate", "calendar"})

# qstat -s: the hold letters select pending tasks by kind of hold (qstat(1))
HOLD_FLAGS = ("hu", "ho", "hs", "hd", "hj", "ha")
_S_FLAGS = ("hu", "hs", "ho", "hd", "hj", "ha", "h", "p", "r", "s", "z", "a")
_S_EXPANSION = {"h": HOLD_FLAGS + ("p",), "a": ("p", "r", "s")}
DEFAULT_STATES = frozenset({"p", "r", "s"})


def state_letters(state: str, holds: frozenset[str] | set[str] | list[str] = frozenset(),
                  queue_suspended: bool = False, *,
                  suspend_reasons: frozenset[str] | set[str] | list[str] = (),
                  restarted: bool = False) -> str:
    """Grid Engine's qstat state column for a task in ``state`` (a name above, or a
    ``common.jobstate.State``, which equals its name).

    The letters come in Grid Engine's order (d E S T h R q r s t w): ``S`` the task's queue
    instance is suspended (qmod -s, subordination, a calendar), ``T`` a suspend threshold
    of its queue instance stopped it, ``s`` the task itself (qmod -sj), ``R`` it was started
    again (rescheduled; Grid Engine shows ``R`` instead of ``w`` while it waits, ``Rq``),
    ``r`` only while nothing suspends it.
    """
    hold = "h" if holds else ""
    again = "R" if restarted else ""
    if state == PENDING or state == HOLD:
        return f"{hold}{again}q" if again else f"{hold}qw"
    if state == ERROR:
        return f"E{hold}{again}q" if again else f"E{hold}qw"
    if state == DELETED:
        return "dr"
    if state != TRANSFERRING and state != RUNNING and state != SUSPENDED:
        return "z"
    reasons = set(suspend_reasons) | ({"queue"} if queue_suspended else set())
    if state == SUSPENDED and not reasons:  # a record from before reasons were kept
        reasons = {"job"}
    big_s = "S" if reasons & _QUEUE_SUSPENSIONS else ""
    big_t = "T" if "threshold" in reasons else ""
    small_s = "s" if "job" in reasons else ""
    running = "" if reasons or state == TRANSFERRING else "r"
    moving = "t" if state == TRANSFERRING else ""
    return f"{big_s}{big_t}{hold}{again}{running}{small_s}{moving}"


def parse_state_filter(text: str) -> frozenset[str] | None:
    """The -s argument as a set of p r s z and hold letters; None when Grid Engine refuses it.

    Like build_job_state_filter(), every flag found at the current position is consumed
    in table order, so "hup" is "hu" plus "p"; hold letters imply "p".
    """
    found: set[str] = set()
    rest = text
    while rest:
        matched = False
        for flag in _S_FLAGS:
            if rest.startswith(flag):
                found.update(_S_EXPANSION.get(flag, (flag,)))
                found.update(("p",) if flag.startswith("h") else ())
                rest, matched = rest[len(flag):], True
        if not matched:
            return None
    return frozenset(found)
