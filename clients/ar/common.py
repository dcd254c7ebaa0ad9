"""What the three AR commands share: printing a usage error as 8.1.9 does, and one
request to the qmaster whose refusal is printed on stdout (exit 1, or 25 for
``max_advance_reservations``, as 8.1.9's qrsub)."""
from __future__ import annotations

import sys

from clients.api import ClientError, connect_or_exit
from clients.ar.options import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATUS_OF_CODE = {"max_ars": 25}


def usage_error(err: UsageError, usage: str) -> int:
    if err.usage:
        sys.stderr.write(usage)
    (sys.stdout if err.stream == "out" else sys.stderr).write(err.text + "\n")
    return err.status


def ask(prog: str, msg_type: str, body: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
    """The answer, or None and the exit status after printing the refusal."""
    client = connect_or_exit(prog)
    try:
        return client.request(msg_type, {"user": client.user.to_dict(), **body}), 0
    except ClientError as err:
        if err.code in ("unreachable", "timeout"):
            print(f"error: {err.message}", file=sys.stderr)
            return None, 1
        print(err.message)
        return None, STATUS_OF_CODE.get(err.code, 1)
    finally:
        client.close()
