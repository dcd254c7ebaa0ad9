"""``qconf`` options for the administrative and submit host lists (``-ah -dh -sh`` and
``-as -ds -ss``), and qconf's own rule that it runs on an administrative host, as Grid
Engine 8.1.9's qconf words, streams and exits them (``tests/data/reference/auth``).

- ``-ah/-as host_list``: each name is resolved here and sent as the resolver names it
  (``VM`` is stored as ``vm``, ``127.0.0.1`` as ``localhost``); a name that does not
  resolve is refused with ``can't resolve hostname "x"`` and exit status 1. The qmaster
  confirms ``x added to administrative host list`` or refuses (``adminhost "x" already
  exists``, ``denied: "u" must be manager for this operation``); 8.1.9 exits 0 after
  either, and so does this qconf.
- ``-dh/-ds host_list``: confirmed ``root@vm removed "x" from submit host list``; refused
  with ``denied: submit host "x" does not exist`` (exit status 1). A name that does not
  resolve is sent as typed, so an entry whose host has left DNS can still be removed;
  when the qmaster does not know it either, the answer is ``can't resolve hostname``.
- ``-sh/-ss``: one name a line, sorted; ``no submit host defined`` (stderr, exit
  status 1) for an empty list.

Every qconf option that reaches the qmaster first asks it what it makes of this host
(``conf_get`` of the pseudo kind ``host_rights``): on a host that is no administrative
host 8.1.9's qconf refuses even its show options, ``denied: host "h" is not an admin
host``; on a host that is neither administrative nor submit host the qmaster refuses the
question itself, ``denied: host "h" is neither submit nor admin host``. The host name in
both is the qmaster's view of the requester, not this machine's own idea of its name.
"""
from __future__ import annotations

from clients.api import Client, ClientError
from clients.qconf.base import EMPTY_LIST, UNRESOLVABLE, QconfError, Session, err, out

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

ADMIN, SUBMIT = "adminhost", "submithost"
# the pseudo kind qmaster.host_rights.HOST_RIGHTS (clients do not import the qmaster)
HOST_RIGHTS = "host_rights"
NOT_ADMIN_HOST = 'denied: host "{}" is not an admin host'
# the qmaster's refusals after which 8.1.9's qconf -ah/-as still exits 0
_ANSWERED = frozenset({"exists", "denied", "invalid"})


def on_admin_host(client: Client) -> Client:
    """``client``, once the qmaster has said that this host is an administrative host;
    QconfError with Grid Engine's refusal otherwise."""
    try:
        rights = client.conf_get(HOST_RIGHTS)
    except ClientError as exc:  # "neither submit nor admin host": qconf stops there
        raise QconfError(exc.message) from None
    if not rights.get("admin"):
        raise QconfError(NOT_ADMIN_HOST.format(rights.get("host", "")))
    return client


def canonical_name(host: str) -> str | None:
    """What the resolver calls ``host``, as Grid Engine stores a host that is added: the
    canonical name of a name, the name of an address (or the address when it has none);
    None when ``host`` does not resolve."""
    import ipaddress  # (the options that add or check a host only)
    import socket
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        try:
            return socket.gethostbyaddr(host)[0]
        except OSError:
            return host
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_CANONNAME)
    except (OSError, UnicodeError):
        return None
    return next((info[3] for info in infos if info[3]), host) if infos else None


def _names(text: str) -> list[str]:
    return [name for name in text.replace(" ", ",").split(",") if name]


def add_hosts(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        client = s.client  # 8.1.9 refuses a non-administrative host before resolving
        rc = 0
        for name in _names(names):
            resolved = canonical_name(name)
            if resolved is None:
                err(UNRESOLVABLE.format(name))
                rc = 1
                continue
            try:
                reply = client.conf_put(kind, resolved, None, "add")
            except ClientError as exc:
                err(exc.message)
                rc = max(rc, 0 if exc.code in _ANSWERED else 1)
                continue
            err(reply["message"])
        return rc
    return run


def delete_hosts(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        client = s.client
        rc = 0
        for name in _names(names):
            resolved = canonical_name(name)
            try:
                reply = client.conf_del(kind, resolved or name)
            except ClientError as exc:
                unknown = resolved is None and exc.code == "missing"
                err(UNRESOLVABLE.format(name) if unknown else exc.message)
                rc = 1
                continue
            err(reply["message"])
        return rc
    return run


def show_hosts(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        names = sorted(s.objects(kind))
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        out("\n".join(names))
        return 0
    return run


HOST_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-ah": (1, add_hosts(ADMIN)), "-dh": (1, delete_hosts(ADMIN)), "-sh": (0, show_hosts(ADMIN)),
    "-as": (1, add_hosts(SUBMIT)), "-ds": (1, delete_hosts(SUBMIT)),
    "-ss": (0, show_hosts(SUBMIT)),
}
