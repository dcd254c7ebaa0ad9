"""``qconf -tsm``: trigger scheduler monitoring (qmaster.sched_monitor writes the run log
``$SGE_ROOT/$SGE_CELL/common/schedd_runlog``). The qmaster checks who asks (a manager,
on an administrative host, where qconf runs anyway); its answer, ``root@vm triggers
scheduler monitoring`` or 8.1.9's refusal of a non-manager, goes to stderr. 8.1.9 exits 0
after either (its refusal is a warning); so does this. Any other refusal exits 1."""
from __future__ import annotations

from typing import Callable

from clients.api import ClientError
from clients.qconf.base import Session, err


def trigger_monitor(s: Session) -> int:
    try:
        reply = s.client.trigger_monitor()
    except ClientError as exc:
        err(exc.message)
        return 0 if exc.code == "denied" else 1
    err(reply["message"])
    return 0


MONITOR_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-tsm": (0, trigger_monitor),
}
