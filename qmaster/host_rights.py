"""Administrative and submit hosts: which requests a host may send, in Grid Engine's words.

Grid Engine keeps two host lists besides the execution hosts (``qconf -ah/-dh/-sh`` and
``-as/-ds/-ss``) and the qmaster checks the requester's host against them before it looks
at the request. What 8.1.9 does (captured in ``tests/data/reference/auth``):

- a job is submitted, deleted, held, released or altered only from a submit host:
  ``denied: host "h" is not a submit host``. Being an administrative host is not enough,
  not even for root, and the host is checked before the job's owner.
- configuration is changed (``conf_put``, ``conf_del``, ``userset_entries``: every
  ``qconf -a*/-A*/-m*/-M*/-d*``, ``-au/-du``, ...) only from an administrative host:
  ``denied: host "h" is not an admin host``, checked after the user's own permission
  (``must be manager``), as the qmaster of 8.1.9 orders its checks.
- anything a client reads (``job_query``, ``cluster_query``, ``conf_get``, ``wait``)
  needs a host that is either: ``denied: host "h" is neither submit nor admin host``.
  The cluster configuration (kind ``conf``) may also be read from an execution host,
  and a task of a running parallel job (``pe_task_start``, qrsh -inherit) asked for
  from one (8.1.9's qrsh -inherit asks the execd, which checks no host list).
- execution hosts are not submit hosts unless added; ``ping`` and the daemons' messages
  (register, load reports, job reports, snapshot, orders) are not subject to these
  rules (the daemons prove who they are with their keys).

The qmaster's host is always an administrative host: it is added at every start and
``qconf -dh`` refuses it (``denied: can't delete master host "h" from admin host list``).

Host names are compared the way :func:`same_host` says: case-insensitively, and a short
name and a fully qualified one are the same host when their first labels are (``vm``
and ``vm.example.org``; but ``vm.a.org`` and ``vm.b.org`` are different hosts, and an IP
address matches only itself). The requester's host reaches the qmaster either as the
qmaster's own host name (local clients) or as the short name its address resolves to,
while ``qconf -ah`` stores what the resolver calls the host, often the fully qualified
name: treating both forms alike makes them meet without a resolver call here. Names are
resolved (and unresolvable ones refused) by ``qconf`` when they are added; this module
makes no socket calls.
"""
from __future__ import annotations

import ipaddress
from typing import Any, Iterable

from common.model import UserInfo
from qmaster.context import RequestError
from qmaster.store import Store

ADMIN_HOSTS = "adminhost"
SUBMIT_HOSTS = "submithost"
HOST_KINDS = (ADMIN_HOSTS, SUBMIT_HOSTS)
# conf_get of this pseudo kind answers what the qmaster makes of the requester's host
# (qconf asks it first: 8.1.9's qconf works only on an administrative host)
HOST_RIGHTS = "host_rights"

_RESERVED = frozenset({"global", "template", "none", "all"})


# ---- host names ----------------------------------------------------------------------
def _normal(name: str) -> str:
    return name.strip().rstrip(".").lower()


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same_host(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` name the same host? Case does not count; when one of them has no
    dot, their first labels decide (a short name is its FQDN's first label); an IP
    address is only ever the same as itself. An empty name is no host."""
    a, b = _normal(a), _normal(b)
    if not a or not b:
        return False
    if a == b:
        return True
    if _is_address(a) or _is_address(b) or ("." in a and "." in b):
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


def find_host(host: str, names: Iterable[str]) -> str | None:
    """The entry of ``names`` that is ``host``, or None."""
    return next((name for name in names if same_host(host, name)), None)


def host_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a list entry (qconf sends resolved names; the qmaster
    still refuses what no host can be called: blanks, separators, reserved words), or
    None. Letters, digits, ``-._`` and, for IPv6 address texts, ``:``."""
    if not name or not name[:1].isalnum() or not name.isascii() or \
            not all(c.isalnum() or c in "-._:" for c in name) or len(name) > 255:
        return f'can\'t resolve hostname "{name}"'
    if name.lower() in _RESERVED:
        return f'can\'t resolve hostname "{name}"'
    return None


# ---- who is what -----------------------------------------------------------------------
def is_admin_host(store: Store, host: str) -> bool:
    return find_host(host, store.lists[ADMIN_HOSTS]) is not None


def is_submit_host(store: Store, host: str) -> bool:
    return find_host(host, store.lists[SUBMIT_HOSTS]) is not None


def _is_exec_host(store: Store, host: str) -> bool:
    return find_host(host, (h for h in store.conf["exechost"] if h != "global")) is not None


def rights_of(store: Store, host: str) -> dict[str, Any]:
    """What ``HOST_RIGHTS`` answers: the host as the qmaster sees it and its rights."""
    return {"host": host, "admin": is_admin_host(store, host),
            "submit": is_submit_host(store, host)}


# ---- the rules -------------------------------------------------------------------------
def not_submit_host(host: str) -> str:
    return f'denied: host "{host}" is not a submit host'


def not_admin_host(host: str) -> str:
    return f'denied: host "{host}" is not an admin host'


def neither_host(host: str) -> str:
    return f'denied: host "{host}" is neither submit nor admin host'


def require_submit_host(store: Store, user: UserInfo) -> None:
    """Submitting, deleting, holding, releasing and altering jobs."""
    if not is_submit_host(store, user.host):
        raise RequestError("denied", not_submit_host(user.host))


def require_admin_host(store: Store, user: UserInfo) -> None:
    """Every change of configuration, host and access lists included."""
    if not is_admin_host(store, user.host):
        raise RequestError("denied", not_admin_host(user.host))


def require_known_host(store: Store, user: UserInfo, *, exec_hosts: bool = False) -> None:
    """Reading anything: an administrative or a submit host (``exec_hosts``: or an
    execution host, as for the cluster configuration)."""
    host = user.host
    if is_admin_host(store, host) or is_submit_host(store, host) or \
            (exec_hosts and _is_exec_host(store, host)):
        return
    raise RequestError("denied", neither_host(host))
