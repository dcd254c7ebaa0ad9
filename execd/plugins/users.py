"""The ``users`` load-sensor plugin: how many distinct users are logged in.

Reports ``nuser``, the name Grid Engine's own example sensor uses
(``$SGE_ROOT/util/resources/loadsensors/nuser.sh``: ``who | cut -f1 -d" " | sort | uniq |
wc -l``; complex line ``nuser nuser INT >= NO NO 0``), counted here from the utmp sessions
psutil reads (``psutil.users()``), each user once however many sessions they have.
"""
from __future__ import annotations

from collections.abc import Mapping

from execd.plugins import Value


class Users:
    """The number of distinct user names among the utmp sessions."""

    name = "users"

    def read(self) -> Mapping[str, Value]:
        import psutil  # lazily: only the hosts that run this plugin pay for it

        return {"nuser": len({session.name for session in psutil.users()})}
