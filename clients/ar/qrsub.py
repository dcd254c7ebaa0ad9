"""``qrsub``: ask for an advance reservation (qrsub(1)); 8.1.9's texts and statuses:
``Your advance reservation 1 has been granted``; a refusal on stdout, exit 1
(``rejected: only 1 advance reservations are allowed per cluster``: exit 25)."""
from __future__ import annotations

import sys

from clients.ar.common import ask, usage_error
from clients.ar.options import UsageError, parse_qrsub
from clients.ar.usage import QRSUB_USAGE


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        req = parse_qrsub(args)
    except UsageError as err:
        return usage_error(err, QRSUB_USAGE)
    if req.help:
        sys.stdout.write(QRSUB_USAGE)
        return 0
    reply, status = ask("qrsub", "ar_submit", {"ar": req.body, "verify": req.verify})
    if reply is None:
        return status
    if req.verify:
        print(reply.get("verification", ""))
        return 0
    print(f"Your advance reservation {reply['ar_id']} has been granted")
    return 0


if __name__ == "__main__":
    import clients
    clients.run(main)
