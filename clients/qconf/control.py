"""``qconf``'s daemon control options (``-km -ks -ke -kej -kt -at -kec -secl -sss``):
refused, each saying why and what to do instead (docs/compatibility.md,
"Checkpointing environments and daemon control").

In 8.1.9 they are requests to the qmaster, which stops itself, its scheduler thread or
an execd, or lists its event clients. Here the qmaster has no such request yet: the
scheduler is a process of its own (not a thread the qmaster can stop or start), the
qmaster keeps no list of event clients, and a request that stops a daemon needs its
place in the gate's rules and in the attack suite's model (docs/security.md) before it
may exist. A refusal is better than an option that answers and does nothing.
"""
from __future__ import annotations

from clients.qconf.base import QconfError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

WHY = {
    "-km": "stop the qmaster with SIGTERM (systemctl stop pyge-qmaster, or kill -TERM "
           "its pid)",
    "-ks": "the scheduler is a process of its own here: stop it with SIGTERM "
           "(systemctl stop pyge-scheduler)",
    "-kt": "the scheduler is a process of its own here: stop it with SIGTERM "
           "(systemctl stop pyge-scheduler)",
    "-at": "the scheduler is a process of its own here: start it as a daemon "
           "(systemctl start pyge-scheduler)",
    "-ke": "stop an execd with SIGTERM on its host (systemctl stop pyge-execd); its "
           "jobs keep running and are found again when it starts",
    "-kej": "stop an execd with SIGTERM on its host (systemctl stop pyge-execd) after "
            "deleting its jobs (qdel)",
    "-kec": "the qmaster keeps no list of event clients",
    "-secl": "the qmaster keeps no list of event clients",
    "-sss": "the scheduler is a process of its own here, not a thread of the qmaster",
}


def refusal(option: str) -> Callable[..., int]:
    def run(*_: object) -> int:
        raise QconfError(f'error: qconf option "{option}" is not supported by '
                         f"pygridengine: {WHY[option]}")
    return run


# option -> (number of arguments, handler): the arguments 8.1.9 takes, so that a
# command line is read as far as 8.1.9 reads it
CONTROL_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-km": (0, refusal("-km")), "-ks": (0, refusal("-ks")), "-kt": (1, refusal("-kt")),
    "-at": (1, refusal("-at")), "-ke": (1, refusal("-ke")), "-kej": (1, refusal("-kej")),
    "-kec": (1, refusal("-kec")), "-secl": (0, refusal("-secl")),
    "-sss": (0, refusal("-sss")),
}
