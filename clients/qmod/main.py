"""The ``qmod`` console script: parse, send one ``qmod`` request, print the answers.

The qmaster words every answer (``qmaster.queue_control``); qmod prints them on stdout and
exits 1 when one of them is an error, as 8.1.9's qmod does. Command line errors go to
stderr (``clients.qmod.options``).
"""
from __future__ import annotations

import sys

from clients.api import Client, ClientError
from clients.jobctl import host_refusal
from clients.qmod.options import Refusal, parse
from common.cell import CellNotFound


def main(argv: list[str] | None = None) -> int:
    parsed = parse(sys.argv[1:] if argv is None else argv)
    if isinstance(parsed, Refusal):
        sys.stdout.write(parsed.stdout)
        sys.stderr.write(parsed.stderr)
        return parsed.status
    if not parsed.items:  # qmod -f: nothing to do, as in 8.1.9
        return 0
    try:
        with Client() as client:
            reply = client.request("qmod", {"user": client.user.to_dict(),
                                            "items": parsed.items, "force": parsed.force})
    except (ClientError, CellNotFound) as err:
        if isinstance(err, ClientError) and host_refusal(err):
            print(err.message)
            return 1
        sys.stderr.write(f"error: {getattr(err, 'message', err)}\n")
        return 1
    answers = reply.get("answers") or []
    for answer in answers:
        print(answer["text"])
    return 1 if any(a.get("error") for a in answers) else 0


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
