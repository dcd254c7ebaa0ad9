"""pygridengine's commands (qsub, qstat, ...: ``clients.<command>``) and their Python
client API (``clients.api``). ``run`` is how a command's process runs its ``main``: the
launchers in clients/scripts/ and ``python -m clients.<command>`` call it."""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, NoReturn


def run(main: Callable[[], int | None], *, collect: bool = True) -> NoReturn:
    """Run a command's ``main`` and end the process with its exit status.

    The interpreter's orderly exit frees every object and module one by one and collects
    cycles; a command does not need that (its sockets and files close with the process,
    the files it writes with ``with``), and after a listing of thousands of jobs it
    costs 3 ms (issue 12). So once ``main`` has returned and the standard streams are
    flushed, the process ends at once (``os._exit``). Everything else takes the usual
    way, as before: an exception or ``SystemExit`` from ``main``, a status that is not a
    number, a flush that fails (the interpreter then reports it and exits with 120).

    A command is a process of its own, so msgpack may be loaded in it without its
    extension types (``common.wire.use_lean_msgpack``).

    ``collect=False``: no cyclic garbage collection while ``main`` runs, for a command
    that decodes and formats one large answer (qstat, qhost): every object it builds
    stays in use until the end, and each collection would only walk them again.
    """
    if not collect:
        import gc
        gc.disable()
    from common import wire  # (loaded already by every command's module)
    wire.use_lean_msgpack()
    status = main()
    if status is None:
        status = 0
    if type(status) is not int:
        sys.exit(status)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:  # (EPIPE, ENOSPC: what the interpreter's own exit makes of it)
        sys.exit(status)
    os._exit(status & 0xFF)
