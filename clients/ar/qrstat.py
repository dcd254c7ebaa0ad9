"""``qrstat``: show advance reservations (qrstat(1)): the caller's own by default,
``-u`` users' (patterns, ``*`` for all), ``-ar`` the ones named, ``-xml``; an ``-ar``
list of which none exists: ``Following advance reservations do not exist:`` and the
ids, exit 1 (8.1.9)."""
from __future__ import annotations

import sys

from clients.ar import render
from clients.ar.common import ask, usage_error
from clients.ar.options import UsageError, parse_qrstat
from clients.ar.usage import QRSTAT_USAGE


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        req = parse_qrstat(args)
    except UsageError as err:
        return usage_error(err, QRSTAT_USAGE)
    if req.help:
        sys.stdout.write(QRSTAT_USAGE)
        return 0
    body = {"ar_ids": req.ar_ids} if req.ar_ids is not None else {"owners": req.owners}
    reply, status = ask("qrstat", "ar_query", body)
    if reply is None:
        return status
    ars = reply["ars"]
    if req.ar_ids is not None:
        if not ars:
            print("Following advance reservations do not exist:")
            print(",".join(str(i) for i in reply["unknown"]))
            return 1
        sys.stdout.write(render.xml(ars, full=True) if req.xml else
                         "".join(render.detail(r) for r in ars))
        return 0
    sys.stdout.write(render.xml(ars, full=False) if req.xml else
                     render.listing(ars, explain=req.explain))
    return 0


if __name__ == "__main__":
    import clients
    clients.run(main)
