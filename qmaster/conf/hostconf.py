"""The qmaster's rules for the cluster configuration's objects (sge_conf(5), kind
``conf``): the global configuration and the host-local ones, named after their host.

Texts are Grid Engine 8.1.9's (tests/data/reference/hostconf/): ``configuration vm
already exists``, ``configuration vm does not exist`` (a file for a host without a local
configuration, ``qconf -Mconf``), ``can't delete configuration "global" from list``. A
host that has none may still be "removed" (8.1.9 says ``removed`` and changes nothing).

A local configuration's name must be one a host can have (``can't resolve hostname
"x"`` otherwise: ``qconf`` resolves names, the qmaster makes no resolver calls). Its
values are checked as the global configuration's are, but it holds only what it sets;
which of them count for a host is ``common.objects_conf.cluster.local_conf_value``'s
to say. The confirmations are ``qmaster.conf.requests``'s.
"""
from __future__ import annotations

from typing import Mapping

from common.objects_conf.cluster import host_conf_name
from qmaster.context import RequestError
from qmaster.host_rights import host_name_problem

GLOBAL_CONF = "global"


def check_local_conf_name(name: str) -> None:
    """A host-local configuration is named as a host is."""
    if host_name_problem(name):
        raise RequestError("invalid", f'can\'t resolve hostname "{name}"')


def check_conf_exists(name: str, mode: str, exists: bool) -> None:
    """Adding one that exists or changing a local one that does not, in 8.1.9's words."""
    if mode == "add" and exists:
        raise RequestError("exists", f"configuration {name} already exists")
    if mode == "modify" and not exists and name != GLOBAL_CONF:
        raise RequestError("missing", f"configuration {name} does not exist")


def deletable_conf(name: str, confs: Mapping[str, object]) -> str | None:
    """The stored name of the host configuration ``name`` names (host names compare
    as ``local_conf_value`` compares them), None when there is none; the global one
    cannot go."""
    if name == GLOBAL_CONF:
        raise RequestError("denied", f'can\'t delete configuration "{name}" from list')
    return host_conf_name(confs, name)
