"""``qconf``'s daemon control options (``-km -ks -kt -at -ke -kej -kec -secl -sss``): the
command line side. The qmaster does what each asks and words the answer as 8.1.9's
(qmaster.daemon_control; managers only for what stops a daemon); qconf prints it, the
listings (``-secl``, ``-sss``) on stdout, the rest on stderr as 8.1.9 does, and exits
with the status the qmaster gives. A host of ``-ke``/``-kej`` that does not resolve is
named here, as 8.1.9's qconf names it, and left out of the request.
"""
from __future__ import annotations

import sys

from clients.qconf.base import Session, err

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def _ask(s: Session, action: str, names: list[str] | None = None) -> int:
    reply = s.client.daemon_control(action, names)
    for line in reply.get("out") or []:
        sys.stdout.write(line + "\n")
    for line in reply.get("err") or []:
        err(line)
    return int(reply.get("status") or 0)


def _resolvable(host: str) -> bool:
    import socket  # (only -ke/-kej: qconf does not load it at start-up)
    try:
        socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return True


def _kill_execds(action: str) -> Callable[[Session, str], int]:
    def run(s: Session, host_list: str) -> int:
        names = [n for n in host_list.split(",") if n]
        status = 0
        if "all" not in names:
            unknown = [n for n in names if not _resolvable(n)]
            for name in unknown:
                err(f'can\'t resolve hostname "{name}"')
                status = 1
            names = [n for n in names if n not in unknown]
            if not names:
                return status
        return max(status, _ask(s, action, names))
    return run


def _with_list(action: str) -> Callable[[Session, str], int]:
    def run(s: Session, value: str) -> int:
        return _ask(s, action, [n for n in value.split(",") if n])
    return run


def _plain(action: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        return _ask(s, action)
    return run


# option -> (number of arguments, handler), the arguments 8.1.9 takes
CONTROL_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-km": (0, _plain("km")), "-ks": (0, _plain("ks")),
    "-kt": (1, lambda s, thread: _ask(s, "kt", [thread])),
    "-at": (1, lambda s, thread: _ask(s, "at", [thread])), "-ke": (1, _kill_execds("ke")),
    "-kej": (1, _kill_execds("kej")), "-kec": (1, _with_list("kec")),
    "-secl": (0, _plain("secl")), "-sss": (0, _plain("sss")),
}
