"""``qconf -clearusage [user_list]``: clear every user's and project's share tree usage,
or the named users' (qmaster.usage_book). As in 8.1.9 it needs an administrative host
and a manager and says nothing when it is done; a refusal goes to stderr with exit
status 1 and ends qconf there (8.1.9 exits at once)."""
from __future__ import annotations

from typing import Callable

from clients.api import ClientError
from clients.qconf.base import QconfError, Session


def clear_usage(s: Session, users: str | None = None) -> int:
    names = [n for n in (users or "").replace(" ", ",").split(",") if n]
    try:
        s.client.clear_usage(names)
    except ClientError as exc:
        raise QconfError(exc.message) from None
    return 0


# -1: one optional argument (a following option is none: sge_next_is_an_opt)
USAGE_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-clearusage": (-1, clear_usage),
}
