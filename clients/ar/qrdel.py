"""``qrdel``: delete advance reservations (qrdel(1)), with 8.1.9's lines: ``sgeuser has
deleted advance_reservation 7``, ``... has registered the advance_reservation 38 for
deletion`` (its jobs are being ended), refusals and unknown ids (exit 1)."""
from __future__ import annotations

import sys

from clients.ar.common import ask, usage_error
from clients.ar.options import UsageError, parse_qrdel
from clients.ar.usage import QRDEL_USAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def line(user: str, result: dict[str, Any]) -> tuple[str, bool]:
    """One result's line, and whether it is a failure."""
    kind, ar_id = result["result"], result.get("ar_id")
    if kind == "deleted":
        return f"{user} has deleted advance_reservation {ar_id}", False
    if kind == "registered":
        return f"{user} has registered the advance_reservation {ar_id} for deletion", False
    if kind == "denied":
        return (f"{user} - you do not have the necessary privileges to delete the "
                f'advance_reservation "{ar_id}"', True)
    if kind == "none_for_users":
        return ("There is no advance_reservation registered for the following users: "
                + ",".join(result["users"]), True)
    return f'denied: advance_reservation "{ar_id}" does not exist', True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        req = parse_qrdel(args)
    except UsageError as err:
        return usage_error(err, QRDEL_USAGE)
    if req.help:
        sys.stdout.write(QRDEL_USAGE)
        return 0
    reply, status = ask("qrdel", "ar_delete", {"ar_ids": req.ar_ids, "owners": req.owners,
                                               "force": req.force})
    if reply is None:
        return status
    from clients.api import current_user
    user = current_user().name
    failed = False
    for result in reply["results"]:
        text, bad = line(user, result)
        print(text)
        failed |= bad
    for name in req.not_ids:
        print(f'denied: advance_reservation "{name}" does not exist')
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    import clients
    clients.run(main)
