"""The job life cycle: one transition table for every job task.

A task moves only through the pairs listed in ``TRANSITIONS``; anything else raises
``IllegalTransition``. Hold, error and suspend *reasons* are separate fields on the task
(see ``common.model.Task``); the state says only where the task is in its life.

    PENDING --dispatch--> TRANSFERRING --started--> RUNNING --exited--> FINISHED
       ^  |                    |  \\                  |  ^
  release hold               fail  delete         suspend unsuspend
       |  v                    v     \\               v  |
      HOLD                   ERROR    `--> DELETED  SUSPENDED
                               |                      ^  |
                          clear_error            suspend (a second reason:
                               v                      `--'  job and queue)
                            PENDING

A task is suspended for one or more reasons (``Task.suspend_reasons``: "job" for
``qmod -sj``, "queue" for a suspended queue instance, "threshold" for a suspend threshold,
"subordinate"/"slot-subordinate" for queue-wise and slot-wise subordination, "calendar"
for the queue's calendar); it leaves SUSPENDED only when the
last reason goes. Rescheduling (``qmod -rj``) ends the run on the host; the task comes back
as PENDING with ``restarts`` one higher (RESCHEDULE, or EXITED handled by the qmaster).
"""
from __future__ import annotations

from enum import StrEnum

from common import task_letters as names
# the state column qstat prints (import-free for the commands: common.task_letters)
from common.task_letters import state_letters

__all__ = ["ACTIVE_STATES", "TRANSITIONS", "WAITING_STATES", "Event", "IllegalTransition",
           "State", "allows", "next_state", "state_letters"]


class State(StrEnum):
    """A task's state; its value is the plain name the commands read (common.task_letters)."""
    PENDING = names.PENDING
    HOLD = names.HOLD
    TRANSFERRING = names.TRANSFERRING
    RUNNING = names.RUNNING
    SUSPENDED = names.SUSPENDED
    FINISHED = names.FINISHED
    ERROR = names.ERROR
    DELETED = names.DELETED  # deletion requested while the task is on an execution host


class Event(StrEnum):
    HOLD = "hold"            # a hold was added
    RELEASE = "release"      # the last hold was removed
    DISPATCH = "dispatch"    # the qmaster accepted a scheduler order
    STARTED = "started"      # the execd started the shepherd
    SUSPEND = "suspend"
    UNSUSPEND = "unsuspend"
    EXITED = "exited"        # the execd reported the end of the task
    FAIL = "fail"            # the task could not be started: error state (Eqw)
    DELETE = "delete"
    CLEAR_ERROR = "clear_error"
    RESCHEDULE = "reschedule"  # host lost or job re-queued: back to pending


S, E = State, Event

TRANSITIONS: dict[tuple[State, Event], State] = {
    (S.PENDING, E.HOLD): S.HOLD,
    (S.HOLD, E.HOLD): S.HOLD,
    (S.HOLD, E.RELEASE): S.PENDING,
    (S.PENDING, E.DISPATCH): S.TRANSFERRING,
    (S.TRANSFERRING, E.STARTED): S.RUNNING,
    (S.TRANSFERRING, E.EXITED): S.FINISHED,
    (S.TRANSFERRING, E.FAIL): S.ERROR,
    (S.TRANSFERRING, E.RESCHEDULE): S.PENDING,
    (S.TRANSFERRING, E.DELETE): S.DELETED,
    (S.RUNNING, E.SUSPEND): S.SUSPENDED,
    (S.RUNNING, E.EXITED): S.FINISHED,
    (S.RUNNING, E.DELETE): S.DELETED,
    (S.RUNNING, E.RESCHEDULE): S.PENDING,
    (S.RUNNING, E.FAIL): S.ERROR,
    (S.SUSPENDED, E.SUSPEND): S.SUSPENDED,  # another reason (job and queue)
    (S.SUSPENDED, E.UNSUSPEND): S.RUNNING,
    (S.SUSPENDED, E.EXITED): S.FINISHED,
    (S.SUSPENDED, E.DELETE): S.DELETED,
    (S.SUSPENDED, E.RESCHEDULE): S.PENDING,
    (S.DELETED, E.EXITED): S.FINISHED,
    (S.DELETED, E.DELETE): S.DELETED,
    (S.DELETED, E.FAIL): S.FINISHED,
    (S.DELETED, E.STARTED): S.DELETED,
    (S.PENDING, E.DELETE): S.FINISHED,
    (S.HOLD, E.DELETE): S.FINISHED,
    (S.ERROR, E.DELETE): S.FINISHED,
    (S.ERROR, E.CLEAR_ERROR): S.PENDING,
    (S.ERROR, E.HOLD): S.ERROR,
    (S.ERROR, E.RELEASE): S.ERROR,
}

# Who deleted an immediate job (qsub/qrsh -now y) that the scheduler could not start in
# its pass (deleted_by): no user's name can be it, so qsub and qrsh tell it from a qdel.
NOT_SCHEDULED = "<scheduler>"

# States in which a task occupies slots on an execution host.
ACTIVE_STATES = frozenset({S.TRANSFERRING, S.RUNNING, S.SUSPENDED, S.DELETED})
# States in which a task waits for the scheduler or a person.
WAITING_STATES = frozenset({S.PENDING, S.HOLD, S.ERROR})


class IllegalTransition(Exception):
    def __init__(self, state: State, event: Event) -> None:
        super().__init__(f"no transition from {state} on {event}")
        self.state = state
        self.event = event


def next_state(state: State, event: Event) -> State:
    """The state a task in ``state`` enters on ``event``; raises if the table has no entry."""
    try:
        return TRANSITIONS[(state, event)]
    except KeyError:
        raise IllegalTransition(state, event) from None


def allows(state: State, event: Event) -> bool:
    return (state, event) in TRANSITIONS
